import { constants, type Stats } from 'node:fs';
import { lstat, mkdir, open, realpath, type FileHandle } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AgentSpacesError } from '@agent-spaces/capabilities';

/**
 * A space's workspace folder: turns agent paths (relative, `/`-separated) into host paths that stay inside it.
 * `..` that climbs out, absolute paths and symlinks (anywhere on the way) that lead outside are refused with
 * `ACCESS_DENIED`, and so is a file with more than one hard link ({@link withFile}, {@link stat}): its other names may be
 * outside. The folder is created on first use.
 */
export class Workspace {
  readonly #dir: string;
  #root: Promise<string> | undefined;

  constructor(dir: string) {
    this.#dir = resolve(dir);
  }

  /** The real path of the workspace folder, created if missing. */
  root(): Promise<string> {
    this.#root ??= mkdir(this.#dir, { recursive: true })
      .then(() => realpath(this.#dir))
      .catch((error: unknown) => {
        this.#root = undefined;
        const code = (error as NodeJS.ErrnoException).code ?? 'EIO';
        throw new AgentSpacesError('HANDLER_ERROR', `fs: the workspace folder cannot be created (${code})`, { errno: code });
      });
    return this.#root;
  }

  /** The real host path `path` names, with every symlink on the way resolved and checked to stay inside. */
  async resolve(fn: string, path: string): Promise<string> {
    const root = await this.root();
    return this.#realInside(fn, path, root, this.#lexical(fn, path, root));
  }

  /**
   * Like {@link resolve}, but a symlink as the last component is not followed (for removing the link itself);
   * refuses the workspace folder itself.
   */
  async resolveEntry(fn: string, path: string): Promise<string> {
    const root = await this.root();
    const target = this.#lexical(fn, path, root);
    if (target === root) throw denied(fn, path, 'is the workspace folder itself');
    return join(await this.#realInside(fn, path, root, dirname(target)), basename(target));
  }

  /**
   * Runs `use` on the file `path` names (see {@link resolve}) opened with `flags` (`O_NOFOLLOW` added), and closes it.
   * The file is refused, from `fstat` of that same descriptor, when it has more than one hard link, or when the name no
   * longer names it (swapped during the open), so a link planted between the check and the use cannot switch files.
   * Never truncates: a writer truncates the handle it is given.
   */
  async withFile<T>(fn: string, path: string, flags: number, use: (handle: FileHandle) => Promise<T>): Promise<T> {
    const real = await this.resolve(fn, path);
    let handle: FileHandle;
    try {
      handle = await open(real, flags | constants.O_NOFOLLOW, 0o666);
    } catch (error) {
      // The path was resolved without links: one at its end now was put there since.
      if ((error as NodeJS.ErrnoException).code === 'ELOOP') throw denied(fn, path, 'became a symlink while it was opened');
      throw error;
    }
    try {
      const opened = ownFile(fn, path, await handle.stat());
      // A link counted at the open may be gone by the fstat: the name must still be this very file, so an extra name
      // swapped in and out around the open is caught either way.
      const named = await lstat(real).catch(() => undefined);
      if (named?.ino !== opened.ino || named.dev !== opened.dev) throw denied(fn, path, 'was replaced while it was opened');
      return await use(handle);
    } finally {
      await handle.close();
    }
  }

  /** The `lstat` of what `path` names (see {@link resolve}), refused when it is a file with more than one hard link. */
  async stat(fn: string, path: string): Promise<Stats> {
    return ownFile(fn, path, await lstat(await this.resolve(fn, path)));
  }

  #lexical(fn: string, path: string, root: string): string {
    if (path.includes('\0')) throw denied(fn, path, 'contains a NUL character');
    if (isAbsolute(path)) throw denied(fn, path, 'is absolute; use a path relative to the workspace');
    const target = resolve(root, path);
    if (!isInside(root, target)) throw denied(fn, path, 'leads outside the workspace');
    return target;
  }

  async #realInside(fn: string, path: string, root: string, target: string): Promise<string> {
    const rest: string[] = [];
    for (let existing = target; ; existing = dirname(existing)) {
      try {
        const real = await realpath(existing);
        if (!isInside(root, real)) throw denied(fn, path, 'goes through a symlink that leads outside the workspace');
        return join(real, ...rest);
      } catch (error) {
        const code = (error as NodeJS.ErrnoException).code;
        if (code === 'ELOOP') throw denied(fn, path, 'goes through a symlink loop');
        if (code !== 'ENOENT') throw error;
        // `existing` does not resolve. A dangling symlink could point anywhere once its target appears: refuse it.
        const isLink = await lstat(existing).then((s) => s.isSymbolicLink(), () => false);
        if (isLink) throw denied(fn, path, 'goes through a symlink whose target does not exist');
        rest.unshift(basename(existing));
      }
    }
  }
}

function isInside(root: string, target: string): boolean {
  if (target === root) return true;
  const rel = relative(root, target);
  return rel !== '' && rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}

/**
 * `stats`, unless they are of a regular file with more than one hard link: another name of it may be outside the
 * workspace (a link planted there, or made later), and reading or writing it would reach that file. Which names a
 * file has cannot be listed cheaply, so every such file is refused.
 */
function ownFile(fn: string, path: string, stats: Stats): Stats {
  if (stats.isFile() && stats.nlink > 1) {
    throw denied(fn, path, `is a file with ${stats.nlink} hard links; one of its other names may be outside the workspace`);
  }
  return stats;
}

function denied(fn: string, path: string, problem: string): AgentSpacesError {
  return new AgentSpacesError('ACCESS_DENIED', `${fn}: the path '${path}' ${problem}`, { path });
}
