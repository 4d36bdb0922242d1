import { basename, extname, join } from 'node:path';
import { isRecord, type CapabilityIR, type CompileErrorCode, type Diagnostic, type FunctionIR, type PackageDependency } from '@agent-spaces/capabilities';
import { bundleModule, formatBuildError } from '../bundle.js';
import { identifier, kebabCase } from '../ir/names.js';
import { loadDefinitions } from './define-tool/load.js';
import { extractDefinitionTypes, registerTypeSource, type DefinitionTypes } from './define-tool/return-types.js';
import { paramsToSchema, pointerJoin, readConfig, type Report } from './define-tool/shorthand.js';
import type { SourceReader, SourceResult } from './types.js';

const DEFINITION_KEYS = new Set(['name', 'description', 'version', 'functions', 'config']);
const FUNCTION_KEYS = new Set(['description', 'parameters', 'returns', 'handler', 'requiresApproval', 'approvalMessage']);
const DEFAULT_VERSION = '0.0.0';

/** Records one diagnostic of the file being read. */
export type Diagnose = (code: CompileErrorCode, message: string, pointer?: string, severity?: Diagnostic['severity']) => void;

/** A `defineTool()` value found among a module's exports. */
export interface ExportedDefinition {
  /** The export binding (`trainSchedule`, `default`). */
  exportName: string;
  value: Record<string, unknown>;
}

/**
 * Reads a TypeScript/JavaScript file exporting `defineTool({ ... })` values. The file is bundled with esbuild
 * (the bundle becomes each capability's `host.mjs`) and imported in a child process with a time limit to read the
 * definitions (`SOURCE_UNREADABLE` when importing throws or ends the process, `TIMEOUT` when it hangs); return types
 * come from the TypeScript compiler API. Never throws: problems are diagnostics.
 */
export const readDefineToolSource: SourceReader = async (file, context) => {
  const result: SourceResult = { capabilities: [], diagnostics: [], inputs: [file], hostModules: {} };
  const relativeFile = context.relative(file);
  const diagnostic: Diagnose = (code, message, pointer, severity = 'error') =>
    result.diagnostics.push({ code, severity, file: relativeFile, message, ...(pointer ? { pointer } : {}) });

  // Registered before bundling so that files read concurrently share one TypeScript program. A failure here
  // resurfaces (and is reported) when the types are read.
  const typesReady = registerTypeSource(file).catch(() => undefined);
  let code: string;
  let dependencies: PackageDependency[];
  try {
    const bundle = await bundleModule(file, { packages: 'bundle' });
    code = bundle.code;
    dependencies = bundle.dependencies;
    result.inputs = bundle.inputs.includes(file) ? bundle.inputs : [file, ...bundle.inputs];
  } catch (error) {
    diagnostic('SOURCE_UNREADABLE', `cannot bundle ${relativeFile}: ${formatBuildError(error)}`);
    return result;
  }
  const loaded = await loadDefinitions(code, join(context.outDir, '.tmp'), relativeFile, context.loadTimeoutMs);
  if (!loaded.ok) {
    diagnostic(loaded.code, loaded.message);
    return result;
  }
  const definitions = findDefinitions(loaded.namespace);
  if (definitions.length === 0) {
    diagnostic('INVALID_DEFINITION', `${relativeFile} exports no defineTool({ name, functions }) value`);
    return result;
  }
  await typesReady;
  const types = await readTypes(file, definitions, diagnostic);
  const ids = moduleIds(file, definitions);
  for (const [index, definition] of definitions.entries()) {
    const prefix = definitions.length > 1 ? `${definition.exportName}: ` : '';
    const diagnose: Diagnose = (code, message, pointer, severity) => diagnostic(code, prefix + message, pointer, severity);
    const capability = toCapability(definition, ids[index]!, relativeFile, types.get(definition.exportName), diagnose);
    result.capabilities.push(dependencies.length > 0 ? { ...capability, dependencies } : capability);
    result.hostModules[capability.id] = code;
  }
  return result;
};

/** Exports that look like `defineTool()` values (an object with a string `name` and a `functions` object). */
function findDefinitions(namespace: Record<string, unknown>): ExportedDefinition[] {
  const seen = new Set<unknown>();
  const found: ExportedDefinition[] = [];
  for (const [exportName, value] of Object.entries(namespace)) {
    if (!isRecord(value) || typeof value.name !== 'string' || !isRecord(value.functions) || seen.has(value)) continue;
    seen.add(value);
    found.push({ exportName, value });
  }
  return found;
}

async function readTypes(
  file: string,
  definitions: ExportedDefinition[],
  diagnostic: Diagnose,
): Promise<Map<string, DefinitionTypes>> {
  const requests = definitions.map(({ exportName, value }) => {
    const functions = Object.entries(value.functions as Record<string, unknown>);
    return {
      exportName,
      functions: functions.map(([key]) => key),
      withReturns: functions.filter(([, fn]) => isRecord(fn) && fn.returns !== undefined).map(([key]) => key),
    };
  });
  try {
    return await extractDefinitionTypes(file, requests);
  } catch (error) {
    diagnostic('TYPE_EXTRACTION_FAILED', `reading return types failed: ${error instanceof Error ? error.message : String(error)}`);
    return new Map();
  }
}

