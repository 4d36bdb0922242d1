/** Reads what a build left in an output folder, through `@agent-spaces/bridge/output`: `meta.json` and `index.d.ts`. */
import { CAPABILITY_FILES, capabilitiesDir, type CapabilityMeta } from '@agent-spaces/capabilities';
import { listBuiltCapabilities, readBuiltFile, readBuiltMeta } from '@agent-spaces/bridge/output';

/**
 * The `meta.json` of every capability built into `outDir`, sorted by id. Folders without a readable, well-formed
 * `meta.json` (and hidden folders) are skipped; an output folder that does not exist yet gives `[]`.
 */
export async function listCapabilities(outDir: string): Promise<CapabilityMeta[]> {
  const dir = capabilitiesDir(outDir);
  let ids: string[];
  try {
    ids = listBuiltCapabilities(dir);
  } catch {
    return [];
  }
  return ids.flatMap((id) => {
    try {
      return [readBuiltMeta(dir, id)];
    } catch {
      return [];
    }
  });
}

/**
 * The generated `index.d.ts` of capability `id` (`train-schedule`) in `outDir`. Throws `CAPABILITY_NOT_FOUND`
 * when no such capability was built.
 */
export async function readDeclarations(outDir: string, id: string): Promise<string> {
  return readBuiltFile(capabilitiesDir(outDir), id, CAPABILITY_FILES.declarations);
}
