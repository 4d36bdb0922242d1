import type { TranspiledScript } from '../assemble.js';

/**
 * Stands in for `../transpile.ts` in the sandbox process's bundle (./child-entry.ts redirects the import): the parent
 * transpiles agent code and sends the script with the run, so a sandbox process never loads esbuild or starts its
 * service (about 13 MiB of RSS and a process per sandbox process).
 */

/** Scripts of the runs going on, by code, with how many runs use each (runs of several sessions may share code). */
const scripts = new Map<string, { script: TranspiledScript; runs: number }>();

/** Hands over the script the parent made of `code` for a run about to start; the run calls the result once it is over. */
export function provideScript(code: string, script: TranspiledScript): () => void {
  const entry = scripts.get(code) ?? { script, runs: 0 };
  entry.runs++;
  scripts.set(code, entry);
  return () => {
    if (--entry.runs === 0 && scripts.get(code) === entry) scripts.delete(code);
  };
}

/** The script provided for `code`, while a run of it is going on. */
export async function transpileAsync(code: string): Promise<TranspiledScript> {
  const entry = scripts.get(code);
  if (!entry) throw new Error('the host sent no script for this run');
  return entry.script;
}

/** Nothing to warm: the parent transpiles. */
export function warmTranspiler(): void {}
