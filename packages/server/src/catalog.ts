import { CAPABILITY_PREFIX, STD_MODULE, capabilitiesDir, resolveOutDir, type CatalogEntry } from '@agent-spaces/capabilities';
import { listBuiltCapabilities, readCatalog, resolveCapabilityNames } from '@agent-spaces/bridge/output';
import type { Space } from '@agent-spaces/sdk';

/** The searchable functions of a space and the `.d.ts` text of each module. */
export interface Catalog {
  entries: CatalogEntry[];
  /** Module specifier → its declarations. */
  modules: ReadonlyMap<string, string>;
}

/** Where the space's capabilities were built: its `createSpace()` options `rootDir` and `outDir`. */
export interface CatalogOptions {
  rootDir?: string;
  outDir?: string;
}

const STD_FILE = 'agent-spaces-std.d.ts';

let stdCatalog: { text: string; entries: Promise<CatalogEntry[]> } | undefined;

/**
 * The catalog of `space`: the functions of `@agent-spaces/std`, then those of each built capability from the
 * `catalog.json` the compiler wrote next to it (only the functions the space offers), and the declarations of each
 * module for `describe_capabilities`. Throws `CAPABILITY_STALE` for a capability built before the compiler wrote
 * `catalog.json`.
 */
export async function buildCatalog(space: Pick<Space, 'capabilities' | 'declarations'> & Partial<Pick<Space, 'functions'>>, options: CatalogOptions): Promise<Catalog> {
  const declarations = space.declarations();
  const entries: CatalogEntry[] = [];
  const modules = new Map<string, string>();
  const std = declarations.get(STD_FILE);
  if (std !== undefined) {
    modules.set(STD_MODULE, std);
    entries.push(...(await stdEntries(std)));
  }
  const dir = builtDir(options);
  for (const id of space.capabilities) {
    modules.set(CAPABILITY_PREFIX + id, declarations.get(`${id}.d.ts`) ?? '');
    const offered = space.functions?.get(id);
    // An entry without `function` (a sandbox-mode npm package's export) is no capability function: nothing hides it.
    entries.push(...readCatalog(dir, id).filter((entry) => !offered || entry.function === undefined || offered.includes(entry.function)));
  }
  return { entries, modules };
}

/**
 * The catalog entries of `ids` (default: every built capability), read synchronously before any space exists (the
 * server's instructions are fixed when it starts); an unbuilt or stale capability is skipped rather than reported, as
 * the instructions only take an example and a note about MCP results from them.
 */
export function builtCatalogEntries(ids: readonly string[] | undefined, options: CatalogOptions): CatalogEntry[] {
  const dir = builtDir(options);
  const attempt = <T>(read: () => T, fallback: T): T => {
    try {
      return read();
    } catch {
      return fallback;
    }
  };
  const names = ids ? attempt(() => resolveCapabilityNames(dir, ids), ids) : attempt(() => listBuiltCapabilities(dir), []);
  return names.flatMap((id) => attempt(() => readCatalog(dir, id), []));
}

function builtDir(options: CatalogOptions): string {
  return capabilitiesDir(resolveOutDir(options.rootDir ?? process.cwd(), options.outDir));
}

/** The std module's entries, read from its hand-written declarations once per process (they are the same for every space). */
function stdEntries(text: string): Promise<CatalogEntry[]> {
  if (stdCatalog?.text !== text) {
    const entries = import('@agent-spaces/compiler').then(({ declarationsCatalog }) => declarationsCatalog(text, STD_MODULE));
    stdCatalog = { text, entries };
  }
  return stdCatalog.entries;
}
