/**
 * How a space names its capabilities, and the one resolver of those names to built ids: an id (`train-schedule`),
 * `mcp:<server>`, `openapi:<name>`, the npm package a capability was built from (`@company/internal-sdk`), and
 * `@agent-spaces/std` (always offered, so it names nothing to load). A name that matches nothing is
 * `CAPABILITY_NOT_FOUND` with the closest names.
 */
import { AgentSpacesError } from './errors.js';
import { CAPABILITY_FILES, capabilityIdOf, listBuiltCapabilities, readBuiltJson } from './build-output.js';
import type { CapabilityMeta } from './ir.js';
import { STD_MODULE } from './protocol.js';
import { isRecord } from './shape.js';

/**
 * The built ids `names` mean, in order and without duplicates, for the capabilities built into `dir` (a
 * `capabilitiesDir`). Throws `CAPABILITY_NOT_FOUND` naming the first name that matches nothing, with up to three
 * closest names (`data.closest`).
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
      const hint = closest.length > 0 ? ` (closest: ${closest.join(', ')})` : ' (nothing is built)';
      throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `No capability ${JSON.stringify(name)} is built in ${dir}${hint}`, { name, closest });
    }
    if (!ids.includes(found)) ids.push(found);
  }
  return ids;
}

/** The other names of built capabilities: `openapi:<name>` and npm package names, by name, read from their `meta.json`. */
function aliasesOf(dir: string, built: ReadonlySet<string>): Map<string, string> {
  const aliases = new Map<string, string>();
  for (const id of built) {
    let meta: unknown;
    try {
      meta = readBuiltJson(dir, id, CAPABILITY_FILES.meta);
    } catch {
      continue;
    }
    if (!isRecord(meta)) continue;
    const { source, package: pkg } = meta as Partial<CapabilityMeta>;
    if (source?.kind === 'openapi' && source.file.startsWith('openapi.')) aliases.set(`openapi:${source.file.slice('openapi.'.length)}`, id);
    if (source?.kind === 'npm' && typeof pkg?.name === 'string') aliases.set(pkg.name, id);
  }
  return aliases;
}

/**
 * Up to `count` of `candidates` closest to `name`: fewest edits ignoring case, then fewest edits; only those within
 * half the name's length of edits, so a suggestion is never a random name.
 */
export function closestNames(name: string, candidates: readonly string[], count = 3): string[] {
  const lower = name.toLowerCase();
  const scored = [...new Set(candidates)].map((candidate) => {
    const folded = editDistance(lower, candidate.toLowerCase());
    return { candidate, folded, score: folded * 1000 + editDistance(name, candidate) };
  });
  return scored
    .filter((s) => s.folded <= Math.max(2, Math.ceil(name.length / 2)))
    .sort((a, b) => a.score - b.score || (a.candidate < b.candidate ? -1 : 1))
    .slice(0, count)
    .map((s) => s.candidate);
}

/** Levenshtein distance between `a` and `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