/**
 * Module ids: the file's basename in kebab-case; with several definitions, `<basename>-<kebab name>` unless the
 * basename already is the definition's kebab name.
 */
function moduleIds(file: string, definitions: ExportedDefinition[]): string[] {
  const base = kebabCase(basename(file, extname(file)));
  if (definitions.length === 1) return [base];
  return definitions.map(({ value }) => {
    const name = kebabCase(value.name as string);
    return name === base ? base : `${base}-${name}`;
  });
}

/**
 * The IR of one `defineTool()` value; `types` (from the TypeScript compiler) give the return types, which are
 * `unknown` without them. The executor is the value's export in the bundled `host.mjs`.
 */
export function toCapability(
  { exportName, value }: ExportedDefinition,
  id: string,
  file: string,
  types: DefinitionTypes | undefined,
  diagnose: Diagnose,
): CapabilityIR {
  const report: Report = (code, pointer, message) => diagnose(code, message, pointer);
  for (const key of Object.keys(value)) {
    if (!DEFINITION_KEYS.has(key)) report('INVALID_DEFINITION', pointerJoin('', key), `unknown key "${key}" (known: ${[...DEFINITION_KEYS].join(', ')})`);
  }
  const name = value.name as string;
  if (name.trim() === '') report('INVALID_DEFINITION', '/name', 'name must not be empty');
  const description = optionalString(value, 'description', '', report);
  const version = optionalString(value, 'version', '', report) ?? DEFAULT_VERSION;
  const functions = Object.entries(value.functions as Record<string, unknown>).map(([key, fn]) =>
    toFunction(key, fn, types, report),
  );
  if (functions.length === 0) report('INVALID_DEFINITION', '/functions', 'functions must define at least one function');
  for (const problem of types?.problems ?? []) {
    diagnose('TYPE_EXTRACTION_FAILED', problem.message, problem.pointer, problem.severity);
  }
  const declarations = types?.declarations.join('\n\n');
  return {
    id,
    exportName: identifier(name),
    sourceName: name,
    ...(description === undefined ? {} : { description }),
    version,
    source: { kind: 'define-tool', file },
    functions: functions.filter((fn): fn is FunctionIR => fn !== undefined),
    config: readConfig(value.config, '/config', report),
    executor: { kind: 'module', module: 'host.mjs', export: exportName },
    ...(declarations ? { declarations } : {}),
  };
}

function toFunction(key: string, fn: unknown, types: DefinitionTypes | undefined, report: Report): FunctionIR | undefined {
  const pointer = pointerJoin('/functions', key);
  if (!isRecord(fn)) {
    report('INVALID_DEFINITION', pointer, `function "${key}" must be an object with a handler`);
    return undefined;
  }
  for (const field of Object.keys(fn)) {
    if (!FUNCTION_KEYS.has(field)) {
      report('INVALID_DEFINITION', pointerJoin(pointer, field), `unknown key "${field}" (known: ${[...FUNCTION_KEYS].join(', ')})`);
    }
  }
  if (typeof fn.handler !== 'function') report('INVALID_DEFINITION', pointerJoin(pointer, 'handler'), `${key}: handler must be a function`);
  if (fn.approvalMessage !== undefined && typeof fn.approvalMessage !== 'function') {
    report('INVALID_DEFINITION', pointerJoin(pointer, 'approvalMessage'), `${key}: approvalMessage must be a function (params) => string`);
  }
  if (fn.requiresApproval !== undefined && typeof fn.requiresApproval !== 'boolean') {
    report('INVALID_DEFINITION', pointerJoin(pointer, 'requiresApproval'), `${key}: requiresApproval must be true or false`);
  }
  const description = optionalString(fn, 'description', pointer, report);
  return {
    name: identifier(key),
    sourceName: key,
    ...(description === undefined ? {} : { description }),
    parameters: paramsToSchema(fn.parameters, pointerJoin(pointer, 'parameters'), report),
    returnsType: types?.returnsTypes.get(key) ?? 'unknown',
    ...(typeof fn.requiresApproval === 'boolean' ? { requiresApproval: fn.requiresApproval } : {}),
    ...(typeof fn.approvalMessage === 'function' ? { hostApprovalMessage: true } : {}),
    pointer,
  };
}

function optionalString(object: Record<string, unknown>, key: string, pointer: string, report: Report): string | undefined {
  const value = object[key];
  if (value === undefined || typeof value === 'string') return value;
  report('INVALID_DEFINITION', pointerJoin(pointer, key), `${key} must be a string`);
  return undefined;
}
