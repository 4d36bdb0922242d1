/** Reads what a build left in an output folder: the `meta.json` of every capability and its `index.d.ts`. */
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentSpacesError, type CapabilityMeta } from '@agent-spaces/capabilities';
import { CAPABILITIES_DIR, capabilityDir } from './emit/write.js';
import { isModuleId } from './ir/names.js';

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
  const entries = await readdir(join(outDir, CAPABILITIES_DIR), { withFileTypes: true }).catch(() => []);
  const metas = await Promise.all(
    entries
      .filter((entry) => entry.isDirectory() && !entry.name.startsWith('.'))
      .map(async (entry) => {
        const text = await readFile(join(outDir, CAPABILITIES_DIR, entry.name, 'meta.json'), 'utf8').catch(() => undefined);
        if (text === undefined) return undefined;
        try {
          const value: unknown = JSON.parse(text);
          return isMeta(value) && value.id === entry.name ? value : undefined;
        } catch {
          return undefined;
        }
      }),
  );
  return metas.filter((meta) => meta !== undefined).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

/**
 * The generated `index.d.ts` of capability `id` (`train-schedule`) in `outDir`. Throws `CAPABILITY_NOT_FOUND`
 * when no such capability was built.
 */
export async function readDeclarations(outDir: string, id: string): Promise<string> {
  const notFound = () =>
    new AgentSpacesError('CAPABILITY_NOT_FOUND', `No built capability "${id}" in ${outDir} (run \`agent-spaces capabilities build\`)`, { id, outDir });
  if (!isModuleId(id)) throw notFound();
  try {
    return await readFile(join(capabilityDir(outDir, id), 'index.d.ts'), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw notFound();
    throw error;
  }
}
