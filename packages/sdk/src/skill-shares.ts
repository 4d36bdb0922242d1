/**
 * Who may see a skill (docs/definition-formats.md, "Who owns a skill"): a skill a client saved is shared with the
 * whole space (the default, and always so for the operator's skills), kept private to its owner, or shared with the
 * members of some groups. A skill a client may not see is, to that client, a skill that does not exist.
 */
import { AgentSpacesError, isRecord } from '@agent-spaces/capabilities';

/** With whom a skill is shared: everyone of the space, its owner only, or the members of any of `groups`. */
export type SkillShare = 'space' | 'private' | { groups: string[] };

/** A share as an owner record keeps it: absent means `space`. */
export type RecordedShare = Exclude<SkillShare, 'space'>;

/** Who a skill belongs to: the operator, or the client of the given id hash, who shares it as `share` (absent: `space`). */
export type SkillOwner = { kind: 'operator' } | { kind: 'client'; id: string; share?: RecordedShare };

/** Who looks at the skills: a client id (absent: the operator, who sees every skill) and its groups. */
export interface SkillViewer {
  owner?: string | undefined;
  groups?: readonly string[] | undefined;
}

/** Most groups a skill is shared with, and most characters of a group's name. */
const MAX_GROUPS = 32;
const MAX_GROUP = 128;

/** `share` checked (a group list sorted, without duplicates); throws `INVALID_ARGUMENTS` (field `share`) for a bad one. */
export function checkShare(share: unknown): SkillShare {
  if (share === 'space' || share === 'private') return share;
  const groups = isRecord(share) && Object.keys(share).length === 1 ? share.groups : undefined;
  const valid = Array.isArray(groups) && groups.length > 0 && groups.length <= MAX_GROUPS && groups.every((g) => typeof g === 'string' && g !== '' && g.length <= MAX_GROUP);
  if (!valid) {
    throw new AgentSpacesError('INVALID_ARGUMENTS', `share: must be 'space', 'private' or { groups: [...] } (1 to ${MAX_GROUPS} group names of 1 to ${MAX_GROUP} characters)`, { field: 'share' });
  }
  return { groups: [...new Set(groups as string[])].sort() };
}

/** What an owner record keeps of `share` (nothing for `space`). */
export const recordedShare = (share: SkillShare): RecordedShare | undefined => (share === 'space' ? undefined : share);

/** A recorded share read back from JSON (an owner record's, or a database row's); anything else reads as `private`, failing closed. */
export function readShare(value: unknown): RecordedShare | undefined {
  if (value === undefined || value === null) return undefined;
  if (value === 'private') return 'private';
  const groups = isRecord(value) && Array.isArray(value.groups) ? value.groups.filter((g): g is string => typeof g === 'string') : [];
  return groups.length > 0 ? { groups } : 'private';
}

/** With whom a skill of `owner` is shared. */
export const shareOf = (owner: SkillOwner): SkillShare => (owner.kind === 'client' ? (owner.share ?? 'space') : 'space');

/**
 * Whether `viewer` may see (list, find, call, replace or delete) a skill of `owner`, whose client id hash is compared
 * with `hash(viewer.owner)`: the operator sees every skill; a client sees those shared with the space, its own, and
 * those shared with a group it is in.
 */
export function maySee(owner: SkillOwner, viewer: SkillViewer, hash: (client: string) => string): boolean {
  if (viewer.owner === undefined || owner.kind === 'operator' || owner.share === undefined) return true;
  if (owner.id === hash(viewer.owner)) return true;
  const share = owner.share;
  return share !== 'private' && share.groups.some((group) => viewer.groups?.includes(group) === true);
}
