/**
 * The layout of the build output folder (`.agent-spaces/`, docs/output-layout.md), owned here: the name of every
 * file a build writes, and the one reader of a built capability's files. The compiler writes through these names;
 * the bridge, the SDK, the CLI and the MCP server read through these functions. Reads are synchronous: a few small
 * files, and each asynchronous read is four trips to the thread pool.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { AgentSpacesError } from './errors.js';
import { CAPABILITY_PREFIX } from './protocol.js';
import { isRecord } from './shape.js';

/** The output folder, relative to the config file's folder, unless the config's `outDir` says otherwise. */
export const DEFAULT_OUT_DIR = '.agent-spaces';

/** Files and folders at the top of the output folder. */
export const OUTPUT_FILES = {
  /** One folder per capability, named by its module id. */
  capabilities: 'capabilities',
  /** One `/// <reference path>` per built module. */
  index: 'capabilities.d.ts',
  /** A fragment to `extends`: the options agent code is checked with, `@capabilities/*`, std and the sandbox globals. */
  tsconfig: 'tsconfig.json',
  /** The type root of that fragment: `agent-spaces/index.d.ts` references every declaration agent code sees. */
  types: 'types',
  /** The shapes of results the space has seen, by capability (`observed.ts`): written by runs, read by builds. */
  observed: 'observed',
  gitignore: '.gitignore',
  /** What the last build produced, for the no-change rebuild. */
  buildState: 'build-state.json',
  /** Capability folders being written, only during a build. */
  staging: '.staging',
} as const;

/** Files in the folder of one capability. */
export const CAPABILITY_FILES = {
  /** The types agent code is checked against. */
  declarations: 'index.d.ts',
  /** The proxy the sandbox loads as `@capabilities/<id>`. */
  proxy: 'index.js',
  /** Parameter and result schemas ({@link CapabilitySchemaFile}). */
  schema: 'schema.json',
  /** What was built, from what, and where calls go ({@link CapabilityMeta}). */
  meta: 'meta.json',
  /** The bundled host handlers (only for `module` executors). */
  host: 'host.mjs',
  /** What `search_capabilities` shows and scores ({@link CapabilityCatalog}). */
  catalog: 'catalog.json',
  /** The params validators, compiled ahead (CommonJS source the bridge evaluates; a build may leave it out). */
  validators: 'validators.cjs',
} as const;

/** The name of a file in a capability's folder. */
export type CapabilityFileName = (typeof CAPABILITY_FILES)[keyof typeof CAPABILITY_FILES];

/** Version of the `catalog.json` format; a file of another version is read as stale. */
export const CATALOG_VERSION = 3;

/** `catalog.json`: the searchable functions of one capability, written by the compiler. */
export interface CapabilityCatalog {
  version: typeof CATALOG_VERSION;
  /** Declarations (with JSDoc, as in `index.d.ts`) of the module's types the signatures use, by type name. */
  types: Record<string, string>;
  /** One per function, in declaration order. */
  functions: CatalogFunction[];
}

/** One function of a `catalog.json`. */
export interface CatalogFunction {
  /** How agent code calls it (`trainSchedule.getSchedule`); its first part is what agent code imports. */
  path: string;
  /**
   * The capability function it is (`getSchedule`, `alerts.clear`: the name policies and `hideFunctions` see); absent
   * for an export of a `sandbox`-mode npm package, which runs in the sandbox and is no capability function.
   */
  function?: string;
  /** One line, with a parameters interface inlined (`trainSchedule.getSchedule(params?: { station?: string }): Promise<Trip[]>`). */
  signature: string;
  /** The doc comment's first sentence. */
  summary: string;
  /** The whole doc comment, without `/**` and ` * `. */
  doc: string;
  /** Names in `types` the signature refers to, transitively, in order of first use. */
  related: string[];
  /** Search words ({@link searchWords}) of the function. */
  words: CatalogWords;
}

/**
 * The search words of one function, by where they come from: they count for a match in this order (a capability's or
 * MCP server's own description is about all of its functions, so it counts least).
 */
