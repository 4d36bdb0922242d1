import { CAPABILITY_FILES, CAPABILITY_PREFIX, STD_MODULE } from '@agent-spaces/capabilities';
import { readBuiltFile } from '@agent-spaces/bridge/output';
import { STD_MODULE_SOURCE } from '@agent-spaces/std';
import { SANDBOX_DECLARATIONS } from './declarations.js';
import { hideDeclarations } from './offer.js';
import type { SpaceCapabilities } from './space-capabilities.js';

/** What agent code of a space sees: the modules it may import (by specifier) and their declarations (by file name). */
export interface SpaceModules {
  modules: Map<string, string>;
  declarations: Map<string, string>;
}

/**
 * The sandbox modules of `capabilities` (std, then each `@capabilities/<id>` proxy) and their declarations, with the
 * hidden functions left out of them — also out of the code of the skills of the project at `rootDir`: a space that
 * hides skills gets a skills module bundled without them.
 */
export async function spaceModules(capabilities: SpaceCapabilities, rootDir: string): Promise<SpaceModules> {
  const modules = new Map<string, string>([[STD_MODULE, STD_MODULE_SOURCE]]);
  const declarations = new Map<string, string>(SANDBOX_DECLARATIONS);
  for (const id of capabilities.ids) {
    const dir = capabilities.dirOf(id);
    modules.set(CAPABILITY_PREFIX + id, readBuiltFile(dir, id, CAPABILITY_FILES.proxy));
    declarations.set(`${id}.d.ts`, readBuiltFile(dir, id, CAPABILITY_FILES.declarations));
  }
  await hideDeclarations(declarations, capabilities.offered, capabilities.hidden);
  await hideSkills(modules, capabilities, rootDir);
  return { modules, declarations };
}

/** Replaces the built skills module of `modules` by one of the skills `capabilities` offer, when it hides some. */
async function hideSkills(modules: Map<string, string>, capabilities: SpaceCapabilities, rootDir: string): Promise<void> {
  if (capabilities.hidden.size === 0) return;
  const { SKILLS_ID, skillsModule } = await import('@agent-spaces/compiler');
  const skills = capabilities.offered.find((c) => c.id === SKILLS_ID);
  if (!skills || !capabilities.hidden.has(SKILLS_ID) || !capabilities.ids.includes(SKILLS_ID)) return;
  modules.set(CAPABILITY_PREFIX + SKILLS_ID, await skillsModule(rootDir, [...skills.functions.keys()]));
}
