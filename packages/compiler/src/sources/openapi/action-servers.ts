import { readFile } from 'node:fs/promises';
import { isRecord, type Diagnostic } from '@agent-spaces/capabilities';
import { kebabCase } from '../../ir/names.js';
import { parseActionServers } from './config.js';

/** One server of seed 003's `action_servers.json` that the build turns into a capability. */
export interface ActionServerEntry {
  /** Its key under `servers`. */
  key: string;
  /** Its `name` (default: the key): the capability's name. */
  name: string;
  /** The id of the capability the build gives it (`@capabilities/<id>`), as `readOpenApiSource` names it. */
  capabilityId: string;
  url: string;
  description?: string;
}

/**
 * The servers of seed 003's `action_servers.json` that become capabilities, each with its key, name and capability
 * id, and the file's problems (as {@link parseActionServers}: skipped servers are warnings). A missing file has no
 * servers and no problem; one that is not JSON is an `INVALID_JSON` diagnostic. `shown` is the path diagnostics name.
 */
export async function readActionServerEntries(file: string, shown = file): Promise<{ servers: ActionServerEntry[]; diagnostics: Diagnostic[] }> {
  let value: unknown;
  try {
    value = JSON.parse(await readFile(file, 'utf8'));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { servers: [], diagnostics: [] };
    return { servers: [], diagnostics: [{ code: 'INVALID_JSON', severity: 'error', file: shown, message: `${shown}: ${(error as Error).message}` }] };
  }
  const { diagnostics } = parseActionServers(value, shown);
  const servers: ActionServerEntry[] = [];
  const entries = isRecord(value) && isRecord(value.servers) ? Object.entries(value.servers) : [];
  for (const [key, server] of entries) {
    // One server at a time, so each source found is known to be this key's.
    const source = parseActionServers({ servers: { [key]: server } }, shown).sources[0];
    if (!source) continue;
    servers.push({ key, name: source.name, capabilityId: kebabCase(source.name), url: source.url!, ...(source.description ? { description: source.description } : {}) });
  }
  return { servers, diagnostics };
}
