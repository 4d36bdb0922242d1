/**
 * The JSON Schemas `@agent-spaces/capabilities/schemas/` publishes for the files a project writes by hand, and the one
 * validator of them: ajv, required (and each schema compiled) the first time a file of that format is checked, its
 * raw errors turned into ours (`tools[0].requiresAproval is not a known key — did you mean "requiresApproval"?`).
 * The schemas are the one source of truth for shape; what a schema cannot say (URLs, globs, unique ids, fields that
 * exclude each other) stays with the code that reads each file.
 */
import { createRequire } from 'node:module';
import { closestNames } from '@agent-spaces/capabilities';
import type { Ajv, AnySchema, ErrorObject, ValidateFunction } from 'ajv';

/** The hand-written file formats that have a published schema, by the schema's file name. */
export const FILE_SCHEMAS = {
  /** A JSON capability file (docs/definition-formats.md, "JSON definitions"). */
  capability: 'capability-file.schema.json',
  /** `agent-spaces.config.json`, or the default export of `agent-spaces.config.ts`. */
  config: 'config.schema.json',
  /** An agent file: one `spaces[]` entry of the config in a file of its own. */
  agent: 'agent-file.schema.json',
} as const;

/** A file format with a published schema. */
export type FileFormat = keyof typeof FILE_SCHEMAS;

/** One way a value does not fit its format's schema. */
export interface SchemaProblem {
  /** The field, as a JSON pointer (`/functions/0/requiresAproval`; `''` for the whole file). */
  pointer: string;
  /** The field, as written in JavaScript (`functions[0].requiresAproval`; `''` for the whole file). */
  path: string;
  /** What is wrong, starting with the field (`functions[0].requiresAproval is not a known key — did you mean …`). */
  message: string;
}

/** The schema of `format` as published (`$id`, `definitions` …), read from the capabilities package. */
export function fileSchema(format: FileFormat): Record<string, unknown> {
  return load(`@agent-spaces/capabilities/schemas/${FILE_SCHEMAS[format]}`) as Record<string, unknown>;
}

/** What is wrong with `value` as a file of `format`, most useful first (unknown keys, then the shallowest); `[]` when it fits. */
export function findSchemaProblems(format: FileFormat, value: unknown): SchemaProblem[] {
  const validate = validator(format);
  if (validate(value)) return [];
  const problems = (validate.errors ?? []).filter(isReported).sort(byUsefulness).map(toProblem);
  return problems.filter((p, i) => problems.findIndex((q) => q.message === p.message) === i);
}

const require = createRequire(import.meta.url);
const load = (id: string): unknown => require(id);
let compiled: Record<FileFormat, ValidateFunction> | undefined;

/**
 * The validator of `format`. The build precompiles them all (`scripts/compile-schemas.mjs`, ajv's standalone code:
 * about 5 ms to load instead of 100 ms to compile on every CLI start); from the sources (unit tests) ajv compiles
 * them on the first call.
 */
function validator(format: FileFormat): ValidateFunction {
  if (!compiled) {
    try {
      compiled = load('@agent-spaces/compiler/schema-validators') as Record<FileFormat, ValidateFunction>;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw error;
      const ajv = createSchemaSet();
      const entries = (Object.keys(FILE_SCHEMAS) as FileFormat[]).map((f) => [f, ajv.getSchema(fileSchema(f).$id as string)!]);
      compiled = Object.fromEntries(entries) as Record<FileFormat, ValidateFunction>;
    }
  }
  return compiled[format];
}

/**
 * One ajv holding every schema (the agent file's refers to the config's), with the options the messages rely on;
 * `source: true` keeps the code for ajv's standalone output (the build's precompiled validators).
 */
