import type { WireError } from './errors.js';

/**
 * The sandbox<->host protocol, typed once for both ends. The sandbox reaches the host only through
 * {@link HostPort}; the runtime checks every argument the sandbox sends before it builds a {@link CallMessage}.
 */

/** Specifier of the in-sandbox module every generated proxy imports `call` from. Agent code cannot import it. */
export const BRIDGE_MODULE = 'agent-spaces:bridge';
/** Prefix of capability module specifiers. */
export const CAPABILITY_PREFIX = '@capabilities/';
/** Specifier of the standard library module. */
export const STD_MODULE = '@agent-spaces/std';
/** Capability id under which the standard library's functions are called. */
export const STD_CAPABILITY = 'std';

/** Console levels captured from agent code. */
export type LogLevel = 'log' | 'info' | 'warn' | 'error' | 'debug';
/** Every {@link LogLevel}, in order. */
export const LOG_LEVELS: readonly LogLevel[] = ['log', 'info', 'warn', 'error', 'debug'];

/** Sandbox -> host: call one capability function. */
export interface CallMessage {
  kind: 'call';
  capability: string;
  function: string;
  params: unknown;
}

/** Host -> sandbox: the outcome of a call. Errors are data; the prelude rebuilds them as `CapabilityError`. */
export type CallOutcome = ({ ok: true; value: unknown } | { ok: false; error: WireError }) & {
  /** A replayed call's recorded return time (ms since the epoch): the sandbox's clock moves there as it is settled. */
  at?: number;
};

/** The host's side of the bridge, as the runtime sees it. */
export interface HostPort {
  /** Executes a call; never rejects: failures come back as `{ ok: false }`. */
  call(message: CallMessage, signal: AbortSignal): Promise<CallOutcome>;
}
