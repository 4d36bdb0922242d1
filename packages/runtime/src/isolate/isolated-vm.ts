import { createRequire } from 'node:module';
import type ivm from 'isolated-vm';
import { AgentSpacesError } from '@agent-spaces/capabilities';

let loaded: typeof ivm | undefined;

/**
 * isolated-vm, loaded on first use (with require: importing a CommonJS package from ESM starts Node's CJS export
 * lexer, ~7 MiB of RSS). Throws `SANDBOX_UNAVAILABLE` when its native module cannot load (not installed, its build
 * failed or was skipped, built for another Node), with the cause's first line and a pointer to `agent-spaces doctor`.
 */
export function isolatedVm(): typeof ivm {
  if (loaded) return loaded;
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
