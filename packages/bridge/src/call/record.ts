import { AgentSpacesError, LOCAL_PRINCIPAL, type CallMessage, type CallOutcome, type Principal, type Redactor } from '@agent-spaces/capabilities';
import { isoNow, type AuditEntry, type AuditPrincipal, type AuditSink } from '../stores/audit-log.js';
import type { ApprovalRequest, CallDecision, CallOrigin } from '../types.js';
import { errorMessage, where } from './errors.js';
import { isThenable } from './thenable.js';
import type { CallState } from './state.js';

type AuditCallEntry = Extract<AuditEntry, { outcome: unknown }>;
type AuditDecision = NonNullable<AuditCallEntry['decision']>;

/** One ended call, as the record step puts it on record. */
export interface EndedCall {
  callId: string;
  message: CallMessage;
  origin: CallOrigin;
  state: CallState;
  outcome: CallOutcome;
  durationMs: number;
}

/**
 * The record step: appends the audit line of `call` (params redacted) and returns its outcome — a promise only when
 * the store's append returns one. Fail closed: a call that cannot be put on record does not hand its result back, it
 * fails `INTERNAL` (`STORE_UNAVAILABLE` when a shared store could not be reached).
 */
export function recordCall(audit: AuditSink, call: EndedCall, redactor: Redactor): CallOutcome | Promise<CallOutcome> {
  const failed = (error: unknown): CallOutcome => ({ ok: false, error: { ...notRecorded(error), ...where(call.message, call.callId) } });
  try {
    const appended = audit.append(auditEntry(call, redactor));
    return isThenable(appended) ? Promise.resolve(appended).then(() => call.outcome, failed) : call.outcome;
  } catch (error) {
    return failed(error);
  }
}

/**
 * Puts a call that starts waiting for approval on record before anyone is asked (a kill of the host while it waits
 * then leaves the question in the log). Fail closed: a question that cannot be put on record is not asked.
 */
export async function recordPending(audit: AuditSink, callId: string, request: ApprovalRequest, by: string, principal: Principal | undefined): Promise<void> {
  const { capability, function: fn, params, message, runId, sessionId } = request;
  try {
    await audit.append({
      time: isoNow(),
      ...(runId ? { runId } : {}),
      ...(sessionId ? { sessionId } : {}),
      ...(isNamed(principal) ? { principal: auditPrincipal(principal) } : {}),
      callId,
      approvalId: request.id,
      capability,
      function: fn,
      params,
      pending: 'approval',
      decision: { kind: 'ask', by, message },
    });
  } catch (error) {
    const { code, message: why, data } = notRecorded(error);
    throw new AgentSpacesError(code, why, data);
  }
}

/** Why an audit line was not written: `STORE_UNAVAILABLE` when the store says so, else `INTERNAL`. */
function notRecorded(error: unknown): { code: 'INTERNAL' | 'STORE_UNAVAILABLE'; message: string; data?: Record<string, unknown> } {
  const message = `The audit log could not be written: ${errorMessage(error)}`;
  if (error instanceof AgentSpacesError && error.code === 'STORE_UNAVAILABLE') return { code: 'STORE_UNAVAILABLE', message, ...(error.data ? { data: error.data } : {}) };
  return { code: 'INTERNAL', message };
}

/** The audit entry of a call, built field by field: it is made for every call. */
function auditEntry({ callId, message, origin, state, outcome, durationMs }: EndedCall, redactor: Redactor): AuditCallEntry {
  const params = state.params ?? '(not valid params)';
  const entry: AuditCallEntry = {
    time: isoNow(),
    callId,
    capability: String(message?.capability),
    function: String(message?.function),
    params: redactor.value(params),
    outcome: outcome.ok ? { ok: true } : { ok: false, code: outcome.error.code, message: outcome.error.message },
    durationMs: Math.round(durationMs * 1000) / 1000,
  };
  if (origin.runId) entry.runId = origin.runId;
  if (origin.sessionId) entry.sessionId = origin.sessionId;
  if (isNamed(origin.principal)) entry.principal = auditPrincipal(origin.principal);
  if (state.decision) entry.decision = auditDecision(state.decision);
  return entry;
}

/** True for a principal other than `local`: lines of `local` calls have no principal, as before identities. */
function isNamed(principal: Principal | undefined): principal is Principal {
  return principal !== undefined && principal.id !== LOCAL_PRINCIPAL.id;
}

/** The principal as an audit line names it: id, subject, client and groups (scopes are left out). */
function auditPrincipal(principal: Principal): AuditPrincipal {
  const named: AuditPrincipal = { id: principal.id };
  if (principal.subject !== undefined) named.subject = principal.subject;
  if (principal.clientId !== undefined) named.clientId = principal.clientId;
  if (principal.groups.length > 0) named.groups = [...principal.groups];
  return named;
}

function auditDecision(decision: CallDecision): AuditDecision {
  const by = decision.by ?? 'policy';
  switch (decision.kind) {
    case 'allow':
      return { kind: 'allow', by };
    case 'deny':
      return { kind: 'deny', by, reason: decision.reason };
    case 'ask': {
      const asked: AuditDecision = { kind: 'ask', by, approved: decision.approved };
      if (decision.answeredBy) asked.answeredBy = decision.answeredBy;
      if (decision.answeredFrom) asked.answeredFrom = decision.answeredFrom;
      if (decision.reason) asked.reason = decision.reason;
      return asked;
    }
  }
}
