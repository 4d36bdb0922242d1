/**
 * Copies of the readers and the result recorder that moved to `@agent-spaces/bridge/output`, kept only while
 * `packages/sdk/src` (space.ts, skills.ts, mcp.ts) and the end-to-end tests still import them from here.
 * @deprecated Import them from `@agent-spaces/bridge/output`; this file goes once nothing imports it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { closestNames } from './closest-names.js';
import { AgentSpacesError } from './errors.js';
import type { CapabilityMeta } from './ir.js';
import { OBSERVED_VERSION, mergeShapes, observedFile, shapeOf, type ObservedFile, type ObservedTool } from './observed.js';
import { CAPABILITY_FILES, CATALOG_VERSION, CATALOG_WORD_KINDS, builtFile, capabilityIdOf, type CapabilityFileName, type CatalogEntry, type CatalogWords } from './output-layout.js';
import { CAPABILITY_PREFIX, STD_MODULE } from './protocol.js';
import { isRecord } from './shape.js';

/**
 * The ids of the capabilities built into `dir` (a {@link capabilitiesDir}), sorted; hidden folders are skipped.
 * Throws `CAPABILITY_NOT_FOUND` when `dir` does not exist (nothing was built).
 */
export function listBuiltCapabilities(dir: string): string[] {
  try {
    const entries = readdirSync(dir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
  } catch (error) {
    throw new AgentSpacesError(
      'CAPABILITY_NOT_FOUND',
      `No built capabilities in ${dir}: run \`agent-spaces capabilities build\` first`,
      { dir },
      { cause: error },
    );
  }
}

/**
 * The text of `file` of capability `id` in `dir`. Throws `CAPABILITY_NOT_FOUND` (naming the file) when it does not
 * exist, `SOURCE_UNREADABLE` when it cannot be read.
 */
export function readBuiltFile(dir: string, id: string, file: CapabilityFileName): string {
  const path = builtFile(dir, id, file);
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      throw new AgentSpacesError(
        'CAPABILITY_NOT_FOUND',
        `Capability '${id}' is not built: ${path} does not exist (run \`agent-spaces capabilities build\`)`,
        { id, file: path },
      );
    }
    throw new AgentSpacesError('SOURCE_UNREADABLE', `Cannot read ${path}: ${(error as Error).message}`, { id, file: path }, { cause: error });
  }
}

/** The parsed JSON of `file` of capability `id` in `dir`: {@link readBuiltFile}'s errors, and `INVALID_JSON`. */
export function readBuiltJson(dir: string, id: string, file: CapabilityFileName): unknown {
  const text = readBuiltFile(dir, id, file);
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    const path = builtFile(dir, id, file);
    throw new AgentSpacesError('INVALID_JSON', `${path} is not valid JSON: ${(error as Error).message}`, { id, file: path });
  }
}

/**
 * The searchable functions of capability `id` in `dir`, from its `catalog.json`. A capability built before the
 * compiler wrote that file (or with another version of it) fails with `CAPABILITY_STALE` saying to rebuild; a file of
 * the wrong shape with `INVALID_DEFINITION` naming the field; otherwise as {@link readBuiltJson}.
 */
