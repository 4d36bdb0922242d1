import { lstatSync, realpathSync } from 'node:fs';
import { posix } from 'node:path';

/** Where an absolute path really leads, or why that cannot be known (a phrase: `is not an absolute path`). */
export type RealPath = { path: string } | { problem: string };

/**
 * The real path of `path` as the operating system would resolve it: every symbolic link followed, and `..` taken
 * after the link before it (`/tmp/link/..` is the parent of the link's target, not `/tmp`). Components that do not
 * exist yet (a file about to be created) are appended as written. A relative path, a NUL character, a dangling or
 * looping link and a component that cannot be read give a problem instead.
 */
export function realPathOf(path: string): RealPath {
  if (!path.startsWith('/')) return { problem: 'is not an absolute path' };
  if (path.includes('\0')) return { problem: 'contains a NUL character' };
  return resolve(path);
}

function resolve(path: string): RealPath {
  try {
    return { path: realpathSync.native(path) };
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT') return { problem: describe(code) };
  }
  // Something on the way does not exist: resolve the parent, then add the last component the way the OS would.
  const parent = posix.dirname(path);
  const name = posix.basename(path);
  if (isLink(path)) return { problem: 'goes through a symbolic link whose target does not exist' };
  const real = resolve(parent);
  if (!('path' in real)) return real;
  if (name === '..') return { path: posix.dirname(real.path) };
  if (name === '.' || name === '') return real;
  return { path: real.path === '/' ? `/${name}` : `${real.path}/${name}` };
}

function isLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

function describe(code: string | undefined): string {
  switch (code) {
    case 'ELOOP':
      return 'goes through a symbolic link loop';
    case 'ENOTDIR':
      return 'goes through a file as if it were a folder';
    case 'EACCES':
      return 'goes through a folder the host may not read (EACCES)';
    case 'ENAMETOOLONG':
      return 'is too long';
    default:
      return `cannot be resolved (${code ?? 'unknown error'})`;
  }
}

/** True when real path `target` is `folder` or inside it. */
export function isInside(target: string, folder: string): boolean {
  return target === folder || target.startsWith(folder === '/' ? '/' : `${folder}/`);
}
