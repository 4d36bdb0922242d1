import { AgentSpacesError, type Principal } from '@agent-spaces/capabilities';
import { mayAnswer, maySee } from './approvers.js';
import type { RunStore } from './stores/runs.js';
import type { ApprovalOutcome, ApprovalRequest, ApprovalStore } from './types.js';

/** An approval request as people see it: pending or how it was answered, with the script of its run when on record. */
export interface ApprovalView {
  id: string;
  status: 'pending' | 'approved' | 'denied';
  /** The request: capability, function, params (redacted when asked), message, run, session, space, times. */
  request: ApprovalRequest;
  /** How it was answered, once it was. */
  answer?: ApprovalOutcome & { answeredAt?: string };
  /** The agent code of the run that asked, when its record is kept (the run store keeps those of paused runs). */
  script?: string;
}

/**
 * One person's answer through the service: who (`by`, the name they gave; a proven user answering is recorded by
 * principal id instead), from where (`from`), and why.
 */
export interface ServiceAnswer {
  approved: boolean;
  by: string;
  from: string;
  reason?: string;
}

/**
 * Approvals from anywhere: lists, shows and answers the requests of an approval store, for `agent-spaces approvals`,
 * the `/approvals` HTTP API and the console of `mcp serve`. Answers are written to the store, where the waiting run
 * (in this process or another, or one resumed after a restart) takes them; the first answer wins. Expired requests
 * count as denied: the service answers them so on sight, so a late approval can never let one run.
 *
 * A viewer or answerer is a {@link Principal} (the client of the approvals API); none is the host's operator, who
 * sees and may answer every request. A principal sees the requests it made and those it may answer (the request's
 * `approvers`: `others`, `groups`), and may answer only the latter (`APPROVER_NOT_ALLOWED`).
 */
export class ApprovalService {
  readonly #approvals: ApprovalStore;
  readonly #runs: RunStore | undefined;

  constructor(stores: { approvals: ApprovalStore; runs?: RunStore }) {
    this.#approvals = stores.approvals;
    this.#runs = stores.runs;
  }

  /**
   * The pending requests `viewer` may see, with their scripts, oldest first (expired ones are denied first and left
   * out); no viewer: all of them.
   */
  async list(viewer?: Principal): Promise<ApprovalView[]> {
    const views: ApprovalView[] = [];
    for (const request of await this.#approvals.pending()) {
      if (viewer && !maySee(request, viewer)) continue;
      if (await this.#expire(request)) continue;
      views.push({ id: request.id, status: 'pending', request, ...(await this.#script(request)) });
    }
    return views;
  }

  /** Request `id` with its script; `APPROVAL_NOT_FOUND` when none is on record, or `viewer` may not see it. */
  async show(id: string, viewer?: Principal): Promise<ApprovalView> {
    const record = await this.#approvals.get(id);
    if (!record || (viewer && !maySee(record.request, viewer))) throw notFound(id);
    if (!record.answer && (await this.#expire(record.request))) return this.show(id, viewer);
    const status = !record.answer ? 'pending' : record.answer.approved ? 'approved' : 'denied';
    return { id, status, request: record.request, ...(record.answer ? { answer: record.answer } : {}), ...(await this.#script(record.request)) };
  }

  /** `{ script }` of the run that made `request`, when its record is on hand; a paused run's is read where it is kept. */
  async #script(request: ApprovalRequest): Promise<{ script?: string }> {
    const { runId } = request;
    if (!runId || !this.#runs) return {};
    const run = (await this.#runs.get(runId)) ?? (await this.#runs.kept(runId));
    return run ? { script: run.script } : {};
  }

  /**
   * Answers request `id` as `answerer` (none: the operator); `APPROVAL_NOT_FOUND`, `APPROVER_NOT_ALLOWED` when the
   * request's `approvers` exclude the answerer (whether or not it is still pending), or `APPROVAL_ANSWERED` when it
   * was answered (or expired) first.
   */
  async answer(id: string, answer: ServiceAnswer, answerer?: Principal): Promise<ApprovalView> {
    const before = await this.show(id);
    if (answerer && !mayAnswer(before.request, answerer)) throw notAllowed(before, answerer);
    if (before.status !== 'pending') throw answered(before);
    const by = answerer?.subject !== undefined ? answerer.id : answer.by;
    const outcome: ApprovalOutcome = { approved: answer.approved === true, by, from: answer.from, via: 'resolve', ...(answer.reason ? { reason: answer.reason } : {}) };
    if (!(await this.#approvals.answer(id, outcome))) throw answered(await this.show(id, answerer));
    return this.show(id, answerer);
  }

  /** Denies `request` when its expiry has passed; true when it is (now) answered. */
  async #expire(request: ApprovalRequest): Promise<boolean> {
    if (request.expiresAt === undefined || Date.parse(request.expiresAt) > Date.now()) return false;
    await this.#approvals.answer(request.id, expiredOutcome(request));
    return true;
  }
}

/** The answer an expired request gets: denied, `by: 'timeout'` (the one rule of expiry for every place that applies it). */
export function expiredOutcome(request: ApprovalRequest): ApprovalOutcome {
  return { approved: false, by: 'timeout', via: 'timeout', reason: `it expired at ${request.expiresAt}` };
}

function notFound(id: string): AgentSpacesError {
  return new AgentSpacesError('APPROVAL_NOT_FOUND', `No approval request ${JSON.stringify(id).slice(0, 140)} is on record`, { id: String(id).slice(0, 140) });
}

function notAllowed(view: ApprovalView, answerer: Principal): AgentSpacesError {
  const requirement = view.request.approvers ?? {};
  const why = requirement.others === true && answerer.id === (view.request.requestedBy?.id ?? 'local') ? 'the requester may not answer their own request' : `the answerer must be in ${(requirement.groups ?? []).join(' or ')}`;
  return new AgentSpacesError('APPROVER_NOT_ALLOWED', `${answerer.id} may not answer approval request ${view.id}: ${why}`, { id: view.id, requirement });
}

function answered(view: ApprovalView): AgentSpacesError {
  const how = view.answer ? `${view.answer.approved ? 'approved' : 'denied'} by ${view.answer.by}` : view.status;
  return new AgentSpacesError('APPROVAL_ANSWERED', `Approval request ${view.id} was answered already (${how})`, { id: view.id, answer: view.answer });
}
