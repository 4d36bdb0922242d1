import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { AgentSpacesError, type JsonSchema } from '@agent-spaces/capabilities';
import type { SpaceDefinition, UserTool } from '../config.js';
import { formatLog, toolError, toolResult } from '../results.js';
import type { ToolSpec } from './types.js';

/** A `code` value naming a file rather than holding a script: one token ending in a script extension. */
const CODE_FILE = /^\S+\.(?:m?ts|m?js)$/;
const MAX_TYPE_DEPTH = 8;

/**
 * The MCP tool of a user-defined tool of `space`: arguments are validated against `tool.parameters`, then `tool.code`
 * (a file read on every call, relative to `baseDir`, or the inline script) runs in the space's sandbox with the
 * arguments as the global `input` — typed from the schema, so the script is typechecked against it. The script's
 * result is the tool's result (a string as is, anything else as JSON); a failed run is an error result with its logs.
 */
export function userToolSpec(space: SpaceDefinition, tool: UserTool, baseDir: string): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
    async handler(args, { connection, signal }) {
      const code = await loadCode(tool, baseDir);
      const sandbox = await connection.space(space);
      const run = await sandbox.run(await withInput(code, tool.parameters, args), { signal });
      if (!run.ok) return toolError(run.error, { logs: run.logs.map(formatLog) });
      return toolResult(run.result ?? null);
    },
  };
}

/**
 * Declares `const input: <type> = <args>;` right after the script's leading imports (a script with a top-level
 * `return` must start with them), on the same line, so line numbers of diagnostics stay those of the script.
 */
async function withInput(code: string, schema: JsonSchema, args: Record<string, unknown>): Promise<string> {
  const { default: typescript } = await import('typescript');
  const source = typescript.createSourceFile('tool.ts', code, typescript.ScriptTarget.Latest, false, typescript.ScriptKind.TS);
  const imports = source.statements.findIndex((s) => !typescript.isImportDeclaration(s));
  const last = source.statements[(imports === -1 ? source.statements.length : imports) - 1];
  const at = last ? last.end : 0;
  return `${code.slice(0, at)};const input: ${schemaType(schema, 0)} = ${JSON.stringify(args)};${code.slice(at)}`;
}

async function loadCode(tool: UserTool, baseDir: string): Promise<string> {
  if (!CODE_FILE.test(tool.code)) return tool.code;
  const file = isAbsolute(tool.code) ? tool.code : resolve(baseDir, tool.code);
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new AgentSpacesError(
      'SOURCE_NOT_FOUND',
      `Cannot read the code of tool ${tool.name}: ${relative(baseDir, file)} (${(error as NodeJS.ErrnoException).code ?? String(error)})`,
      { tool: tool.name, file },
    );
  }
}

/**
 * The TypeScript type of values matching `schema`. Every name and literal goes through `JSON.stringify`, so no schema
 * text can break out of the type; what it cannot express (references, deep nesting) is `unknown`.
 */
function schemaType(schema: JsonSchema | boolean | undefined, depth: number): string {
  if (schema === undefined || typeof schema === 'boolean' || depth > MAX_TYPE_DEPTH) return 'unknown';
  if ('const' in schema && schema.const !== undefined) return JSON.stringify(schema.const) ?? 'unknown';
  if ('enum' in schema && Array.isArray(schema.enum)) return schema.enum.map((v: unknown) => JSON.stringify(v) ?? 'unknown').join(' | ') || 'never';
  const union = 'anyOf' in schema ? schema.anyOf : 'oneOf' in schema ? schema.oneOf : undefined;
  if (Array.isArray(union)) return union.map((s) => `(${schemaType(s, depth + 1)})`).join(' | ') || 'unknown';
  switch (schema.type) {
    case 'string':
      return 'string';
    case 'number':
    case 'integer':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'null':
      return 'null';
    case 'array':
      return Array.isArray(schema.items) ? `[${schema.items.map((s) => schemaType(s, depth + 1)).join(', ')}]` : `Array<${schemaType(schema.items, depth + 1)}>`;
    case 'object': {
      const required = new Set(schema.required ?? []);
      const fields = Object.entries(schema.properties ?? {}).map(
        ([key, value]) => `${JSON.stringify(key)}${required.has(key) ? '' : '?'}: ${schemaType(value, depth + 1)};`,
      );
      if (schema.additionalProperties !== false) fields.push('[key: string]: unknown;');
      return `{ ${fields.join(' ')} }`;
    }
    default:
      return 'unknown';
  }
}
