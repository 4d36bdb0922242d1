/**
 * Source of the `agent-spaces:bridge` module that generated capability modules import `call` from. The host evaluates
 * it while setting a context up, before any agent code runs: it takes the prelude's `call` and deletes the global the
 * prelude left it under. Agent code cannot import this module.
 */
import { BRIDGE_STASH_GLOBAL } from './contract.js';

type Call = (capability: string, fn: string, params: unknown) => Promise<unknown>;

const global = globalThis as unknown as Record<string, unknown>;
const taken = global[BRIDGE_STASH_GLOBAL] as Call;
Reflect.deleteProperty(global, BRIDGE_STASH_GLOBAL);

/** Calls `fn` of `capability` on the host with `params`; rejects with a `CapabilityError`. */
export const call: Call = taken;
