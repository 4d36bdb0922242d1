import type { CallMessage, CallOutcome, HandlerContext } from '@agent-spaces/capabilities';
import type { CallOrigin } from '../types.js';
import type { CallState } from './state.js';

/** Tells `listener` of `event`; what it throws is ignored (observers must not change the outcome of a call). */
export function notify<E>(listener: (event: E) => void, event: E): void {
  try {
    listener(event);
  } catch {
    // Observers must not change the outcome of a call.
  }
}

/** The `capabilityCall` event of a call that just arrived. */
export function tellCall(origin: CallOrigin, callId: string, message: CallMessage): void {
  if (origin.onEvent) notify(origin.onEvent, { type: 'capabilityCall', callId, capability: message?.capability, function: message?.function, params: message?.params });
}

/** The `capabilityResult` event of a call that ended with `outcome` after `durationMs`. */
export function tellResult(origin: CallOrigin, callId: string, message: CallMessage, outcome: CallOutcome, durationMs: number): void {
  if (!origin.onEvent) return;
  const { capability, function: fn } = message ?? {};
  notify(
    origin.onEvent,
    outcome.ok
      ? { type: 'capabilityResult', callId, capability, function: fn, ok: true, durationMs }
      : { type: 'capabilityResult', callId, capability, function: fn, ok: false, durationMs, error: outcome.error },
  );
}

/**
 * The handler's `context.progress`: each report becomes a `progress` event of the call, until the call has ended (a
 * no-op when nobody listens).
 */
export function progressOf(message: CallMessage, callId: string, origin: CallOrigin, state: CallState): HandlerContext['progress'] {
  const { onEvent } = origin;
  if (!onEvent) return ignoreProgress;
  return (update) => {
    if (state.ended || typeof update?.progress !== 'number') return;
    const { progress, total, message: text } = update;
    notify(onEvent, {
      type: 'progress',
      callId,
      capability: message.capability,
      function: message.function,
      progress,
      ...(typeof total === 'number' ? { total } : {}),
      ...(typeof text === 'string' ? { message: text } : {}),
    });
  };
}

function ignoreProgress(): void {}
