import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, renameSync, writeFileSync } from 'node:fs';

/**
 * Writes `code` as `<dir><name>-<sha256 of code, 16 hex>.mjs` unless that file exists, and returns its path: a module
 * bundled at run time (from the TypeScript sources) for a child process or worker thread to load. Written whole, then
 * renamed, so processes bundling at the same time never read half a file.
 */
export function writeCacheModule(dir: string, name: string, code: string): string {
  const file = `${dir}${name}-${createHash('sha256').update(code).digest('hex').slice(0, 16)}.mjs`;
  if (!existsSync(file)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${file}.${process.pid}.tmp`;
    writeFileSync(partial, code);
    renameSync(partial, file);
  }
  return file;
}
