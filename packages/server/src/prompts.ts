import { ErrorCode, McpError, type GetPromptResult, type Prompt } from '@modelcontextprotocol/sdk/types.js';
import { invalidArguments, type ArgumentIssue } from './args.js';
import { spacePromptName, type PromptTemplate, type SpaceDefinition } from './config.js';
import type { Connection } from './connection.js';
import { compiledPrompt } from './inject.js';

/** `prompts/list`: each space's compiled prompt (`inject-<spaceId>`, no arguments) and every prompt template. */
export function listPrompts(spaces: readonly SpaceDefinition[]): Prompt[] {
  return spaces.flatMap((space) => [
    {
      name: spacePromptName(space.id),
      description: `The compiled prompt of the space "${space.name}": system prompt, enabled skills, how to write code and capability signatures`,
    },
    ...(space.prompts ?? []).map((p) => ({
      name: p.name,
      ...(p.description ? { description: p.description } : {}),
      arguments: (p.arguments ?? []).map((a) => ({ name: a.name, ...(a.description ? { description: a.description } : {}), required: a.required === true })),
    })),
  ]);
}

/**
 * `prompts/get`. Unknown prompts and missing or unknown arguments are JSON-RPC `InvalidParams` errors (prompts have no
 * error results) whose message names each argument and whose `data` is `{ code: 'INVALID_ARGUMENTS', errors }`.
 */
export async function getPrompt(connection: Connection, name: string, args: Record<string, string> = {}): Promise<GetPromptResult> {
  for (const space of connection.state.spaces) {
    if (name === spacePromptName(space.id)) {
      const text = compiledPrompt(space, await connection.catalog(space));
      return { description: `Compiled prompt of the space "${space.name}"`, messages: [{ role: 'user', content: { type: 'text', text } }] };
    }
    const template = space.prompts?.find((p) => p.name === name);
    if (template) {
      return {
        ...(template.description ? { description: template.description } : {}),
        messages: [{ role: 'user', content: { type: 'text', text: fillTemplate(template, args) } }],
      };
    }
  }
  throw new McpError(ErrorCode.InvalidParams, `No prompt "${name}"`, { code: 'PROMPT_NOT_FOUND', name });
}

/** `template` filled from `args` (see {@link fillPlaceholders}) after checking them against its arguments. */
function fillTemplate(template: PromptTemplate, args: Record<string, string>): string {
  const declared = new Map((template.arguments ?? []).map((a) => [a.name, a]));
  const issues: ArgumentIssue[] = [
    ...[...declared.values()].filter((a) => a.required && args[a.name] === undefined).map((a) => ({ field: a.name, problem: 'is required' })),
    ...Object.keys(args)
      .filter((key) => !declared.has(key))
      .map((key) => ({ field: key, problem: 'is not a known argument' })),
  ];
  if (issues.length > 0) {
    const error = invalidArguments(`prompt ${template.name}`, issues);
    throw new McpError(ErrorCode.InvalidParams, error.message, { code: error.code, ...error.data });
  }
  return fillPlaceholders(template.template, template.name, args, new Set(declared.keys()));
}

/**
 * The one template rule of prompts and prompt tools: `{arg}` becomes the argument's value (a string as is, anything
 * else as JSON; a declared argument left out becomes empty) and `{name}` the prompt's or tool's `name` unless an
 * argument is called `name`; any other `{…}` stays as written.
 */
export function fillPlaceholders(text: string, name: string, args: Readonly<Record<string, unknown>>, declared: ReadonlySet<string>): string {
  return text.replace(/\{([A-Za-z_][\w-]*)\}/g, (whole, key: string) => {
    const value = Object.hasOwn(args, key) ? args[key] : undefined;
    if (value !== undefined) return typeof value === 'string' ? value : JSON.stringify(value);
    if (declared.has(key)) return '';
    return key === 'name' ? name : whole;
  });
}
