import { relative, resolve } from 'node:path';
import { resolveOutDir } from '@agent-spaces/capabilities';
import { readBuiltRecords } from './build-state.js';
import { compilerVersion } from './build.js';
import { FileHashes, expandSources, sourceStates, toPosix } from './inputs.js';
import { SKILLS_DIR, SKILLS_ID, skillFiles, skillsUnchanged } from './skills.js';

/** What {@link buildFreshness} found: the source files a build would rebuild, and the literal sources that are missing. */
export interface BuildFreshness {
  /**
   * Sources (relative to `rootDir`) not built yet, or changed since they were built (or built by another compiler
   * version); `skills` when a skill file was added, changed, removed or did not build.
   */
  stale: string[];
  /** Sources the config names that do not exist. */
  missing: string[];
}

/**
 * Compares the build output with the sources of `sources` and the project's skills without reading any of them (only
 * hashing files): what `capabilities build` would rebuild. Config sources (MCP servers, OpenAPI) are not covered: they
 * are read on every build.
 */
export async function buildFreshness(options: { rootDir: string; sources: string[]; outDir?: string }): Promise<BuildFreshness> {
  const rootDir = resolve(options.rootDir);
  const outDir = resolveOutDir(rootDir, options.outDir);
  const rel = (file: string) => toPosix(relative(rootDir, file));
  const [sources, records, version, skills] = await Promise.all([
    expandSources(options.sources, rootDir, outDir),
    readBuiltRecords(outDir),
    compilerVersion(),
    skillFiles(rootDir),
  ]);
  const { stale } = sourceStates(sources.files, records, { rootDir, version, hashes: new FileHashes() });
  const skillsRecord = records.find((record) => record.id === SKILLS_ID && record.file === SKILLS_DIR);
  const skillsStale = skills.length > 0 ? !(await skillsUnchanged(rootDir, skills, version, skillsRecord)) : skillsRecord !== undefined;
  return { stale: [...stale.map(rel), ...(skillsStale ? [SKILLS_DIR] : [])], missing: sources.missing.map(({ file }) => rel(file)) };
}
