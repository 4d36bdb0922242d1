import { AgentSpacesError, closestNames, type PoliciesConfig } from '@agent-spaces/capabilities';
import type { HostCapability } from './types.js';

/**
 * Checks every capability and function `policies.rules` and `policies.rateLimits` name against `capabilities` (those
 * of the space, std included): a rule for a name no call carries would never apply, so an unknown name, or a known
 * one in the wrong case, throws `CONFIG_INVALID` naming the key and the closest known name (`closestNames`: none when
 * every known name is far from it). Names may be a capability's id or export name and a function's generated or
 * source name; `'*'` is a rules key only.
 * @example
 * checkPolicyNames({ rules: { 'crm.CreateTicket': 'ask' } }, capabilities)
 * // CONFIG_INVALID: policies.rules["crm.CreateTicket"]: capability "crm" has no function "CreateTicket" (did you mean "crm.createTicket"?)
 */
export function checkPolicyNames(policies: Pick<PoliciesConfig, 'rules' | 'rateLimits'>, capabilities: readonly HostCapability[]): void {
  const names = knownNames(capabilities);
  for (const [field, keys, star] of [
    ['rules', Object.keys(policies.rules ?? {}), true],
    ['rateLimits', Object.keys(policies.rateLimits ?? {}), false],
  ] as const) {
    for (const key of keys) {
      if (star && key === '*') continue;
      const problem = unknownName(key, names);
      if (!problem) continue;
      const at = `policies.${field}[${JSON.stringify(key)}]`;
      const suggestion =
        problem.closest !== undefined ? ` (did you mean ${JSON.stringify(problem.closest)}?)` : names.capabilities.size === 0 ? ' (the space has no capabilities)' : '';
      throw new AgentSpacesError('CONFIG_INVALID', `${at}: ${problem.message}${suggestion}`, {
        field: at,
        ...(problem.closest === undefined ? {} : { closest: problem.closest }),
      });
    }
  }
}

/** Every name a key may use: capability names, and `'<capability>.<function>'` for each function, by capability name. */
interface KnownNames {
  capabilities: Set<string>;
  functions: Map<string, Set<string>>;
}

function knownNames(capabilities: readonly HostCapability[]): KnownNames {
  const names: KnownNames = { capabilities: new Set(), functions: new Map() };
  for (const capability of capabilities) {
    const fns = new Set([...capability.functions.values()].flatMap((fn) => [fn.name, fn.sourceName]));
    for (const name of [capability.id, capability.exportName]) {
      names.capabilities.add(name);
      names.functions.set(name, new Set([...(names.functions.get(name) ?? []), ...fns]));
    }
  }
  return names;
}

/** What is wrong with `key`, and the known name closest to it; undefined when it names a capability or function. */
function unknownName(key: string, names: KnownNames): { message: string; closest: string | undefined } | undefined {
  const dot = key.indexOf('.');
  const capability = dot === -1 ? key : key.slice(0, dot);
  const fns = names.functions.get(capability);
  if (dot === -1) {
    return fns ? undefined : { message: `no capability ${JSON.stringify(key)} in this space`, closest: closestNames(key, [...names.capabilities], 1)[0] };
  }
  const fn = key.slice(dot + 1);
  if (fns?.has(fn)) return undefined;
  const everyFunction = [...names.functions].flatMap(([c, list]) => [...list].map((f) => `${c}.${f}`));
  if (!fns) return { message: `no capability ${JSON.stringify(capability)} in this space`, closest: closestNames(key, everyFunction, 1)[0] };
  const own = [...fns].map((f) => `${capability}.${f}`);
  return { message: `capability ${JSON.stringify(capability)} has no function ${JSON.stringify(fn)}`, closest: closestNames(key, own.length > 0 ? own : everyFunction, 1)[0] };
}
