import type { Principal } from '@agent-spaces/capabilities';
import { hiddenSkills, type SkillProject } from '@agent-spaces/sdk';
import type { SpaceVariant } from '../shared-spaces.js';

/** The module id of the skills (the compiler's `SKILLS_ID`, not imported: the compiler is loaded lazily). */
const SKILLS = 'skills';

/** Whether `principal` is a user an access token proved (`user:<sub>`): its skills are its own, across connections. */
export const isUser = (principal: Principal): boolean => principal.id.startsWith('user:');

/**
 * The skill project as a client sees it (docs/definition-formats.md, "Who owns a skill"): a user's skills belong to
 * the user (`owner` is the principal id, so they outlive the connection and are the same on every replica), any other
 * client's to its connection (`connectionId`), as before users; `groups` are the principal's.
 */
export function skillViewer(project: SkillProject, principal: Principal, connectionId: string): SkillProject {
  return { ...project, owner: isUser(principal) ? principal.id : connectionId, groups: principal.groups };
}

/**
 * The variant of a space that `viewer` may use: `variant` (or the full space) without the skills it may not see, so
 * they are neither searched, described, typechecked against nor in its isolate's skills module; `variant` itself when
 * it sees every skill. One space per set of hidden skills, shared by every client that set fits.
 */
export async function skillsView(viewer: SkillProject, variant: SpaceVariant | undefined): Promise<SpaceVariant | undefined> {
  const hidden = new Set(await hiddenSkills(viewer));
  if (hidden.size === 0) return variant;
  const hides = variant?.hideFunctions;
  return {
    key: `${variant?.key ?? ''}\0skills\0${[...hidden].sort().join(',')}`,
    hideFunctions: (fn) => (fn.capability === SKILLS && hidden.has(fn.function)) || (hides?.(fn) ?? false),
  };
}
