/**
 * `@agent-spaces/sdk/declarations`: the declaration texts alone, for tools that write them (`capabilities build`)
 * without loading the sandbox, the bridge or ajv. It imports only the light `.d.ts` subpaths of runtime and std.
 */
import { SANDBOX_GLOBALS_DTS } from '@agent-spaces/runtime/globals-dts';
import { STD_DTS } from '@agent-spaces/std/dts';

/**
 * The declaration files (name → text) of what the sandbox gives agent code besides its capabilities: the sandbox
 * globals and `@agent-spaces/std`. Every typecheck sees them; a build writes them for editors (`sandboxDeclarations`).
 */
export const SANDBOX_DECLARATIONS: ReadonlyMap<string, string> = new Map([
  ['sandbox-globals.d.ts', SANDBOX_GLOBALS_DTS],
  ['agent-spaces-std.d.ts', STD_DTS],
]);
