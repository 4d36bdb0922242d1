/**
 * The one resolver of the names a space gives its capabilities to built ids: an id (`train-schedule`),
 * `mcp:<server>`, `openapi:<name>`, the npm package a capability was built from (`@company/internal-sdk`), and
 * `@agent-spaces/std` (always offered, so it names nothing to load). A name that matches nothing is
 * `CAPABILITY_NOT_FOUND` with the closest names, or else the built ids.
 */
import { AgentSpacesError, STD_MODULE, capabilityIdOf, closestNames } from '@agent-spaces/capabilities';
import { listBuiltCapabilities } from './files.js';
import { readBuiltMeta } from './meta.js';

/**
 * The built ids `names` mean, in order and without duplicates, for the capabilities built into `dir` (a
 * `capabilitiesDir`). Throws `CAPABILITY_NOT_FOUND` naming the first name that matches nothing, with up to three
 * closest names (`data.closest`); when none is close, the message lists the ids that are built.
 * @example
 * resolveCapabilityNames(dir, ['@company/internal-sdk', 'mcp:slack', 'openapi:todos']) // ['company-internal-sdk', 'mcp-slack', 'todos']
 */
export function resolveCapabilityNames(dir: string, names: readonly string[]): string[] {
  let built: Set<string> | undefined;
  let aliases: Map<string, string> | undefined;
  const ids: string[] = [];
  for (const name of names) {
    if (name === STD_MODULE) continue;
    const id = capabilityIdOf(name);
    built ??= new Set(listBuiltCapabilities(dir));
    const found = built.has(id) && !name.startsWith('openapi:') ? id : (aliases ??= aliasesOf(dir, built)).get(name);
    if (found === undefined) {
      const closest = closestNames(name, [...built, ...(aliases ??= aliasesOf(dir, built)).keys()]);
      const hint = closest.length > 0 ? ` (closest: ${closest.join(', ')})` : ` (${builtList(built)})`;
      throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `No capability ${JSON.stringify(name)} is built in ${dir}${hint}`, { name, closest });
    }
    if (!ids.includes(found)) ids.push(found);
  }
  return ids;
}

/** How many built ids a message lists before it says how many more there are. */
const LISTED_IDS = 20;

/** `built: a, b, c` (sorted, the first {@link LISTED_IDS}, then `and N more`), or `nothing is built`. */
function builtList(built: ReadonlySet<string>): string {
  if (built.size === 0) return 'nothing is built';
  const ids = [...built].sort();
  const more = ids.length > LISTED_IDS ? ` and ${ids.length - LISTED_IDS} more` : '';
  return `built: ${ids.slice(0, LISTED_IDS).join(', ')}${more}`;
}

/**
 * The other names of built capabilities: `openapi:<name>` and npm package names, by name, read from their `meta.json`
 * (a capability whose `meta.json` does not read has none: loading it reports the problem).
 */
function aliasesOf(dir: string, built: ReadonlySet<string>): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const id of built) {
    let meta;
    try {
      meta = readBuiltMeta(dir, id);
    } catch {
      continue;
    }
    const { source, package: pkg } = meta;
    if (source.kind === 'openapi' && source.file.startsWith('openapi.')) aliases.set(`openapi:${source.file.slice('openapi.'.length)}`, id);
    if (source.kind === 'npm' && pkg !== undefined) aliases.set(pkg.name, id);
  }
  return aliases;
}
