import type { TranspiledScript } from '../assemble.js';

/**
 * Stands in for `../transpile.ts` in the sandbox process's bundle (./child-entry.ts redirects the import): the parent
 * transpiles agent code and sends the script with the run, so a sandbox process never loads esbuild or starts its
 * service (about 13 MiB of RSS and a process per sandbox process).
 */

const scripts = new Map<string, TranspiledScript>();

/** Hands over the script the parent made of `code`, for the run about to start. */
export function provideScript(code: string, script: TranspiledScript): void {
  scripts.set(code, script);
}

/** The script provided for `code`, taken once. */
export async function transpileAsync(code: string): Promise<TranspiledScript> {
  const script = scripts.get(code);
  if (!script) throw new Error('the host sent no script for this run');
  scripts.delete(code);
  return script;
}

/** Nothing to warm: the parent transpiles. */
export function warmTranspiler(): void {}
