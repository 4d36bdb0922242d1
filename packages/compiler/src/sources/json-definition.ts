/**
 * Turns a parsed JSON definition into capability IR, checking every field and reporting problems with the JSON
 * pointer of the field. Two formats: the capability format (`{ name, functions: [...], config }`) and one
 * OpenAI-style tool (`{ name, description, parameters }`, optionally wrapped in `{ type: 'function', function }`).
 */
import {
  RATE_PERIODS,
  isRatePeriod,
  isRecord,
  type CapabilityConfig,
  type CapabilityIR,
  type Diagnostic,
  type ExecutorSpec,
  type FunctionIR,
  type RateLimit,
} from '@agent-spaces/capabilities';
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

/** Collects the `INVALID_DEFINITION` diagnostics of one file while its fields are read. */
class Checker {
  readonly diagnostics: Diagnostic[] = [];
  constructor(readonly file: string) {}

  /** Records that the field at `pointer` `must be ...`: the message is prefixed with the field's name. */
  error(pointer: string, mustBe: string): undefined {
    const field = pointer.slice(pointer.lastIndexOf('/') + 1);
    const message = `${/^\d+$/.test(field) ? `item ${field}` : field || 'the definition'} ${mustBe}`;
    this.diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'error', file: this.file, pointer, message });
    return undefined;
  }

  warn(pointer: string, message: string): void {
    this.diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'warning', file: this.file, pointer, message });
  }

  get failed(): boolean {
    return this.diagnostics.some((d) => d.severity === 'error');
  }

  optionalString(object: Json, key: string, pointer: string): string | undefined {
    const value = object[key];
    if (value === undefined || typeof value === 'string') return value;
    return this.error(`${pointer}/${key}`, 'must be a string');
  }

  optionalBoolean(object: Json, key: string, pointer: string): boolean | undefined {
    const value = object[key];
    if (value === undefined || typeof value === 'boolean') return value;
    return this.error(`${pointer}/${key}`, 'must be true or false');
  }

  name(object: Json, pointer: string): string | undefined {
    const value = object.name;
    if (typeof value !== 'string' || splitWords(value).length === 0) {
      return this.error(`${pointer}/name`, 'must be a string with letters or digits');
    }
    return value;
  }
}

