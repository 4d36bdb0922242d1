import { AgentSpacesError, isAgentSpacesError } from '@agent-spaces/capabilities';
import type { PendingCall, PolicyDecision, PolicyHook } from '../types.js';
import { abortedWhileWaiting, errorMessage, label } from './errors.js';
import { isThenable } from './thenable.js';

/**
 * The policy step: what `policy` decides for `pending` (a promise only when the policy's is). A policy that throws an
 * `AgentSpacesError` fails the call with it, any other throw with `INTERNAL`; a policy that waits stops waiting
 * (`ABORTED`) when the call's signal aborts.
 */
export function decide(policy: PolicyHook, pending: PendingCall): PolicyDecision | Promise<PolicyDecision> {
  let decision: PolicyDecision | PromiseLike<PolicyDecision>;
  try {
    decision = policy.decide(pending);
  } catch (error) {
    throw policyFailure(error, pending);
  }
  return isThenable(decision) ? untilAborted(decision, pending.signal) : decision;
}

function policyFailure(error: unknown, pending: PendingCall): AgentSpacesError {
  if (isAgentSpacesError(error)) return error;
  return new AgentSpacesError('INTERNAL', `The policy failed on ${label(pending)}: ${errorMessage(error)}`);
}

/** Resolves like `promise`, or rejects with `ABORTED` as soon as `signal` aborts. */
function untilAborted<T>(promise: PromiseLike<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(abortedWhileWaiting());
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(abortedWhileWaiting());
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (value) => {
        signal.removeEventListener('abort', onAbort);
        resolve(value);
      },
      (error: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(error);
      },
    );
  });
}
