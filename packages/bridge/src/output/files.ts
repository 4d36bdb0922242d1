/**
 * The one reader of the files a build wrote into a capabilities folder (`<outDir>/capabilities`, docs/output-layout.md);
 * their names and paths are `@agent-spaces/capabilities`' (`CAPABILITY_FILES`, `builtFile`). Reads are synchronous: a
 * few small files, and each asynchronous read is four trips to the thread pool.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { AgentSpacesError, builtFile, type CapabilityFileName } from '@agent-spaces/capabilities';

/**
 * The ids of the capabilities built into `dir` (a `capabilitiesDir`), sorted; hidden folders are skipped.
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
 * The text of `file` of capability `id` in `dir` (a `capabilitiesDir`). Throws `CAPABILITY_NOT_FOUND` (naming the
 * file) when it does not exist or `id` is no capability id, `SOURCE_UNREADABLE` when it cannot be read.
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
