import { AgentSpacesError, isAgentSpacesError, toWireError, type CallMessage, type WireError } from '@agent-spaces/capabilities';
import type { PendingCall } from '../types.js';

/**
 * The wire error a call ends with: `ABORTED` when the run was aborted while its handler ran, else the error's own code
 * (`HANDLER_ERROR` for a plain error thrown once the handler ran, `INTERNAL` before); placed by {@link where}.
 */
export function callError(error: unknown, message: CallMessage, callId: string, signal: AbortSignal, executed: boolean): WireError {
  if (signal.aborted && executed && !isAgentSpacesError(error)) return { code: 'ABORTED', message: 'The run was aborted during the call', ...where(message, callId) };
  return { ...toWireError(error, executed ? 'HANDLER_ERROR' : 'INTERNAL'), ...where(message, callId) };
}

/** The fields that place an error: the call's id, capability and function. */
export function where(message: CallMessage, callId: string): Pick<WireError, 'callId' | 'capability' | 'function'> {
  return { callId, capability: String(message?.capability), function: String(message?.function) };
}

/** The message of anything thrown, never throwing itself. */
export function errorMessage(error: unknown): string {
  try {
    return error instanceof Error ? error.message : String(error);
  } catch {
    return 'unknown error';
  }
}

/** `<capability>.<function>` of a call, for messages. */
export function label(call: PendingCall): string {
  return `${call.capability.id}.${call.function.name}`;
}

/** The error of a call whose run was aborted while it waited (for the policy, an approval). */
export function abortedWhileWaiting(what = 'the call waited'): AgentSpacesError {
  return new AgentSpacesError('ABORTED', `The run was aborted while ${what}`);
}
