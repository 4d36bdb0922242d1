/**
 * Turns a parsed JSON definition into capability IR: its shape is checked against the published schema, then names,
 * parameters schemas and URLs; every problem is reported with the JSON pointer of the field. Two formats: the capability format (`{ name, functions: [...], config }`) and one
 * OpenAI-style tool (`{ name, description, parameters }`, optionally wrapped in `{ type: 'function', function }`).
 */
import type { CapabilityConfig, CapabilityIR, Diagnostic, ExecutorSpec, FunctionIR } from '@agent-spaces/capabilities';
import { findSchemaProblems } from '../config/file-schemas.js';
import { identifier, splitWords } from '../ir/names.js';
import { normalizeParameters, normalizeReturns } from '../ir/normalize.js';

/** Where a JSON capability's calls go, as written in the file (`module` is relative to the JSON file). */
type JsonExecutor =
  | { kind: 'module'; module: string }
  | { kind: 'http'; url: string; headers?: Record<string, string> }
  | { kind: 'runtime' };

/** The IR of a JSON definition (executor still as written), or nothing when it has errors. */
export interface JsonDefinitionResult {
  capability?: CapabilityIR;
  executor?: JsonExecutor;
  diagnostics: Diagnostic[];
}

/** What the definition reader knows about the file. */
export interface JsonDefinitionContext {
  /** Path relative to the config folder, for diagnostics and `source.file`. */
  file: string;
  /** Module id (the file's basename in kebab-case). */
  id: string;
  /** The file's basename without extension, the export name of a single-tool file. */
  baseName: string;
}

type Json = Record<string, unknown>;

const DEFAULT_VERSION = '0.0.0';

/** Collects the `INVALID_DEFINITION` diagnostics of one file while its (schema-checked) fields are read. */
class Checker {
  readonly diagnostics: Diagnostic[] = [];
  constructor(readonly file: string) {}

  error(pointer: string, message: string): undefined {
    this.diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'error', file: this.file, pointer, message });
    return undefined;
  }

  warn(pointer: string, message: string): void {
    this.diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'warning', file: this.file, pointer, message });
  }

  get failed(): boolean {
    return this.diagnostics.some((d) => d.severity === 'error');
  }

  /** The name at `pointer` (a string, by the schema), or undefined when no identifier can be made of it. */
  name(value: string, pointer: string): string | undefined {
    return splitWords(value).length > 0 ? value : this.error(`${pointer}/name`, 'name must be a string with letters or digits');
  }
}

function readFunction(tool: Json, pointer: string, check: Checker): FunctionIR | undefined {
  const name = check.name(tool.name as string, pointer);
  const { description, requiresApproval, approvalMessage, returns } = tool as { description?: string; requiresApproval?: boolean; approvalMessage?: string; returns?: unknown };
  const parameters = normalizeParameters(tool.parameters);
  if (!parameters.ok) check.error(`${pointer}/parameters`, `parameters ${parameters.mustBe}`);
  if (name === undefined || !parameters.ok) return undefined;
  if (approvalMessage !== undefined) {
    const known = new Set(Object.keys(parameters.schema.properties ?? {}));
    for (const [, placeholder] of approvalMessage.matchAll(/\{([^{}\s]+)\}/g)) {
      if (!known.has(placeholder!)) check.warn(`${pointer}/approvalMessage`, `approvalMessage refers to {${placeholder}}, which is not a parameter of ${name}`);
    }
  }
  return {
    name: identifier(name),
    sourceName: name,
    ...(description !== undefined ? { description } : {}),
    parameters: parameters.schema,
    ...(returns !== undefined ? { returns: normalizeReturns(returns) } : {}),
    ...(requiresApproval !== undefined ? { requiresApproval } : {}),
    ...(approvalMessage !== undefined ? { approvalMessage } : {}),
    pointer,
  };
}

/** The executor as written (shape checked by the schema); an `http` URL must be http or https. */
function readExecutor(value: JsonExecutor | undefined, check: Checker): JsonExecutor | undefined {
  if (value === undefined) return { kind: 'runtime' };
  if (value.kind !== 'http') return value;
  const url = URL.canParse(value.url) ? new URL(value.url) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return check.error('/executor/url', 'executor.url must be an http:// or https:// URL');
  return value;
}

/** IR executor of a JSON executor: a handler module is bundled into the output as `host.mjs`. */
function outputExecutor(executor: JsonExecutor): ExecutorSpec {
  return executor.kind === 'module' ? { kind: 'module', module: 'host.mjs' } : executor;
}

/**
 * Reads a parsed JSON definition in either format; `value` is whatever `JSON.parse` returned. Its shape is checked
 * against the published schema (`capability-file.schema.json`: unknown keys are errors, with a "did you mean").
 */
export function readJsonDefinition(value: unknown, context: JsonDefinitionContext): JsonDefinitionResult {
  const check = new Checker(context.file);
  for (const problem of findSchemaProblems('capability', value)) check.error(problem.pointer, problem.message);
  if (check.failed) return { diagnostics: check.diagnostics };
  const file = value as Json & { version?: string; config?: CapabilityConfig; executor?: JsonExecutor };
  const version = file.version ?? DEFAULT_VERSION;
  const config = file.config ?? {};
  const executor = readExecutor(file.executor, check);
  const source = { kind: 'json' as const, file: context.file };
  let capability: Omit<CapabilityIR, 'executor'> | undefined;
  if (Array.isArray(file.functions)) {
    const name = check.name(file.name as string, '');
    const description = file.description as string | undefined;
    const functions = (file.functions as Json[]).map((tool, index) => readFunction(tool, `/functions/${index}`, check));
    if (name !== undefined && functions.every((fn) => fn !== undefined)) {
      const base = { id: context.id, exportName: identifier(name), sourceName: name, version };
      capability = { ...base, ...(description !== undefined ? { description } : {}), source, functions, config };
    }
  } else {
    const wrapped = 'function' in file;
    const fn = readFunction(wrapped ? (file.function as Json) : file, wrapped ? '/function' : '', check);
    if (fn) {
      const base = { id: context.id, exportName: identifier(context.baseName), sourceName: context.baseName };
      const description = fn.description !== undefined ? { description: fn.description } : {};
      capability = { ...base, ...description, version, source, functions: [fn], config };
    }
  }
  if (check.failed || !capability || !executor) return { diagnostics: check.diagnostics };
  return { capability: { ...capability, executor: outputExecutor(executor) }, executor, diagnostics: check.diagnostics };
}
