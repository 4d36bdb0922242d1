/**
 * Entries of the caches in the output folder (`cache/npm`, `cache/openapi`): one JSON file per key, named by the key's
 * sha256 and written whole, so a reader never sees half an entry. A broken entry reads as a miss, never an error.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, readdir, rename, stat, unlink, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

function entryFile(dir: string, key: string): string {
  return join(dir, `${createHash('sha256').update(key).digest('hex').slice(0, 32)}.json`);
}

/** The JSON value of the entry for `key` in cache folder `dir`; undefined when it is missing or unreadable. */
export async function readCacheEntry(dir: string, key: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(entryFile(dir, key), 'utf8')) as unknown;
  } catch {
    return undefined;
  }
}

/** Stores `value` as the entry for `key` in `dir` (written to a temporary file, then renamed into place); returns its path. */
export async function writeCacheEntry(dir: string, key: string, value: unknown): Promise<string> {
  await mkdir(dir, { recursive: true });
  const file = entryFile(dir, key);
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, JSON.stringify(value));
  await rename(temporary, file);
  return file;
}

/** Marks the entry for `key` in `dir` used now, for {@link pruneCacheEntries}; a missing entry is no error. */
export async function touchCacheEntry(dir: string, key: string): Promise<void> {
  const now = new Date();
  await utimes(entryFile(dir, key), now, now).catch(() => undefined);
}

/** Once `dir` holds more than `max` entries, deletes the least recently used (written or touched) down to three quarters of `max`. */
export async function pruneCacheEntries(dir: string, max: number): Promise<void> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.json'));
  if (names.length <= max) return;
  const used = await Promise.all(names.map(async (name) => ({ name, at: (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs ?? 0 })));
  used.sort((a, b) => a.at - b.at);
  const drop = used.slice(0, names.length - Math.floor((max * 3) / 4));
  await Promise.all(drop.map(({ name }) => unlink(join(dir, name)).catch(() => undefined)));
}
