import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { bundleModule } from '../bundle.js';
import { pruneCacheEntries, readCacheEntry, touchCacheEntry, writeCacheEntry } from '../cache-entry.js';

/** Changes when an entry's shape or the config bundle's options do: older entries then read as misses. */
const FORMAT = 'config-bundle-1';
/** Most config bundles kept (one per config file); past it the least recently used go. */
const MAX_ENTRIES = 64;

/**
 * The config file bundled to an ES module, taken from the user's cache (`$XDG_CACHE_HOME/agent-spaces/config/`, else
 * `~/.cache/agent-spaces/config/`) when no file it was built from changed since (by content): every command then
 * starts without esbuild's service process; `cached` tells which. `fresh` bundles anew (a cached bundle whose import
 * failed). Per user, never in a shared folder: the entry is code the CLI imports.
 */
export async function configBundle(file: string, fresh = false): Promise<{ code: string; cached: boolean }> {
  const dir = cacheDir();
  const key = `${FORMAT}\0${esbuildVersion()}\0${file}`;
  if (!fresh) {
    const entry = (await readCacheEntry(dir, key)) as Partial<Entry> | undefined;
    if (typeof entry?.code === 'string' && Array.isArray(entry.inputs) && (await unchanged(entry.inputs))) {
      await touchCacheEntry(dir, key);
      return { code: entry.code, cached: true };
    }
  }
  const { code, inputs } = await bundleModule(file);
  const hashed = await Promise.all(inputs.map(async (input) => [input, await contentHash(input)] as [string, string | undefined]));
  // Without a writable cache, every start bundles, as before.
  await writeCacheEntry(dir, key, { code, inputs: hashed } satisfies Entry)
    .then(() => pruneCacheEntries(dir, MAX_ENTRIES))
    .catch(() => undefined);
  return { code, cached: false };
}

interface Entry {
  code: string;
  /** Each file the bundle was built from, with the hash of its content then. */
  inputs: [string, string | undefined][];
}

function cacheDir(): string {
  return join(process.env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'agent-spaces', 'config');
}

async function unchanged(inputs: unknown[]): Promise<boolean> {
  const now = await Promise.all(inputs.map(async (input) => (Array.isArray(input) && typeof input[0] === 'string' ? (await contentHash(input[0])) === input[1] : false)));
  return now.every(Boolean);
}

async function contentHash(file: string): Promise<string | undefined> {
  try {
    return createHash('sha256').update(await readFile(file)).digest('hex');
  } catch {
    return undefined;
  }
}

/** esbuild's version, read from its package.json (not loading esbuild). */
function esbuildVersion(): string {
  const require = createRequire(import.meta.url);
  return (require('esbuild/package.json') as { version: string }).version;
}
