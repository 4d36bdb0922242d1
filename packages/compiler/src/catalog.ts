/** Reads what a build left in an output folder, through `@agent-spaces/capabilities`' layout: `meta.json` and `index.d.ts`. */
import { CAPABILITY_FILES, capabilitiesDir, listBuiltCapabilities, readBuiltFile, readBuiltJson, type CapabilityMeta } from '@agent-spaces/capabilities';

function isMeta(value: unknown): value is CapabilityMeta {
  if (typeof value !== 'object' || value === null) return false;
  const meta = value as Record<string, unknown>;
  const source = meta.source as Record<string, unknown> | undefined;
  return typeof meta.id === 'string' && Array.isArray(meta.functions) && typeof source?.file === 'string';
}

/**
 * The `meta.json` of every capability built into `outDir`, sorted by id. Folders without a readable
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
      const meta = readBuiltJson(dir, id, CAPABILITY_FILES.meta);
      return isMeta(meta) && meta.id === id ? [meta] : [];
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
