/**
 * Result types inferred from the results a space has seen. An MCP tool without an output schema answers with
 * untyped data (most often JSON in a text block); each successful call's data is folded into a JSON Schema of its
 * shape — field names and JSON types only, never a value — kept per capability in `<outDir>/observed/<id>.json`
 * ({@link ObservedFile}), which the next build reads to type the function's result.
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { OUTPUT_FILES } from './build-output.js';
import { isRecord } from './shape.js';

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

/** What one result tells: the shape of its data, or that it had none. */
function observation(data: unknown): ObservedTool {
  return data === undefined ? { results: 0, schema: {}, withoutData: 1 } : { results: 1, schema: shapeOf(data) };
}

/** What `a` and `b`, results seen of one tool, tell together. */
function mergeObserved(a: ObservedTool, b: ObservedTool): ObservedTool {
  const schema = a.results === 0 ? b.schema : b.results === 0 ? a.schema : mergeShapes(a.schema, b.schema);
  const withoutData = (a.withoutData ?? 0) + (b.withoutData ?? 0);
  return { results: a.results + b.results, schema, ...(withoutData > 0 ? { withoutData } : {}) };
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

/**
 * The observed results of capability `id` in `outDir`; an empty record when there is no file, or it is unreadable or
 * of another version (an inference is a hint: it never fails a build or a call).
 */
export function readObserved(outDir: string, id: string): ObservedFile {
  let text: string | undefined;
  try {
    text = readFileSync(observedFile(outDir, id), 'utf8');
  } catch {
    // no file yet, or unreadable: start over
  }
  return parseObserved(text);
}

/** The observed results in `text`, the text of an {@link ObservedFile}; empty when it is missing, corrupt or foreign. */
function parseObserved(text: string | undefined): ObservedFile {
  try {
    const value: unknown = text === undefined ? undefined : JSON.parse(text);
    if (isRecord(value) && value.version === OBSERVED_VERSION && isRecord(value.tools)) {
      const tools = Object.entries(value.tools).filter(
        (entry): entry is [string, ObservedTool] =>
          isRecord(entry[1]) &&
          Number.isInteger(entry[1].results) &&
          isRecord(entry[1].schema) &&
          (entry[1].withoutData === undefined || Number.isInteger(entry[1].withoutData)),
      );
      return { version: OBSERVED_VERSION, tools: Object.fromEntries(tools) };
    }
  } catch {
    // not ours to trust: start over
  }
  return { version: OBSERVED_VERSION, tools: {} };
}

/**
 * How long recorded shapes wait before they are written. The results of a burst of calls (a loop in a run, the many
 * clients of `mcp serve`) then cost one write per file, and no write happens on the way of a call; a crash loses at
 * most this much of the record, which is a hint.
 */
const WRITE_DELAY_MS = 1000;

/** The last write queued of each file, across all recorders of the process: a file's writes run one after another. */
const writes = new Map<string, Promise<void>>();

/**
 * Queues a write of `tools` into the observed file of `id`: once the file's earlier writes are done, merges them into
 * what it holds then (another process may have written it) and replaces it whole (write and rename). Never rejects:
 * an unwritable output folder loses the record, never a call.
 */
function queueWrite(outDir: string, id: string, tools: ReadonlyMap<string, ObservedTool>): Promise<void> {
  const path = observedFile(outDir, id);
  const write = (writes.get(path) ?? Promise.resolve())
    .then(async () => {
      const file = parseObserved(await readFile(path, 'utf8').catch(() => undefined));
      for (const [tool, seen] of tools) {
        const before = file.tools[tool];
        file.tools[tool] = before ? mergeObserved(before, seen) : seen;
      }
      await mkdir(dirname(path), { recursive: true });
      const staging = `${path}.${process.pid}.tmp`;
      await writeFile(staging, `${JSON.stringify(file)}\n`);
      await rename(staging, path).catch(async (error: unknown) => {
        await rm(staging, { force: true });
        throw error;
      });
    })
    .catch(() => undefined)
    .finally(() => {
      if (writes.get(path) === write) writes.delete(path);
    });
  writes.set(path, write);
  return write;
}

/**
 * Records the shapes of results into `<outDir>/observed/`, one file per capability. Shapes are merged in memory and
 * written a second ({@link WRITE_DELAY_MS}) after the first one not yet written, or at once by {@link flush}.
 */
export class ResultRecorder {
  readonly #outDir: string;
  /** Shapes not yet written: capability id → tool name → results and schema. */
  #pending = new Map<string, Map<string, ObservedTool>>();
  /** The scheduled write of what is pending, if any. */
  #timer: ReturnType<typeof setTimeout> | undefined;
  /** Writes this recorder queued that have not settled yet. */
  readonly #writing = new Set<Promise<void>>();

  constructor(outDir: string) {
    this.#outDir = outDir;
  }

  /**
   * Folds the shape of `data`, the data of a result of tool `tool` of capability `id` (`undefined` for a result without
   * data), into the record, and schedules its write. Never throws.
   */
  record(id: string, tool: string, data: unknown): void {
    try {
      const seen = observation(data);
      const tools = this.#pending.get(id) ?? new Map<string, ObservedTool>();
      this.#pending.set(id, tools);
      const before = tools.get(tool);
      tools.set(tool, before ? mergeObserved(before, seen) : seen);
      // Unref'd: a pending write never keeps the process alive; whoever owns the recorder flushes it before exiting.
      this.#timer ??= setTimeout(() => void this.flush(), WRITE_DELAY_MS).unref();
    } catch {
      // a value too odd to shape is left out of the record, never out of the call
    }
  }

  /**
   * Writes what is pending now. Resolves (never rejects) when everything recorded so far is on disk, or was lost to
   * an unwritable folder: recording is a hint.
   */
  async flush(): Promise<void> {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    const pending = this.#pending;
    this.#pending = new Map();
    for (const [id, tools] of pending) {
      const write = queueWrite(this.#outDir, id, tools);
      this.#writing.add(write);
      void write.then(() => this.#writing.delete(write));
    }
    await Promise.all(this.#writing);
  }
}
