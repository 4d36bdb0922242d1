import { join } from 'node:path';
import { isRecord } from '@agent-spaces/capabilities';
import { readCacheEntry, writeCacheEntry } from '../../cache-entry.js';

/** One fetched spec as stored in the cache: where it was asked for, which URL answered, its text and when. */
export interface CachedSpec {
  /** The URL asked for: the spec URL, or the server URL discovery started from. */
  key: string;
  /** The URL that answered with the spec. */
  url: string;
  text: string;
  /** Epoch milliseconds of the fetch. */
  fetchedAt: number;
}

/** The folder of the spec cache inside a build output folder. */
export function specCacheDir(outDir: string): string {
  return join(outDir, 'cache', 'openapi');
}

/**
 * Returns the cached entry for `key` when it is younger than `ttlMs` at `now`; undefined when missing, stale or
 * unreadable (a broken cache entry is a miss, never an error).
 */
export async function readCachedSpec(dir: string, key: string, ttlMs: number, now = Date.now()): Promise<CachedSpec | undefined> {
  const value = await readCacheEntry(dir, key);
  if (!isRecord(value) || value.key !== key || typeof value.url !== 'string' || typeof value.text !== 'string') return undefined;
  if (typeof value.fetchedAt !== 'number' || now - value.fetchedAt >= ttlMs || value.fetchedAt > now) return undefined;
  return { key, url: value.url, text: value.text, fetchedAt: value.fetchedAt };
}

/** Stores `entry` (write to a temporary file, then rename, so readers never see half an entry); returns its path. */
export function writeCachedSpec(dir: string, entry: CachedSpec): Promise<string> {
  return writeCacheEntry(dir, entry.key, entry);
}
