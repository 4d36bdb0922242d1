import { BRIDGE_MODULE, toWireError, type WireError } from '@agent-spaces/capabilities';
import { resolveLimits, type RunLimits } from '../limits.js';
import type { RunClock } from '../prelude/contract.js';
import { transpileAsync, type TranspiledScript } from './transpile.js';

/**
 * A run ready for an isolate. It is prepared once, where the run was asked for (the in-process `Sandbox`, or the
 * parent of a sandbox process), and executed as is: a sandbox process trusts its parent and prepares nothing again.
 */
export interface PreparedRun {
  /** The agent's code transpiled, its imports checked against the space's modules. */
  readonly script: TranspiledScript;
  /** The run's limits: the sandbox's, with the run's own over them. */
  readonly limits: RunLimits;
  /** How its clock and `Math.random` start (given by the caller to record or replay the run); absent: the real ones. */
  readonly clock?: RunClock;
}

/**
 * Prepares a run: layers `override` over the sandbox's `base` limits, transpiles `code` and checks its imports against
 * `modules`; `clock` goes with it as it is. Returns the prepared run, or the error that ends it (`CONFIG_INVALID` naming a bad limit, `SYNTAX_ERROR`,
 * `IMPORT_NOT_FOUND` listing what can be imported).
 */
export async function prepareRun(
  code: string,
  base: RunLimits,
  override: Partial<RunLimits> | undefined,
  modules: ReadonlyMap<string, string>,
  clock?: RunClock,
): Promise<{ run: PreparedRun } | { error: WireError }> {
  let limits = base;
  let script: TranspiledScript;
  try {
    if (override !== undefined) limits = resolveLimits(base, override);
    script = await transpileAsync(code);
  } catch (error) {
    const wire = toWireError(error, 'INTERNAL', 'Cannot prepare the script');
    if (wire.code !== 'IMPORT_NOT_FOUND') return { error: wire };
    return { error: { code: 'IMPORT_NOT_FOUND', message: `${wire.message}. ${importable(modules)}`, data: { available: available(modules) } } };
  }
  for (const specifier of script.imports) {
    if (specifier === BRIDGE_MODULE || !modules.has(specifier)) return { error: importNotFound(specifier, modules) };
  }
  return { run: clock ? { script, limits, clock } : { script, limits } };
}

/** `IMPORT_NOT_FOUND` for `specifier`, listing what can be imported. */
function importNotFound(specifier: string, modules: ReadonlyMap<string, string>): WireError {
  return {
    code: 'IMPORT_NOT_FOUND',
    message: `Cannot import "${specifier}". ${importable(modules)}`,
    data: { specifier, available: available(modules) },
  };
}

function available(modules: ReadonlyMap<string, string>): string[] {
  return [...modules.keys()].sort();
}

function importable(modules: ReadonlyMap<string, string>): string {
  const list = available(modules);
  return list.length === 0 ? 'Agent code can import nothing in this space.' : `Agent code can import: ${list.join(', ')}.`;
}
