import { relative, resolve } from 'node:path';
import { resolveOutDir } from '@agent-spaces/capabilities';
import { readBuiltRecords } from './build-state.js';
import { compilerVersion } from './build.js';
import { FileHashes, expandSources, isUnchanged, toPosix } from './inputs.js';
import { readerFor } from './sources/index.js';

/** What {@link buildFreshness} found: the source files a build would rebuild, and the literal sources that are missing. */
export interface BuildFreshness {
  /** Sources (relative to `rootDir`) not built yet, or changed since they were built (or built by another compiler version). */
  stale: string[];
  /** Sources the config names that do not exist. */
  missing: string[];
}

/**
 * Compares the build output with the sources of `sources` without reading any of them (only hashing files): what
 * `capabilities build` would rebuild. Config sources (MCP servers, OpenAPI) are not covered: they are read on every build.
 */
export async function buildFreshness(options: { rootDir: string; sources: string[]; outDir?: string }): Promise<BuildFreshness> {
  const rootDir = resolve(options.rootDir);
  const outDir = resolveOutDir(rootDir, options.outDir);
  const rel = (file: string) => toPosix(relative(rootDir, file));
  const [sources, records, version] = await Promise.all([expandSources(options.sources, rootDir, outDir), readBuiltRecords(outDir), compilerVersion()]);
  const hashes = new FileHashes();
  // Files another source reads (a handler module) are not sources themselves, as in the build.
  const inputs = new Set(records.flatMap((record) => Object.keys(record.inputs ?? {}).filter((file) => file !== record.file)));
  const stale = sources.files
    .filter(({ file, explicit }) => explicit || readerFor(file))
    .map(({ file }) => rel(file))
    .filter((file) => {
      const built = records.filter((record) => record.file === file);
      if (built.length === 0) return !inputs.has(file);
      return !isUnchanged(built, version, rootDir, hashes);
    });
  return { stale, missing: sources.missing.map(({ file }) => rel(file)) };
}
