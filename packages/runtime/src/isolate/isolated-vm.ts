import { createRequire } from 'node:module';
import type ivm from 'isolated-vm';
import { AgentSpacesError } from '@agent-spaces/capabilities';

let loaded: typeof ivm | undefined;

/**
 * isolated-vm, loaded on first use (with require: importing a CommonJS package from ESM starts Node's CJS export
 * lexer, ~7 MiB of RSS). Throws `SANDBOX_UNAVAILABLE`, with the cause's first line and a pointer to `agent-spaces
 * doctor`, when its native module cannot load (not installed, its build failed or was skipped, built for another
 * Node), or when this process runs with Node's startup snapshot: isolates beside it can crash the process on Node 20+,
 * so only processes started with `--no-node-snapshot` create them (sandbox processes always are).
 */
export function isolatedVm(): typeof ivm {
  if (loaded) return loaded;
  if (!nodeSnapshotOff()) {
    const cause = 'node was started without --no-node-snapshot';
    throw new AgentSpacesError(
      'SANDBOX_UNAVAILABLE',
      `The sandbox cannot start in this process: ${cause}, which isolated-vm needs on Node 20+. Use isolation 'process' (the default: sandbox processes set the flag themselves), or start node with --no-node-snapshot (or NODE_OPTIONS=--no-node-snapshot).`,
      { cause },
    );
  }
  try {
    loaded = createRequire(import.meta.url)('isolated-vm') as typeof ivm;
    return loaded;
  } catch (error) {
    const cause = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
    throw new AgentSpacesError(
      'SANDBOX_UNAVAILABLE',
      `The sandbox cannot start: isolated-vm does not load (${cause}). Run \`agent-spaces doctor\` to see why and how to fix it.`,
      { cause },
      { cause: error },
    );
  }
}

/** True when this process was started with `--no-node-snapshot` (a flag of node's, or in `NODE_OPTIONS`). */
function nodeSnapshotOff(): boolean {
  const flags = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return flags.includes('--no-node-snapshot');
}
