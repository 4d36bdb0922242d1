/**
 * The layout of the build output folder (`.agent-spaces/`, docs/output-layout.md), owned here: the name and path of
 * every file a build writes, and the formats of `catalog.json`. The compiler writes through these names; the one
 * reader of what it wrote is `@agent-spaces/bridge/output`. No I/O here: names, paths and pure functions.
 */
import { join, relative, resolve, sep } from 'node:path';
import { AgentSpacesError } from './errors.js';

/** The output folder, relative to the config file's folder, unless the config's `outDir` says otherwise. */
export const DEFAULT_OUT_DIR = '.agent-spaces';

/** Files and folders at the top of the output folder. */
export const OUTPUT_FILES = {
  /** One folder per capability, named by its module id. */
  capabilities: 'capabilities',
  /** One `/// <reference path>` per built module. */
  index: 'capabilities.d.ts',
  /**
   * A fragment to `extends`: the options agent code is checked with, `@capabilities/*`, and as `files` every
   * declaration `check` gives agent code (each built module's, std's and the sandbox globals'), nothing else.
   */
  tsconfig: 'tsconfig.json',
  /** Its `agent-spaces/` folder holds the sandbox's own declaration files (std, the globals). */
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
 * `outDir` (both absolute) and includes the folder's `.ts` files, so an editor and plain `tsc -p <folder>` judge them
 * as `check` and the build do. It holds no options of its own: each build rewrites the fragment, never this file.
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
