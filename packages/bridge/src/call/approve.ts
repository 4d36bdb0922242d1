import { randomUUID } from 'node:crypto';
import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import { mayAnswer, requesterOf } from '../approvers.js';
import type { ApprovalOutcome, ApprovalRequest, ApprovalRequirement, CallOrigin, PendingCall, PolicyDecision } from '../types.js';
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
      return askForCall(steps, { message: decision.message, by, approvers: decision.approvers ?? steps.approvers }, pending, state, origin);
    default:
      return assertNever(decision);
  }
}

/** What the policy asked with: the message, the rule that asked, and who may answer. */
interface Question {
  message: string;
  by: string;
  approvers: ApprovalRequirement | undefined;
}

/**
 * Asks whether `pending` may run: the request is put on record in the audit log first, then asked through the
 * approval desk, with `approvalRequired` / `approvalResolved` events. Throws `APPROVAL_DENIED` unless approved.
 */
async function askForCall(steps: CallSteps, question: Question, pending: PendingCall, state: CallState, origin: CallOrigin): Promise<void> {
  const { message, by } = question;
  const request = callRequest(steps, pending, question, origin);
  const askedFrom = askedOrigin(request, origin);
  if (steps.audit && steps.approvals.canAsk(askedFrom.onApproval, askedFrom.awaitAnswer)) await recordPending(steps.audit, pending.id, request, by, pending.principal);
  const answer = await ask(steps, request, pending.signal, askedFrom, pending.id);
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
  const requestedBy = requesterOf(origin.principal);
  const request: ApprovalRequest = {
    id: `script-${origin.runId}`,
    capability: '',
    function: '',
    params: { code },
    message: `Run this script?\n${code}`,
    runId: origin.runId,
    ...(origin.sessionId ? { sessionId: origin.sessionId } : {}),
    ...(steps.space ? { space: steps.space } : {}),
    ...(requestedBy ? { requestedBy } : {}),
    ...(steps.approvers ? { approvers: steps.approvers } : {}),
  };
  let answer: ApprovalOutcome;
  try {
    answer = await ask(steps, request, signal, askedOrigin(request, origin));
  } catch {
    return { code: 'ABORTED', message: 'The run was aborted while its script waited for approval' };
  }
  if (answer.approved) return undefined;
  return { code: 'APPROVAL_DENIED', message: `The script was not approved: ${answer.reason ?? `${answer.by} denied it`}`, data: { by: answer.by } };
}

/**
 * `origin` as the request is asked from: when its requester may not answer it (`approvers`), the origin's own approver
 * (over MCP: the requester's client) is left out and the request waits for an eligible answer through the store.
 */
function askedOrigin(request: ApprovalRequest, origin: CallOrigin): CallOrigin & { awaitAnswer?: boolean } {
  if (mayAnswer(request, request.requestedBy ?? { id: 'local' })) return origin;
  return { ...origin, onApproval: undefined, awaitAnswer: true };
}

/** The approval request of a pending call, with secrets redacted, its requester and who may answer it. */
function callRequest(steps: CallSteps, pending: PendingCall, { message, approvers }: Question, origin: CallOrigin): ApprovalRequest {
  const requestedBy = requesterOf(pending.principal);
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
    ...(requestedBy ? { requestedBy } : {}),
    ...(approvers ? { approvers } : {}),
  };
}

/**
 * Asks through the approval desk (`origin.onApproval` answers, when given, instead of the bridge's approver), telling
 * `origin` when the request is pending and when it is answered; `callId` is the waiting call's (none: the script's).
 */
async function ask(steps: CallSteps, request: ApprovalRequest, signal: AbortSignal, origin: CallOrigin & { awaitAnswer?: boolean }, callId?: string): Promise<ApprovalOutcome> {
  const { onEvent: listener, onApproval: approver, awaitAnswer = false } = origin;
  const { id, capability, function: fn, params, message } = request;
  const source = callId === undefined ? 'script' : 'capability';
  const call = callId === undefined ? {} : { callId };
  const onPending = () => listener?.({ type: 'approvalRequired', id, ...call, source, capability, function: fn, params, message });
  const answer = await steps.approvals.ask(request, signal, { onPending, awaitAnswer, ...(approver ? { approver } : {}) });
  if (listener && steps.approvals.canAsk(approver, awaitAnswer)) {
    listener({ type: 'approvalResolved', id, approved: answer.approved, by: answer.by, ...(answer.reason ? { reason: answer.reason } : {}) });
  }
  return answer;
}

function assertNever(value: never): never {
  throw new AgentSpacesError('INTERNAL', `Unknown policy decision ${JSON.stringify(value)}`);
}
