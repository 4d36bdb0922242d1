import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { ObjectSchema } from '@agent-spaces/capabilities';

/** One failed constraint: JSON pointer into the params (`''` is the params object itself) and ajv's message. */
export interface ParamIssue {
  path: string;
  message: string;
}

/** A compiled params check: `undefined` when the params are valid, else the issues. */
export type ParamsCheck = (params: unknown) => ParamIssue[] | undefined;

const AJV_OPTIONS: Options = { strict: false, allErrors: true, logger: false };
const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\//;
const addFormats = formats.default;

/**
 * Compiles params schemas with one ajv instance per draft (draft-07, the default, and 2020-12 chosen by `$schema`),
 * each created on first need and owned by one bridge.
 */
export class SchemaCompiler {
  #draft7: Ajv | undefined;
  #draft2020: Ajv2020 | undefined;

  /** Compiles `schema`; throws ajv's error when the schema itself is invalid. */
  compile(schema: ObjectSchema): ParamsCheck {
    const validate = this.#ajvFor(schema).compile(schema);
    return (params) => (validate(params) ? undefined : toIssues(validate));
  }

  #ajvFor(schema: ObjectSchema): Ajv | Ajv2020 {
    if (typeof schema.$schema === 'string' && DRAFT_2020.test(schema.$schema)) {
      return (this.#draft2020 ??= withFormats(new Ajv2020(AJV_OPTIONS)));
    }
    return (this.#draft7 ??= withFormats(new Ajv(AJV_OPTIONS)));
  }
}

function withFormats<T extends Ajv | Ajv2020>(ajv: T): T {
  addFormats(ajv);
  return ajv;
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

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

const MAX_PARAMS_DEPTH = 100;

/**
 * A private copy of call params (`structuredClone`: getters run once, Proxies and functions are refused), so what
 * the policy checked is what the executor gets. Refuses `__proto__` keys, cycles and nesting deeper than 100.
 */
export function snapshotParams(raw: unknown): { ok: true; value: unknown } | { ok: false; issue: ParamIssue } {
  let value: unknown;
  try {
    value = structuredClone(raw);
  } catch (error) {
    return { ok: false, issue: { path: '', message: `must be plain data (${(error as Error).name})` } };
  }
  const problem = findUnsafe(value, '', new Set(), 0);
  return problem ? { ok: false, issue: problem } : { ok: true, value };
}

function findUnsafe(value: unknown, path: string, ancestors: Set<object>, depth: number): ParamIssue | undefined {
  if (typeof value !== 'object' || value === null) return undefined;
  if (depth > MAX_PARAMS_DEPTH) return { path, message: `nests deeper than ${MAX_PARAMS_DEPTH} levels` };
  if (ancestors.has(value)) return { path, message: 'must not contain itself' };
  ancestors.add(value);
  for (const key of Object.keys(value)) {
    const at = `${path}/${escapePointer(key)}`;
    if (key === '__proto__') return { path: at, message: 'the key "__proto__" is not allowed' };
    const problem = findUnsafe((value as Record<string, unknown>)[key], at, ancestors, depth + 1);
    if (problem) return problem;
  }
  ancestors.delete(value);
  return undefined;
}
