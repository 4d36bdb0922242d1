import { createRequire } from 'node:module';
import { isProxy } from 'node:util/types';
import type { Ajv, ErrorObject, Options, ValidateFunction } from 'ajv';
import type { Ajv2020 } from 'ajv/dist/2020.js';
import { escapePointer, isPlainObject, type ObjectSchema } from '@agent-spaces/capabilities';
import { locateSchemaProblem, type SchemaProblem } from './schema-problem.js';

/** One failed constraint: JSON pointer into the params (`''` is the params object itself) and ajv's message. */
export interface ParamIssue {
  path: string;
  message: string;
}

/** A compiled params check: `undefined` when the params are valid, else the issues. */
export type ParamsCheck = (params: unknown) => ParamIssue[] | undefined;

// `addUsedSchema: false`: the instances are shared by every bridge of the process, so a schema's `$id` must not
// stay registered (two capabilities may use the same one). `validateSchema: false`: ajv still refuses, when compiling,
// a keyword whose value has the wrong type, an unknown type, a bad pattern or a missing $ref; checking every schema
// against the draft's meta-schema as well would compile that meta-schema first (≈ 20 ms and 5 MiB of each process).
const AJV_OPTIONS: Options = { strict: false, allErrors: true, logger: false, addUsedSchema: false, validateSchema: false };
const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\//;
/** Compiled schemas kept by schema text; past this many the cache (and ajv's) starts over. */
const MAX_CACHED = 512;

// ajv is imported on the first compile (most processes that load the bridge never validate a call): one instance per
// draft, each made when first needed and shared by the whole process.
let draft7: Promise<Ajv> | undefined;
let draft2020: Promise<Ajv2020> | undefined;
const compiled = new Map<string, ValidateFunction>();

/**
 * The params check of `schema` (see {@link compileSchema}): `undefined` for valid params, else the issues.
 */
export async function compileParamsCheck(schema: ObjectSchema): Promise<ParamsCheck> {
  return paramsCheck(await compileSchema(schema));
}

/** The params check of a compiled validator (one from {@link compileSchema} or from a build's validators file). */
export function paramsCheck(validate: ValidateFunction): ParamsCheck {
  return (params) => (validate(params) ? undefined : toIssues(validate));
}

/**
 * Compiles the params validators of functions into a validators file ({@link loadValidatorsCompiler}); `onProblem`
 * hears of each schema ajv cannot compile, naming the function and the subschema at fault.
 */
export type ValidatorsCompiler = (functions: readonly { name: string; parameters: ObjectSchema }[], onProblem?: (problem: SchemaProblem) => void) => string;

/**
 * Loads ajv once and returns the compiler of validators files: the source of a CommonJS module exporting one
 * validator per function name (ajv's standalone code, with the same options as {@link compileSchema}). The compiler
 * writes one per capability, so that a process validates its first call without loading ajv (≈ 45 ms). A schema ajv
 * cannot compile is left out (its function compiles, and fails, at its first call) and reported to `onProblem`.
 */
export async function loadValidatorsCompiler(): Promise<ValidatorsCompiler> {
  const [{ Ajv, _ }, { Ajv2020 }, add, { default: standaloneCode }] = await Promise.all([
    import('ajv'),
    import('ajv/dist/2020.js'),
    addFormats(),
    import('ajv/dist/standalone/index.js'),
  ]);
  const options: Options = { ...AJV_OPTIONS, code: { source: true, formats: _`require("ajv-formats/dist/formats").fullFormats` } };
  return (functions, onProblem) => {
    const drafts = [add(new Ajv(options)), add(new Ajv2020(options))];
    const refs: Record<string, string>[] = [{}, {}];
    for (const [index, fn] of functions.entries()) {
      const draft = isDraft2020(fn.parameters) ? 1 : 0;
      const key = `params${index}`;
      const ajv = drafts[draft]!;
      try {
        ajv.addSchema(fn.parameters, key).getSchema(key);
        refs[draft]![fn.name] = key;
      } catch (error) {
        ajv.removeSchema(key); // left out: see above
        onProblem?.({ function: fn.name, ...locateSchemaProblem(fn.parameters, error, (schema) => ajv.compile(schema)) });
      }
    }
    const parts = drafts.flatMap((ajv, draft) => (Object.keys(refs[draft]!).length === 0 ? [] : [standaloneCode.default(ajv, refs[draft])]));
    return parts.map((code) => `(function (exports) {\n${code}\n})(exports);\n`).join('');
  };
}

const requireFromBridge = createRequire(import.meta.url);

/**
 * Evaluates a build's validators file ({@link loadValidatorsCompiler}) with the bridge's own `require`, so the ajv runtime
 * helpers it needs resolve from here whatever the project installed. Returns the validators by function name.
 */
export function loadValidators(source: string): ReadonlyMap<string, ValidateFunction> {
  const module = { exports: {} as Record<string, ValidateFunction> };
  new Function('exports', 'require', 'module', source)(module.exports, requireFromBridge, module);
  return new Map(Object.entries(module.exports).filter(([, validate]) => typeof validate === 'function'));
}

/**
 * `schema` compiled with the process's ajv (draft-07 by default, 2020-12 when `$schema` says so), cached by schema
 * text, so a schema is compiled once however many spaces (or MCP server connections) use it. Rejects with ajv's error
 * when the schema itself is invalid.
 */
