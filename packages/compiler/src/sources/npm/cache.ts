/**
 * What reading an npm package produced, kept in `<outDir>/cache/npm/` under a key of everything it depends on, so a
 * build where nothing changed loads neither TypeScript nor esbuild: the entry, the compiler version, the package's
 * `package.json` (its version) and its declarations entry. A broken entry is a miss, never an error.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { isRecord } from '@agent-spaces/capabilities';
import { readCacheEntry, writeCacheEntry } from '../../cache-entry.js';
import type { SourceResult } from '../types.js';
import type { NpmSource } from './config.js';
import type { InstalledPackage } from './package.js';

/** What an npm package is built into, in the key too: 2 since a CommonJS package's sandbox module names its exports. */
const NPM_OUTPUT_VERSION = 2;

/** The cache key of reading `source` from `installed` with compiler `compiler`. */
export async function npmCacheKey(source: NpmSource, installed: InstalledPackage, compiler: string): Promise<string> {
  const hash = createHash('sha256').update(JSON.stringify([compiler, NPM_OUTPUT_VERSION, source, installed.dir]));
  for (const file of [installed.manifest, installed.types]) if (file) hash.update('\0').update(await readFile(file));
  return hash.digest('hex');
}

/** The cached result for `label` when its key is `key`; undefined otherwise. */
export async function readCachedNpmSource(outDir: string, label: string, key: string): Promise<SourceResult | undefined> {
  const value = await readCacheEntry(cacheDir(outDir), label);
  return isRecord(value) && value.key === key && isRecord(value.result) ? (value.result as unknown as SourceResult) : undefined;
}

/** Stores `result` for `label` under `key` (written whole, then renamed into place). */
export async function writeCachedNpmSource(outDir: string, label: string, key: string, result: SourceResult): Promise<void> {
  await writeCacheEntry(cacheDir(outDir), label, { key, result });
}

const cacheDir = (outDir: string) => join(outDir, 'cache', 'npm');
