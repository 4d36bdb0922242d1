import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pruneCacheEntries, readCacheEntry, touchCacheEntry, writeCacheEntry } from '../cache-entry.js';
import type { TypecheckDiagnostic } from './types.js';
import { checkWorkerEntry } from './worker-entry.js';

/** Most entries a typecheck cache folder keeps; past it the least recently used go, down to three quarters of it. */
export const MAX_CACHED_CHECKS = 256;
/** Changes when an entry's shape does: older entries then read as misses. */
const FORMAT = 'typecheck-1';

/**
 * Typecheck results kept on disk (`<outDir>/cache/typecheck/`), one JSON file per script, declarations and checker: a
 * script unchanged against unchanged declarations is not checked again, even by a new process. A result depends only
 * on those and on the checker (the installed TypeScript, the check worker's code with its compiler options), which
 * are all in the key. Only results of plain checks are kept (a session's checks also depend on its bindings).
 */
export class CheckResultCache {
  readonly #dir: string;

  /** A cache in folder `dir` (created on the first write). */
  constructor(dir: string) {
    this.#dir = dir;
  }

  /** The diagnostics kept for `code` against the declarations hashed `declarationsKey`; undefined on a miss. */
  async get(declarationsKey: string, code: string): Promise<TypecheckDiagnostic[] | undefined> {
    const key = await entryKey(declarationsKey, code);
    const entry = await readCacheEntry(this.#dir, key);
    if (!isEntry(entry) || entry.key !== key) return undefined;
    // Used now: the pruning keeps it over entries unused for longer.
    await touchCacheEntry(this.#dir, key);
    return entry.diagnostics;
  }

  /**
   * Keeps `diagnostics` as the result of `code`, and that `code` was checked ({@link checkedBefore}), then prunes both
   * folders past {@link MAX_CACHED_CHECKS} entries.
   */
  async set(declarationsKey: string, code: string, diagnostics: readonly TypecheckDiagnostic[]): Promise<void> {
    const key = await entryKey(declarationsKey, code);
    await writeCacheEntry(this.#dir, key, { key, diagnostics });
    await pruneCacheEntries(this.#dir, MAX_CACHED_CHECKS);
    const script = await scriptKey(code);
    await writeCacheEntry(this.#scriptsDir, script, { key: script });
    await pruneCacheEntries(this.#scriptsDir, MAX_CACHED_CHECKS);
  }

  /**
   * Whether a result for `code` was kept by this checker, against any declarations: its next check is then likely
   * answered from the cache, and needs no worker. A hint only (`scripts/`), never an answer: a wrong one costs time.
   */
  async checkedBefore(code: string): Promise<boolean> {
    const key = await scriptKey(code);
    const entry = (await readCacheEntry(this.#scriptsDir, key)) as Partial<Entry> | undefined;
    return entry?.key === key;
  }

  get #scriptsDir(): string {
    return join(this.#dir, 'scripts');
  }
}

interface Entry {
  key: string;
  diagnostics: TypecheckDiagnostic[];
}

function isEntry(value: unknown): value is Entry {
  const entry = value as Partial<Entry> | undefined;
  return typeof entry?.key === 'string' && Array.isArray(entry.diagnostics);
}

/** The entry's key: the checker's identity, the declarations' hash and the script's hash. */
async function entryKey(declarationsKey: string, code: string): Promise<string> {
  const script = createHash('sha256').update(code).digest('hex');
  return `${FORMAT}\0${await checkerIdentity()}\0${declarationsKey}\0${script}`;
}

/** The key of the hint that `code` was checked: the checker's identity and the script's hash. */
async function scriptKey(code: string): Promise<string> {
  return `${FORMAT}-script\0${await checkerIdentity()}\0${createHash('sha256').update(code).digest('hex')}`;
}

let identity: Promise<string> | undefined;

/**
 * A hash of what decides a check's result besides its inputs: the TypeScript version the workers load and the check
 * worker's code (its entry and the chunks it imports, which hold the compiler options and the diagnostics' wording).
 */
function checkerIdentity(): Promise<string> {
  identity ??= (async () => {
    const hash = createHash('sha256');
    const typescriptPackage = createRequire(import.meta.url).resolve('typescript/package.json');
    hash.update((JSON.parse(await readFile(typescriptPackage, 'utf8')) as { version: string }).version);
    const seen = new Set<string>();
    const pending = [await checkWorkerEntry()];
    for (let file = pending.pop(); file !== undefined; file = pending.pop()) {
      if (seen.has(file)) continue;
      seen.add(file);
      const text = await readFile(file, 'utf8');
      hash.update(`\0${text}`);
      for (const [, relative] of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) pending.push(join(dirname(file), relative!));
    }
    return hash.digest('hex');
  })();
  identity.catch(() => (identity = undefined));
  return identity;
}