function readFunction(tool: Json, pointer: string, check: Checker): FunctionIR | undefined {
  const name = check.name(tool, pointer);
  const description = check.optionalString(tool, 'description', pointer);
  const requiresApproval = check.optionalBoolean(tool, 'requiresApproval', pointer);
  const approvalMessage = check.optionalString(tool, 'approvalMessage', pointer);
  const parameters = normalizeParameters(tool.parameters);
  if (!parameters.ok) check.error(`${pointer}/parameters`, parameters.mustBe);
  const returns = tool.returns;
  if (returns !== undefined && !isRecord(returns) && typeof returns !== 'boolean') {
    check.error(`${pointer}/returns`, 'must be a JSON Schema (an object or a boolean)');
  }
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

function readRateLimit(value: unknown, pointer: string, check: Checker): RateLimit | undefined {
  if (!isRecord(value)) return check.error(pointer, 'must be an object { requests, period }');
  const { requests, period } = value;
  if (typeof requests !== 'number' || !Number.isInteger(requests) || requests < 1) {
    check.error(`${pointer}/requests`, 'must be a positive integer');
  }
  const periodOk = isRatePeriod(period);
  if (!periodOk) check.error(`${pointer}/period`, `must be one of ${RATE_PERIODS.join(', ')} or a positive number`);
  return periodOk && typeof requests === 'number' ? { requests, period } : undefined;
}

function readConfig(value: unknown, check: Checker): CapabilityConfig {
  if (value === undefined) return {};
  if (!isRecord(value)) return check.error('/config', 'must be an object') ?? {};
  for (const key of Object.keys(value)) {
    if (key !== 'requiresApproval' && key !== 'rateLimit') check.warn(`/config/${key}`, `config key "${key}" is unknown (known: requiresApproval, rateLimit)`);
  }
  const requiresApproval = check.optionalBoolean(value, 'requiresApproval', '/config');
  const rateLimit = value.rateLimit === undefined ? undefined : readRateLimit(value.rateLimit, '/config/rateLimit', check);
  return { ...(requiresApproval !== undefined ? { requiresApproval } : {}), ...(rateLimit ? { rateLimit } : {}) };
}

function readExecutor(value: unknown, check: Checker): JsonExecutor | undefined {
  if (value === undefined) return { kind: 'runtime' };
  if (!isRecord(value)) return check.error('/executor', 'must be an object with a kind (module, http or runtime)');
  switch (value.kind) {
    case 'runtime':
      return { kind: 'runtime' };
    case 'module': {
      if (typeof value.module !== 'string' || value.module === '') return check.error('/executor/module', 'must be a path relative to the JSON file');
      return { kind: 'module', module: value.module };
    }
    case 'http': {
      const url = typeof value.url === 'string' && URL.canParse(value.url) ? new URL(value.url) : undefined;
      if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return check.error('/executor/url', 'must be an http:// or https:// URL');
      const headers = value.headers;
      if (headers !== undefined && !(isRecord(headers) && Object.values(headers).every((h) => typeof h === 'string'))) {
        return check.error('/executor/headers', 'must be an object of string values');
      }
      return { kind: 'http', url: value.url as string, ...(headers ? { headers: headers as Record<string, string> } : {}) };
    }
    default:
      return check.error('/executor/kind', 'must be "module", "http" or "runtime"');
  }
}

/** IR executor of a JSON executor: a handler module is bundled into the output as `host.mjs`. */
function outputExecutor(executor: JsonExecutor): ExecutorSpec {
  return executor.kind === 'module' ? { kind: 'module', module: 'host.mjs' } : executor;
}

/** Reads a parsed JSON definition in either format; `value` is whatever `JSON.parse` returned. */
export function readJsonDefinition(value: unknown, context: JsonDefinitionContext): JsonDefinitionResult {
  const check = new Checker(context.file);
  if (!isRecord(value)) {
    check.error('', 'must be a JSON object');
    return { diagnostics: check.diagnostics };
  }
  const version = check.optionalString(value, 'version', '');
  const config = readConfig(value.config, check);
  const executor = readExecutor(value.executor, check);
  const source = { kind: 'json' as const, file: context.file };
  let capability: Omit<CapabilityIR, 'executor'> | undefined;
  if (value.functions !== undefined || !('parameters' in value || 'function' in value)) {
    const name = check.name(value, '');
    const description = check.optionalString(value, 'description', '');
    if (!Array.isArray(value.functions)) {
      check.error('/functions', 'must be an array of functions (or use the single-tool format { name, description, parameters })');
    }
    const functions = (Array.isArray(value.functions) ? value.functions : []).map((tool: unknown, index) =>
      isRecord(tool) ? readFunction(tool, `/functions/${index}`, check) : check.error(`/functions/${index}`, 'must be an object'),
    );
    if (name !== undefined && functions.every((fn) => fn !== undefined)) {
      const base = { id: context.id, exportName: identifier(name), sourceName: name, version: version ?? DEFAULT_VERSION };
      capability = { ...base, ...(description !== undefined ? { description } : {}), source, functions, config };
    }
  } else {
    const wrapped = value.type === 'function' && 'function' in value;
    const tool = wrapped ? value.function : value;
    const fn = isRecord(tool) ? readFunction(tool, wrapped ? '/function' : '', check) : check.error('/function', 'must be an object');
    if (fn) {
      const base = { id: context.id, exportName: identifier(context.baseName), sourceName: context.baseName };
      const description = fn.description !== undefined ? { description: fn.description } : {};
      capability = { ...base, ...description, version: version ?? DEFAULT_VERSION, source, functions: [fn], config };
    }
  }
  if (check.failed || !capability || !executor) return { diagnostics: check.diagnostics };
  return { capability: { ...capability, executor: outputExecutor(executor) }, executor, diagnostics: check.diagnostics };
}