export function readCatalog(dir: string, id: string): CatalogEntry[] {
  const file = builtFile(dir, id, CAPABILITY_FILES.catalog);
  const stale = (why: string) =>
    new AgentSpacesError('CAPABILITY_STALE', `Capability '${id}' was built by an older agent-spaces: ${file} ${why} (rebuild: \`agent-spaces capabilities build --force\`)`, {
      id,
      file,
    });
  let value: unknown;
  try {
    value = readBuiltJson(dir, id, CAPABILITY_FILES.catalog);
  } catch (error) {
    const missing = error instanceof AgentSpacesError && error.code === 'CAPABILITY_NOT_FOUND';
    if (missing && existsSync(builtFile(dir, id, CAPABILITY_FILES.meta))) throw stale('does not exist');
    throw error;
  }
  if (isRecord(value) && value.version !== CATALOG_VERSION) throw stale(`has format version ${JSON.stringify(value.version)}, not ${CATALOG_VERSION}`);
  return catalogEntries(value, CAPABILITY_PREFIX + id, file);
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Checks the shape of a `catalog.json` and joins each function's related names to their declarations. */
function catalogEntries(value: unknown, module: string, file: string): CatalogEntry[] {
  function fail(pointer: string, problem: string): never {
    throw new AgentSpacesError('INVALID_DEFINITION', `${file}: ${pointer || '(root)'} ${problem}`, { file, pointer });
  }
  if (!isRecord(value)) fail('', 'must be an object');
  const types = value.types;
  if (!isRecord(types) || !Object.values(types).every((t) => typeof t === 'string')) fail('/types', 'must map type names to declarations');
  if (!Array.isArray(value.functions)) fail('/functions', 'must be an array');
  return value.functions.map((fn: unknown, index): CatalogEntry => {
    const at = `/functions/${index}`;
    if (!isRecord(fn)) fail(at, 'must be an object');
    for (const key of ['path', 'signature', 'summary', 'doc']) if (typeof fn[key] !== 'string') fail(`${at}/${key}`, 'must be a string');
    if (fn.function !== undefined && typeof fn.function !== 'string') fail(`${at}/function`, 'must be a string');
    const related = fn.related;
    if (!isStrings(related) || !related.every((name) => Object.hasOwn(types, name))) fail(`${at}/related`, 'must list names of /types');
    const words = fn.words;
    if (!isRecord(words) || !CATALOG_WORD_KINDS.every((kind) => isStrings(words[kind]))) {
      fail(`${at}/words`, `must hold the word lists ${CATALOG_WORD_KINDS.join(', ')}`);
    }
    const { path, signature, summary, doc } = fn as Record<string, string>;
    return {
      module,
      path,
      ...(typeof fn.function === 'string' ? { function: fn.function } : {}),
      signature,
      summary,
      doc,
      related: related.map((name) => types[name] as string),
      words: Object.fromEntries(CATALOG_WORD_KINDS.map((kind) => [kind, words[kind]])) as unknown as CatalogWords,
    };
  });
}

/**
 * The built ids `names` mean, in order and without duplicates, for the capabilities built into `dir` (a
 * `capabilitiesDir`). Throws `CAPABILITY_NOT_FOUND` naming the first name that matches nothing, with up to three
 * closest names (`data.closest`).
 * @example
 * resolveCapabilityNames(dir, ['@company/internal-sdk', 'mcp:slack', 'openapi:todos']) // ['company-internal-sdk', 'mcp-slack', 'todos']
 */
export function resolveCapabilityNames(dir: string, names: readonly string[]): string[] {
  let built: Set<string> | undefined;
  let aliases: Map<string, string> | undefined;
  const ids: string[] = [];
  for (const name of names) {
    if (name === STD_MODULE) continue;
    const id = capabilityIdOf(name);
    built ??= new Set(listBuiltCapabilities(dir));
    const found = built.has(id) && !name.startsWith('openapi:') ? id : (aliases ??= aliasesOf(dir, built)).get(name);
    if (found === undefined) {
      const closest = closestNames(name, [...built, ...(aliases ??= aliasesOf(dir, built)).keys()]);
      const hint = closest.length > 0 ? ` (closest: ${closest.join(', ')})` : ' (nothing is built)';
      throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `No capability ${JSON.stringify(name)} is built in ${dir}${hint}`, { name, closest });
    }
    if (!ids.includes(found)) ids.push(found);
  }
  return ids;
}

/** The other names of built capabilities: `openapi:<name>` and npm package names, by name, read from their `meta.json`. */
function aliasesOf(dir: string, built: ReadonlySet<string>): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const id of built) {
    let meta: unknown;
    try {
      meta = readBuiltJson(dir, id, CAPABILITY_FILES.meta);
    } catch {
      continue;
    }
    if (!isRecord(meta)) continue;
    const { source, package: pkg } = meta as Partial<CapabilityMeta>;
    if (source?.kind === 'openapi' && source.file.startsWith('openapi.')) aliases.set(`openapi:${source.file.slice('openapi.'.length)}`, id);
    if (source?.kind === 'npm' && typeof pkg?.name === 'string') aliases.set(pkg.name, id);
  }
  return aliases;
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