export interface CatalogWords {
  /** The function's name. */
  name: string[];
  /** Its module and object path. */
  module: string[];
  /** The field names of its parameters and of its result, nested ones included. */
  fields: string[];
  /** Its doc comment. */
  doc: string[];
  /** The description of the capability holding it. */
  context: string[];
}

/** The lists of {@link CatalogWords}, in the order they count. */
export const CATALOG_WORD_KINDS = ['name', 'module', 'fields', 'doc', 'context'] as const satisfies readonly (keyof CatalogWords)[];

/** One searchable function: a {@link CatalogFunction} with its module and the declarations its `related` names. */
export interface CatalogEntry extends Omit<CatalogFunction, 'related'> {
  /** Module to import it from (`@capabilities/train-schedule`). */
  module: string;
  /** Declarations of the types the signature refers to. */
  related: string[];
}

/** The output folder of a project: `outDir` (default {@link DEFAULT_OUT_DIR}) resolved against `rootDir`. */
export function resolveOutDir(rootDir: string, outDir: string = DEFAULT_OUT_DIR): string {
  return resolve(rootDir, outDir);
}

/** The TypeScript language service plugin the tsconfig fragment names: editors accept a top-level `return` with it. */
export const EDITOR_PLUGIN = '@agent-spaces/ts-plugin';

/**
 * The `tsconfig.json` of a folder of agent scripts or skills, `folder`: it extends the fragment of the output folder
 * `outDir` (both absolute) and includes the folder's `.ts` files, so an editor judges them as `check` and the build do.
 */
export function editorTsconfig(folder: string, outDir: string): string {
  const fragment = relative(folder, join(outDir, OUTPUT_FILES.tsconfig)).split(sep).join('/');
  return `${JSON.stringify({ extends: fragment.startsWith('../') ? fragment : `./${fragment}`, include: ['*.ts'] }, null, 2)}\n`;
}

/** The folder holding one folder per capability, in output folder `outDir`. */
export function capabilitiesDir(outDir: string): string {
  return join(outDir, OUTPUT_FILES.capabilities);
}

/** The id of a built capability as a space names it: `'mcp:slack'` is `'mcp-slack'`, other names are ids already. */
export function capabilityIdOf(name: string): string {
  return name.startsWith('mcp:') ? `mcp-${name.slice(4)}` : name;
}

/** The folder of capability `id` in `dir` (a {@link capabilitiesDir}). */
export function capabilityDir(dir: string, id: string): string {
  return join(dir, id);
}

const ID = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * The path of `file` of capability `id` in `dir` (a {@link capabilitiesDir}), for reading. Throws
 * `CAPABILITY_NOT_FOUND` when `id` is not a capability id (`..`, a path), so no read leaves `dir`.
 */
export function builtFile(dir: string, id: string, file: CapabilityFileName): string {
  if (!ID.test(id)) throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `${JSON.stringify(id)} is not a capability id`, { id });
  return join(dir, id, file);
}

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

const STOP_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'with']);

/**
 * Lower-case, stemmed words of `text`, as `catalog.json` stores them and a search query is split: camelCase,
 * snake_case, kebab-case and punctuation all split, stop words dropped, word forms folded to one stem
 * (`getTrainDetails the` → `get train detail`, `creating created creates` → `creat creat creat`).
 */
export function searchWords(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w))
    .map(stem);
}

const VOWEL = /[aeiouy]/;

/**
 * A light English stemmer: plural `-s`/`-ies`, `-ing`, `-ed` and a final `-e` are cut when a stem with a vowel of
 * three letters or more is left, and a doubled final consonant is undoubled (`stopping` → `stop`).
 */
function stem(word: string): string {
  let w = word;
  if (w.length > 4 && w.endsWith('ies')) return `${w.slice(0, -3)}y`;
  if (w.length > 3 && w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us')) w = w.slice(0, -1);
  for (const suffix of ['ing', 'ed']) {
    const rest = w.slice(0, -suffix.length);
    if (w.endsWith(suffix) && rest.length >= 3 && VOWEL.test(rest)) {
      w = /([b-df-hj-np-tv-z])\1$/.test(rest) && !/[lsz]$/.test(rest) ? rest.slice(0, -1) : rest;
      break;
    }
  }
  if (w.length > 4 && w.endsWith('e')) w = w.slice(0, -1);
  return w;
}
