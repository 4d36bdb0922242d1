import { randomUUID } from 'node:crypto';
import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import type { ApprovalOutcome, ApprovalRequest, CallOrigin, PendingCall, PolicyDecision } from '../types.js';
import { label } from './errors.js';
import { recordPending } from './record.js';
import type { CallState } from './state.js';
import type { CallSteps } from './steps.js';

/**
 * The approval step: applies the policy's `decision` to `pending`. Returns when the call may run (a promise only when
 * someone is asked), else records why not in `state` and throws (`POLICY_DENIED`, `APPROVAL_DENIED`, `ABORTED`).
 */
export function approveCall(steps: CallSteps, decision: PolicyDecision, pending: PendingCall, state: CallState, origin: CallOrigin): Promise<void> | undefined {
  const by = decision.by ?? 'policy';
  switch (decision.kind) {
    case 'allow':
      state.decision = { kind: 'allow', by };
      return undefined;
    case 'deny':
      state.decision = { kind: 'deny', reason: decision.reason, by };
      throw new AgentSpacesError('POLICY_DENIED', `Policy denied ${label(pending)}: ${decision.reason}`, { reason: decision.reason });
    case 'ask':
      state.decision = { kind: 'ask', message: decision.message, approved: false, by };
      return askForCall(steps, decision.message, by, pending, state, origin);
    default:
      return assertNever(decision);
  }
}

/**
 * Asks whether `pending` may run: the request is put on record in the audit log first, then asked through the
 * approval desk, with `approvalRequired` / `approvalResolved` events. Throws `APPROVAL_DENIED` unless approved.
 */
async function askForCall(steps: CallSteps, message: string, by: string, pending: PendingCall, state: CallState, origin: CallOrigin): Promise<void> {
  const request = callRequest(steps, pending, message, origin);
  if (steps.audit && steps.approvals.canAsk(origin.onApproval)) await recordPending(steps.audit, pending.id, request, by);
  const answer = await ask(steps, request, pending.signal, origin, pending.id);
  if (answer.approved) await origin.beforeApprovedCall?.(request.id);
  state.decision = { kind: 'ask', message, by, approved: answer.approved, answeredBy: answer.by, ...(answer.from ? { answeredFrom: answer.from } : {}), ...(answer.reason ? { reason: answer.reason } : {}) };
  if (!answer.approved) {
    const why = answer.reason ?? (answer.by === 'timeout' ? 'it timed out' : `${answer.by} denied it`);
    throw new AgentSpacesError('APPROVAL_DENIED', `${label(pending)} was not approved: ${why}`, { message, by: answer.by });
  }
}

/**
 * Asks for approval of a whole script before it runs (`Bridge.approveScript`): undefined when approved, else the
 * error the run ends with (`APPROVAL_DENIED`, or `ABORTED` when `signal` aborts while it waits).
 */
export async function approveScript(steps: CallSteps, code: string, origin: CallOrigin & { runId: string }, signal: AbortSignal): Promise<WireError | undefined> {
  const request: ApprovalRequest = {
    id: `script-${origin.runId}`,
    capability: '',
    function: '',
    params: { code },
    message: `Run this script?\n${code}`,
    runId: origin.runId,
    ...(origin.sessionId ? { sessionId: origin.sessionId } : {}),
    ...(steps.space ? { space: steps.space } : {}),
  };
  let answer: ApprovalOutcome;
  try {
    answer = await ask(steps, request, signal, origin);
  } catch {
    return { code: 'ABORTED', message: 'The run was aborted while its script waited for approval' };
  }
  if (answer.approved) return undefined;
  return { code: 'APPROVAL_DENIED', message: `The script was not approved: ${answer.reason ?? `${answer.by} denied it`}`, data: { by: answer.by } };
}

/** The approval request of a pending call, with secrets redacted. */
function callRequest(steps: CallSteps, pending: PendingCall, message: string, origin: CallOrigin): ApprovalRequest {
  return {
    // Unique beyond the bridge: the store may be shared, and a resumed run numbers its calls afresh.
    id: randomUUID(),
    capability: pending.capability.id,
    function: pending.function.name,
    params: steps.redactor.value(pending.params),
    message: steps.redactor.text(message),
    ...(origin.runId ? { runId: origin.runId } : {}),
    ...(origin.sessionId ? { sessionId: origin.sessionId } : {}),
    ...(steps.space ? { space: steps.space } : {}),
  };
}

/**
 * Asks through the approval desk (`origin.onApproval` answers, when given, instead of the bridge's approver), telling
 * `origin` when the request is pending and when it is answered; `callId` is the waiting call's (none: the script's).
 */
async function ask(steps: CallSteps, request: ApprovalRequest, signal: AbortSignal, origin: CallOrigin, callId?: string): Promise<ApprovalOutcome> {
  const { onEvent: listener, onApproval: approver } = origin;
  const { id, capability, function: fn, params, message } = request;
  const source = callId === undefined ? 'script' : 'capability';
  const call = callId === undefined ? {} : { callId };
  const onPending = () => listener?.({ type: 'approvalRequired', id, ...call, source, capability, function: fn, params, message });
  const answer = await steps.approvals.ask(request, signal, { onPending, ...(approver ? { approver } : {}) });
  if (listener && steps.approvals.canAsk(approver)) {
    listener({ type: 'approvalResolved', id, approved: answer.approved, by: answer.by, ...(answer.reason ? { reason: answer.reason } : {}) });
  }
  return answer;
}

function assertNever(value: never): never {
  throw new AgentSpacesError('INTERNAL', `Unknown policy decision ${JSON.stringify(value)}`);
}
