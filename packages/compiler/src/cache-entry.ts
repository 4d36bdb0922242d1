/**
 * Entries of the caches in the output folder (`cache/npm`, `cache/openapi`): one JSON file per key, named by the key's
 * sha256 and written whole, so a reader never sees half an entry. A broken entry reads as a miss, never an error.
 */
import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The file of the entry for `key` in cache folder `dir`. */
export function entryFile(dir: string, key: string): string {
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