export async function compileSchema(schema: ObjectSchema): Promise<ValidateFunction> {
  const key = JSON.stringify(schema);
  const cached = compiled.get(key);
  if (cached) return cached;
  const ajv = await (isDraft2020(schema) ? loadDraft2020() : loadDraft7());
  if (compiled.size >= MAX_CACHED) {
    compiled.clear();
    for (const instance of await Promise.all([draft7, draft2020])) instance?.removeSchema();
  }
  const validate = ajv.compile(schema);
  compiled.set(key, validate);
  return validate;
}

function isDraft2020(schema: ObjectSchema): boolean {
  return typeof schema.$schema === 'string' && DRAFT_2020.test(schema.$schema);
}

function loadDraft7(): Promise<Ajv> {
  return (draft7 ??= Promise.all([import('ajv'), addFormats()])
    .then(([{ Ajv }, add]) => add(new Ajv(AJV_OPTIONS)))
    .catch(forget(() => (draft7 = undefined))));
}

function loadDraft2020(): Promise<Ajv2020> {
  return (draft2020 ??= Promise.all([import('ajv/dist/2020.js'), addFormats()])
    .then(([{ Ajv2020 }, add]) => add(new Ajv2020(AJV_OPTIONS)))
    .catch(forget(() => (draft2020 = undefined))));
}

async function addFormats(): Promise<<T extends Ajv | Ajv2020>(ajv: T) => T> {
  const { default: formats } = await import('ajv-formats');
  return (ajv) => formats.default(ajv) as typeof ajv;
}

/** A failed import is tried again by the next compile. */
function forget(reset: () => void): (error: unknown) => never {
  return (error) => {
    reset();
    throw error;
  };
}

function toIssues(validate: ValidateFunction): ParamIssue[] {
  return (validate.errors ?? []).map(toIssue);
}

function toIssue(error: ErrorObject): ParamIssue {
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown; allowedValues?: unknown };
  const property = params.missingProperty ?? params.additionalProperty;
  const path = typeof property === 'string' ? `${error.instancePath}/${escapePointer(property)}` : error.instancePath;
  const message = error.message ?? 'is invalid';
  return {
    path,
    message: Array.isArray(params.allowedValues)
      ? `${message}: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
      : message,
  };
}

const MAX_PARAMS_DEPTH = 100;

/**
 * A private copy of call params, so what the policy checked is what the executor gets: plain objects and arrays are
 * copied member by member (a getter runs once), other cloneable values (`Date`, `Map`, typed arrays, …) go through
 * `structuredClone`, shared members stay shared. Refuses Proxies, functions, symbols, `__proto__` keys, cycles and
 * nesting deeper than 100, naming the path.
 */
export function snapshotParams(raw: unknown): { ok: true; value: unknown } | { ok: false; issue: ParamIssue } {
  const walk: Walk = { ancestors: [], keys: [], copies: undefined };
  try {
    return { ok: true, value: copyData(raw, walk) };
  } catch (error) {
    if (!(error instanceof Refusal)) throw error;
    return { ok: false, issue: { path: error.path, message: error.message } };
  }
}

/** Where {@link copyData} is: the objects and keys from the root down, and the copies made so far (once one is needed). */
interface Walk {
  ancestors: object[];
  keys: (string | number)[];
  copies: Map<object, unknown> | undefined;
}

/** Thrown inside {@link copyData}: the params are refused. */
class Refusal {
  constructor(
    readonly path: string,
    readonly message: string,
  ) {}
}

function copyData(value: unknown, walk: Walk): unknown {
  if (typeof value === 'function' || typeof value === 'symbol') throw refusal(walk, `must be plain data, not a ${typeof value}`);
  if (typeof value !== 'object' || value === null) return value;
  if (isProxy(value)) throw refusal(walk, 'must be plain data, not a Proxy');
  const known = walk.copies?.get(value);
  if (known !== undefined) return known;
  if (walk.ancestors.includes(value)) throw refusal(walk, 'must not contain itself');
  if (walk.ancestors.length > MAX_PARAMS_DEPTH) throw refusal(walk, `nests deeper than ${MAX_PARAMS_DEPTH} levels`);
  const proto: unknown = Object.getPrototypeOf(value);
  let copy: unknown;
  if (proto === Object.prototype || proto === null) {
    walk.ancestors.push(value);
    const object: Record<string, unknown> = {};
    for (const key of Object.keys(value)) {
      walk.keys.push(key);
      if (key === '__proto__') throw refusal(walk, 'the key "__proto__" is not allowed');
      object[key] = copyData((value as Record<string, unknown>)[key], walk);
      walk.keys.pop();
    }
    walk.ancestors.pop();
    copy = object;
  } else if (proto === Array.prototype && Array.isArray(value)) {
    walk.ancestors.push(value);
    const array: unknown[] = new Array(value.length);
    for (let i = 0; i < value.length; i++) {
      walk.keys.push(i);
      array[i] = copyData(value[i], walk);
      walk.keys.pop();
    }
    walk.ancestors.pop();
    copy = array;
  } else {
    try {
      copy = structuredClone(value);
    } catch (error) {
      throw refusal(walk, `must be plain data (${error instanceof Error ? error.name : 'not cloneable'})`);
    }
    // A class instance comes back as a plain object: its keys are checked (and copied again) like any other.
    if (isPlainObject(copy) || Array.isArray(copy)) copy = copyData(copy, walk);
  }
  if (walk.ancestors.length > 0) (walk.copies ??= new Map()).set(value, copy);
  return copy;
}


function refusal(walk: Walk, message: string): Refusal {
  return new Refusal(walk.keys.map((key) => `/${typeof key === 'number' ? key : escapePointer(key)}`).join(''), message);
}
