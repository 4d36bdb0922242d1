import type { WireError } from './errors.js';

/**
 * The sandbox<->host protocol, typed once for both ends. The sandbox reaches the host only through
 * {@link HostPort}; every message has a `kind` and is validated by the host with {@link parseSandboxMessage}.
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

/** Sandbox -> host: one console line, already formatted in the sandbox. */
export interface LogMessage {
  kind: 'log';
  level: LogLevel;
  message: string;
}

/** Every message the sandbox sends. */
export type SandboxMessage = CallMessage | LogMessage;

/** Host -> sandbox: the outcome of a call. Errors are data; the prelude rebuilds them as `CapabilityError`. */
export type CallOutcome = { ok: true; value: unknown } | { ok: false; error: WireError };

/** The host's side of the bridge, as the runtime sees it. */
export interface HostPort {
  /** Executes a call; never rejects: failures come back as `{ ok: false }`. */
  call(message: CallMessage, signal: AbortSignal): Promise<CallOutcome>;
}

/** Validates an untrusted message from the sandbox; returns it typed, or a reason it is malformed. */
export function parseSandboxMessage(value: unknown): { ok: true; message: SandboxMessage } | { ok: false; reason: string } {
  if (typeof value !== 'object' || value === null) return { ok: false, reason: 'message is not an object' };
  const m = value as Record<string, unknown>;
  switch (m.kind) {
    case 'call':
      if (typeof m.capability !== 'string' || typeof m.function !== 'string') {
        return { ok: false, reason: 'call needs string capability and function' };
      }
      return { ok: true, message: { kind: 'call', capability: m.capability, function: m.function, params: m.params } };
    case 'log':
      if (!LOG_LEVELS.includes(m.level as LogLevel) || typeof m.message !== 'string') {
        return { ok: false, reason: 'log needs a level and a string message' };
      }
      return { ok: true, message: { kind: 'log', level: m.level as LogLevel, message: m.message } };
    default:
      return { ok: false, reason: `unknown message kind ${JSON.stringify(m.kind)}` };
  }
}
