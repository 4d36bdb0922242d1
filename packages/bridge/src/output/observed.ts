/**
 * The observed results of a space (`<outDir>/observed/<id>.json`, `ObservedFile`): the shapes of the data MCP tools
 * without an output schema answered with, which the next build reads to type those tools' results. One reader
 * ({@link readObserved}) and one writer ({@link ResultRecorder}, batched and off the path of a call).
 */
import { readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { OBSERVED_VERSION, isRecord, mergeShapes, observedFile, shapeOf, type ObservedFile, type ObservedTool } from '@agent-spaces/capabilities';

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