export function createSchemaSet(options: { source?: boolean } = {}): Ajv {
  const { Ajv } = load('ajv') as typeof import('ajv');
  const schemas = (Object.keys(FILE_SCHEMAS) as FileFormat[]).map((format) => fileSchema(format) as AnySchema);
  // verbose: errors carry the failing schema, whose type and bounds (or errorMessage) say what the value must be.
  // validateSchema: false: the schemas are ours, checked against the meta-schema by a test, not on every start.
  const ajv = new Ajv({ allErrors: true, verbose: true, allowUnionTypes: true, strict: true, strictRequired: false, strictTypes: false, validateSchema: false, schemas, code: { source: options.source ?? false } });
  // VS Code's message keyword: the editor and this validator say the same thing.
  ajv.addKeyword({ keyword: 'errorMessage', schemaType: 'string' });
  return ajv;
}

/** Errors that only say a branch failed (`if`, `anyOf`) are dropped: the branch's own errors say why. */
function isReported(error: ErrorObject): boolean {
  return !['if', 'anyOf', 'oneOf', 'allOf', 'not', '$ref'].includes(error.keyword);
}

const KEYWORD_ORDER = ['additionalProperties', 'required', 'type'];

/** Unknown keys first (most often a typo), then the shallowest field, then missing keys and wrong types. */
function byUsefulness(a: ErrorObject, b: ErrorObject): number {
  const rank = (e: ErrorObject) => (KEYWORD_ORDER.includes(e.keyword) ? KEYWORD_ORDER.indexOf(e.keyword) : KEYWORD_ORDER.length);
  const depth = (e: ErrorObject) => e.instancePath.split('/').length;
  return Math.min(rank(a), 1) - Math.min(rank(b), 1) || depth(a) - depth(b) || rank(a) - rank(b);
}

function toProblem(error: ErrorObject): SchemaProblem {
  const segments = error.instancePath.split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
  const params = error.params as { additionalProperty?: string; missingProperty?: string };
  const field = params.additionalProperty ?? params.missingProperty;
  const at = field === undefined ? segments : [...segments, field];
  const path = at.reduce((text: string, s) => text + (/^\d+$/.test(s) ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `${text ? '.' : ''}${s}` : `[${JSON.stringify(s)}]`), '');
  const pointer = at.map((s) => `/${s.replace(/~/g, '~0').replace(/\//g, '~1')}`).join('');
  return { pointer, path, message: `${path || 'the file'} ${describe(error, params.additionalProperty)}` };
}

/** What is wrong, after the field's name: `is not a known key …`, `is required`, `must be …`. */
function describe(error: ErrorObject, unknownKey: string | undefined): string {
  const schema = (error.parentSchema ?? {}) as Record<string, unknown>;
  if (unknownKey !== undefined) {
    const known = Object.keys((schema.properties ?? {}) as object).filter((k) => k !== '$schema');
    const closest = closestNames(unknownKey, known, 1)[0];
    return `is not a known key — ${closest ? `did you mean "${closest}"?` : `known keys: ${known.join(', ')}`}`;
  }
  if (error.keyword === 'required') return 'is required';
  if (typeof schema.errorMessage === 'string') return schema.errorMessage;
  return mustBe(schema, error);
}

/** `must be …` for a value that fails `schema`, said from the schema's type and bounds. */
function mustBe(schema: Record<string, unknown>, error: ErrorObject): string {
  const { type, minimum, maximum, exclusiveMinimum, minLength } = schema as { type?: string | string[]; minimum?: number; maximum?: number; exclusiveMinimum?: number; minLength?: number };
  if (schema.enum) return `must be one of ${(schema.enum as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`;
  if ('const' in schema) return `must be ${JSON.stringify(schema.const)}`;
  if (type === 'integer') return `must be an integer from ${minimum ?? '…'}${maximum === undefined ? '' : ` to ${maximum}`}`;
  if (type === 'number' && exclusiveMinimum === 0) return 'must be a positive number';
  if (type === 'string') return minLength ? 'must be a non-empty string' : 'must be a string';
  if (type === 'boolean') return 'must be true or false';
  if (type === 'array') return 'must be an array';
  if (type === 'object') return 'must be an object';
  return error.message ?? 'is invalid';
}
