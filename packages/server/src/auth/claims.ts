import type { Principal } from '@agent-spaces/capabilities';

/** Bounds of what a token may carry: longer subjects, more or longer scopes or groups refuse the token. */
const CLAIM_BOUNDS = {
  /** Most characters of `sub`, of `client_id`/`azp`, and of each scope and group. */
  maxLength: 256,
  /** Most scopes, and most groups, of one token. */
  maxEntries: 256,
} as const;

/** A claim of a token that the resource server cannot accept: the token is refused (`invalid_token`) saying why. */
export class ClaimError extends Error {}

/**
 * The principal a verified token's `payload` names: `user:<sub>`, its client (`client_id`, else `azp`), its scopes
 * (`scope`, space-separated, else `scp`, an array or a string) and its groups (claim `groupsClaim`, an array of strings
 * or a space-separated string). Throws {@link ClaimError} for a token without `sub`, a claim of the wrong type, or one
 * past {@link CLAIM_BOUNDS}.
 */
export function principalOfClaims(payload: Record<string, unknown>, groupsClaim: string): Principal {
  const sub = payload.sub;
  if (typeof sub !== 'string' || sub === '') throw new ClaimError('the token has no subject (sub)');
  bounded(sub, 'sub');
  const clientId = typeof payload.client_id === 'string' ? payload.client_id : typeof payload.azp === 'string' ? payload.azp : undefined;
  if (clientId !== undefined) bounded(clientId, 'client_id');
  const scopes = payload.scope !== undefined ? words(payload.scope, 'scope') : words(payload.scp, 'scp');
  const groups = words(payload[groupsClaim], groupsClaim);
  return { id: `user:${sub}`, subject: sub, ...(clientId !== undefined ? { clientId } : {}), scopes, groups };
}

/** A claim holding a list: absent → none; an array of strings, or one space-separated string; else {@link ClaimError}. */
function words(value: unknown, claim: string): string[] {
  if (value === undefined || value === null) return [];
  const list = typeof value === 'string' ? value.split(' ').filter((word) => word !== '') : value;
  if (!Array.isArray(list) || !list.every((item): item is string => typeof item === 'string')) {
    throw new ClaimError(`the claim ${claim} must be a string or an array of strings`);
  }
  if (list.length > CLAIM_BOUNDS.maxEntries) throw new ClaimError(`the claim ${claim} has more than ${CLAIM_BOUNDS.maxEntries} entries`);
  for (const item of list) bounded(item, claim);
  return list;
}

function bounded(text: string, claim: string): void {
  if (text.length > CLAIM_BOUNDS.maxLength) throw new ClaimError(`the claim ${claim} is longer than ${CLAIM_BOUNDS.maxLength} characters`);
}
