import { lstat, mkdir, realpath } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AgentSpacesError } from '@agent-spaces/capabilities';

/**
 * A space's workspace folder: turns agent paths (relative, `/`-separated) into host paths that stay inside it.
 * `..` that climbs out, absolute paths and symlinks (anywhere on the way) that lead outside are refused with
 * `ACCESS_DENIED`. The folder is created on first use.
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

function denied(fn: string, path: string, problem: string): AgentSpacesError {
  return new AgentSpacesError('ACCESS_DENIED', `${fn}: the path '${path}' ${problem}`, { path });
}
