import { readFile } from 'node:fs/promises';
import { isAbsolute, relative, resolve } from 'node:path';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { SpaceDefinition, UserTool } from '../config.js';
import { privacyOf } from '../privacy/index.js';
import { formatLog, toolError, toolResult } from '../results.js';
import type { ToolSpec } from './types.js';

/** A `code` value naming a file rather than holding a script: one token ending in a script extension. */
const CODE_FILE = /^\S+\.(?:m?ts|m?js)$/;
/** Starts every name the input's type declares, so none clashes with the script's own. */
const INPUT_PREFIX = '__';

/**
 * The MCP tool of a user-defined tool of `space`: arguments are validated against `tool.parameters`, then `tool.code`
 * (a file read on every call, relative to `baseDir`, or the inline script) runs in the space's sandbox with the
 * arguments as the global `input` — typed from the schema, so the script is typechecked against it. The script's
 * result is the tool's result (a string as is, anything else as JSON, an object also as `structuredContent`); a failed
 * run is an error result with its logs. It has no output schema and no annotations: the config says neither what the
 * script returns nor what it does (the protocol's defaults assume the worst).
 */
export function userToolSpec(space: SpaceDefinition, tool: UserTool, baseDir: string): ToolSpec {
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
    async handler(args, { connection, runOptions }) {
      const privacy = await privacyOf(connection, space);
      return privacy.answer(tool.name, async () => {
        const code = await loadCode(tool, baseDir);
        const sandbox = await connection.space(space);
        const run = await sandbox.run(await withInput(tool, code, privacy.args(args)), privacy.runOptions(runOptions));
        if (!run.ok) return toolError(run.error, { logs: run.logs.map(formatLog) });
        return toolResult(run.result ?? null);
      });
    },
  };
}

/**
 * Declares `const input: __Input = <args>;` and the type `__Input` of `schema` (by the compiler's converter, as
 * capability parameters are typed) right after the script's leading imports (a script with a top-level `return` must
 * start with them), on the same line, so line numbers of diagnostics stay those of the script. What the type cannot
 * express is `unknown`: the arguments were validated against the schema anyway.
 */
async function withInput(tool: UserTool, code: string, args: Record<string, unknown>): Promise<string> {
  const [{ default: typescript }, { schemaDeclarations }] = await Promise.all([import('typescript'), import('@agent-spaces/compiler')]);
  const source = typescript.createSourceFile('tool.ts', code, typescript.ScriptTarget.Latest, false, typescript.ScriptKind.TS);
  const imports = source.statements.findIndex((s) => !typescript.isImportDeclaration(s));
  const last = source.statements[(imports === -1 ? source.statements.length : imports) - 1];
  const at = last ? last.end : 0;
  const input = schemaDeclarations(tool.parameters, 'Input', INPUT_PREFIX, `tool ${tool.name}`);
  return `${code.slice(0, at)};${input.text} const input: ${input.type} = ${JSON.stringify(args)};${code.slice(at)}`;
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
