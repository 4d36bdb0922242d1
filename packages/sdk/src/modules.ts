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
 * hidden functions left out of them.
 */
export async function spaceModules(capabilities: SpaceCapabilities): Promise<SpaceModules> {
  const modules = new Map<string, string>([[STD_MODULE, STD_MODULE_SOURCE]]);
  const declarations = new Map<string, string>(SANDBOX_DECLARATIONS);
  for (const id of capabilities.ids) {
    const dir = capabilities.dirOf(id);
    modules.set(CAPABILITY_PREFIX + id, readBuiltFile(dir, id, CAPABILITY_FILES.proxy));
    declarations.set(`${id}.d.ts`, readBuiltFile(dir, id, CAPABILITY_FILES.declarations));
  }
  await hideDeclarations(declarations, capabilities.offered, capabilities.hidden);
  return { modules, declarations };
}
