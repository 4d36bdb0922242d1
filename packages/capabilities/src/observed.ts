/**
 * Result types inferred from the results a space has seen. An MCP tool without an output schema answers with
 * untyped data (most often JSON in a text block); each successful call's data is folded into a JSON Schema of its
 * shape — field names and JSON types only, never a value — kept per capability in `<outDir>/observed/<id>.json`
 * ({@link ObservedFile}), which the next build reads to type the function's result. Here are the format and the pure
 * shape functions; the reader and the writer of those files are `@agent-spaces/bridge/output`'s (`readObserved`,
 * `ResultRecorder`).
 */
import { join } from 'node:path';
import { OUTPUT_FILES } from './output-layout.js';

/** Version of the {@link ObservedFile} format; a file of another version is ignored and replaced. */
export const OBSERVED_VERSION = 1;

/** `observed/<id>.json`: what the results of a capability's tools looked like, by MCP tool name. */
export interface ObservedFile {
  version: typeof OBSERVED_VERSION;
  tools: Record<string, ObservedTool>;
}

/** The results seen of one tool. */
export interface ObservedTool {
  /** How many results with data the schema was inferred from. */
  results: number;
  /** The shape every one of them had: types, field names, required fields; no values (`{}` while there was none). */
  schema: ShapeSchema;
  /** How many results had no data (no JSON in their text, no structured content): `data` may be absent. */
  withoutData?: number;
}

/** Bounds that keep an inferred schema small and free of data. */
const LIMITS = {
  /** Deeper values are `{}` (unknown). */
  depth: 6,
  /** An object with more keys, or a key that is not a plain name, is a map: `additionalProperties`. */
  keys: 40,
  /** Different types one value may have before it is `{}` (unknown). */
  variants: 4,
  /** Elements of an array (values of a map) whose shapes are taken; the rest are assumed alike. */
  items: 100,
} as const;
/** A key kept as a field name: a plain name of at most 64 characters (a token or a path is data, not a name). */
const FIELD_NAME = /^[A-Za-z_$][\w$-]{0,63}$/;

/** A JSON Schema as inference writes it (a subset: `type`, `properties`, `required`, `items`, `additionalProperties`, `anyOf`). */
export type ShapeSchema = Record<string, unknown>;
type Schema = ShapeSchema;

/** The shape of one JSON value as a JSON Schema: types and field names (all required), never a value. */
export function shapeOf(value: unknown, depth = 0): Schema {
  if (depth >= LIMITS.depth) return {};
  if (value === null) return { type: 'null' };
  if (Array.isArray(value)) {
    const items = shapeOfAll(value.slice(0, LIMITS.items), depth + 1);
    return items ? { type: 'array', items } : { type: 'array' };
  }
  switch (typeof value) {
    case 'string':
      return { type: 'string' };
    case 'boolean':
      return { type: 'boolean' };
    case 'number':
      return { type: Number.isInteger(value) ? 'integer' : 'number' };
    case 'object': {
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length > LIMITS.keys || !entries.every(([key]) => FIELD_NAME.test(key))) {
        const values = shapeOfAll(
          entries.slice(0, LIMITS.items).map((entry) => entry[1]),
          depth + 1,
        );
        return { type: 'object', additionalProperties: values ?? {} };
      }
      return { type: 'object', properties: Object.fromEntries(entries.map(([k, v]) => [k, shapeOf(v, depth + 1)])), required: entries.map(([k]) => k) };
    }
    default:
      return {};
  }
}

/** The merged shape of `values`; undefined when there are none. */
function shapeOfAll(values: readonly unknown[], depth: number): Schema | undefined {
  return values.reduce<Schema | undefined>((merged, value) => (merged ? mergeShapes(merged, shapeOf(value, depth)) : shapeOf(value, depth)), undefined);
}

/** The shape both `a` and `b` fit: fields of either (required when both require them), alternatives for other types. */
export function mergeShapes(a: Schema, b: Schema): Schema {
  const variants = [...alternatives(a)];
  for (const next of alternatives(b)) {
    const index = variants.findIndex((v) => kind(v) === kind(next));
    if (index === -1) variants.push(next);
    else variants[index] = mergeSame(variants[index]!, next);
  }
  if (variants.some((v) => kind(v) === 'unknown') || variants.length > LIMITS.variants) return {};
  return variants.length === 1 ? variants[0]! : { anyOf: variants };
}

function alternatives(schema: Schema): Schema[] {
  return Array.isArray(schema.anyOf) ? (schema.anyOf as Schema[]) : [schema];
}

/** `integer` and `number` are one kind; an object with fields and a map are not. */
function kind(schema: Schema): string {
  if (schema.type === 'integer') return 'number';
  if (schema.type === 'object') return schema.additionalProperties !== undefined ? 'map' : 'object';
  return typeof schema.type === 'string' ? schema.type : 'unknown';
}

function mergeSame(a: Schema, b: Schema): Schema {
  switch (kind(a)) {
    case 'number':
      return { type: a.type === 'integer' && b.type === 'integer' ? 'integer' : 'number' };
    case 'array':
      return a.items && b.items ? { type: 'array', items: mergeShapes(a.items as Schema, b.items as Schema) } : { type: 'array', ...(a.items || b.items ? { items: a.items ?? b.items } : {}) };
    case 'map':
      return { type: 'object', additionalProperties: mergeShapes(a.additionalProperties as Schema, b.additionalProperties as Schema) };
    case 'object': {
      const pa = a.properties as Record<string, Schema>;
      const pb = b.properties as Record<string, Schema>;
      const keys = [...new Set([...Object.keys(pa), ...Object.keys(pb)])];
      if (keys.length > LIMITS.keys) return { type: 'object', additionalProperties: Object.values({ ...pa, ...pb }).reduce((m, s) => mergeShapes(m, s)) };
      const properties = Object.fromEntries(keys.map((k) => [k, pa[k] && pb[k] ? mergeShapes(pa[k], pb[k]) : (pa[k] ?? pb[k])!]));
      const inB = new Set(b.required as string[]);
      return { type: 'object', properties, required: (a.required as string[]).filter((k) => inB.has(k)) };
    }
    default:
      return a;
  }
}

/** The file of capability `id`'s observed results in output folder `outDir`. */
export function observedFile(outDir: string, id: string): string {
  return join(outDir, OUTPUT_FILES.observed, `${id}.json`);
}
