import type { TranspiledScript } from '../assemble.js';

/**
 * Stands in for `../transpile.ts` in the sandbox process's bundle (./child-entry.ts redirects the import): the parent
 * transpiles agent code and sends the script with the run (`RunOptions.transpiled`), so a sandbox process never loads
 * esbuild or starts its service (about 13 MiB of RSS and a process per sandbox process).
 */

/** Never reached: every run in a sandbox process comes with its script. */
export async function transpileAsync(): Promise<TranspiledScript> {
  throw new Error('the host sent no script for this run');
}

/** Nothing to warm: the parent transpiles. */
export function warmTranspiler(): void {}
