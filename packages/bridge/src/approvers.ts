import { LOCAL_PRINCIPAL, type Principal } from '@agent-spaces/capabilities';
import type { ApprovalRequest, ApprovalRequester } from './types.js';

/** Who an answer comes from, as far as eligibility goes: a principal's id and groups. */
type Answerer = Pick<Principal, 'id'> & { groups?: readonly string[] };

/** The requester on record of a call made for `principal` (none, or `local`: nothing is recorded). */
export function requesterOf(principal: Principal | undefined): ApprovalRequester | undefined {
  if (!principal || principal.id === LOCAL_PRINCIPAL.id) return undefined;
  return {
    id: principal.id,
    ...(principal.subject !== undefined ? { subject: principal.subject } : {}),
    ...(principal.groups.length > 0 ? { groups: [...principal.groups] } : {}),
  };
}

/**
 * True when `answerer` may answer `request` under its `approvers` requirement: not its requester when `others` is
 * set, and in one of `groups` when they are given. A request without a requirement is its requester's own: no other
 * principal may read or answer it (the host's operator aside). One without `requestedBy` was made by `local`.
 */
export function mayAnswer(request: Pick<ApprovalRequest, 'requestedBy' | 'approvers'>, answerer: Answerer): boolean {
  const requirement = request.approvers;
  const requester = request.requestedBy?.id ?? LOCAL_PRINCIPAL.id;
  if (!requirement) return answerer.id === requester;
  if (requirement.others === true && answerer.id === requester) return false;
  if (requirement.groups !== undefined) {
    const groups = new Set(requirement.groups);
    if (!(answerer.groups ?? []).some((group) => groups.has(group))) return false;
  }
  return true;
}

/** True when `viewer` may see `request`: it made it, or may answer it. */
export function maySee(request: Pick<ApprovalRequest, 'requestedBy' | 'approvers'>, viewer: Answerer): boolean {
  return viewer.id === (request.requestedBy?.id ?? LOCAL_PRINCIPAL.id) || mayAnswer(request, viewer);
}
