import { AgentSpacesError, type CallMessage, type CallOutcome } from '@agent-spaces/capabilities';
import { endCallSpan, startCallSpan } from '../tracing.js';
import type { CallOrigin, PendingCall } from '../types.js';
import { approveCall } from './approve.js';
import { decide } from './decide.js';
import { callError } from './errors.js';
import { tellCall, tellResult } from './events.js';
import { lookup } from './lookup.js';
import { checkedParams } from './params.js';
import { recordCall } from './record.js';
import type { CallState } from './state.js';
import { isThenable } from './thenable.js';
import type { CallSteps } from './steps.js';

/**
 * One call from arrival to outcome, numbered `callId` by the bridge: tells `capabilityCall`, dispatches it (look up,
 * validate, policy, approval, rate limit, execute), redacts the outcome, records it in the audit log, tells
 * `capabilityResult` and returns it. Never rejects.
 */
export async function runCall(steps: CallSteps, callId: string, message: CallMessage, signal: AbortSignal, origin: CallOrigin): Promise<CallOutcome> {
  const started = performance.now();
  tellCall(origin, callId, message);
  const span = startCallSpan(message, callId, origin.traceContext);
  const state: CallState = { decision: undefined, executing: false, ended: false, params: undefined };
  let outcome: CallOutcome;
  try {
    outcome = { ok: true, value: await dispatch(steps, callId, message, signal, state, origin) };
  } catch (error) {
    outcome = { ok: false, error: callError(error, message, callId, signal, state.executing) };
  }
  outcome = steps.redactor.value(outcome);
  if (steps.audit) {
    const recorded = recordCall(steps.audit, { callId, message, origin, state, outcome, durationMs: performance.now() - started }, steps.redactor);
    outcome = isThenable(recorded) ? await recorded : recorded;
  }
  state.ended = true;
  endCallSpan(span, outcome, performance.now() - started);
  tellResult(origin, callId, message, outcome, performance.now() - started);
  return outcome;
}

/** The steps that may refuse the call, then its execution: resolves with the function's value, else throws. */
async function dispatch(steps: CallSteps, callId: string, message: CallMessage, signal: AbortSignal, state: CallState, origin: CallOrigin): Promise<unknown> {
  const target = lookup(steps.table, message);
  const checked = checkedParams(target, message.params);
  const params = isThenable(checked) ? await checked : checked;
  state.params = params;
  const pending: PendingCall = { id: callId, capability: target.capability, function: target.fn, params, signal, ...(origin.principal ? { principal: origin.principal } : {}) };
  const decision = decide(steps.policy, pending);
  const approval = approveCall(steps, isThenable(decision) ? await decision : decision, pending, state, origin);
  if (approval) await approval;
  if (steps.limiter) await steps.limiter.acquire(pending);
  if (signal.aborted) throw new AgentSpacesError('ABORTED', 'The run was aborted before the call executed');
  return await steps.running.execute(pending, message, origin, state);
}
