import type { HostCapability } from '@agent-spaces/bridge';

/** One function of a space's capabilities, as a {@link FunctionFilter} sees it. */
export interface OfferedFunction {
  /** Capability id (`train-schedule`). */
  capability: string;
  /** Function name (`getSchedule`). */
  function: string;
  /** True when the function or its capability requires approval (a policy rule may still ask for others). */
  requiresApproval: boolean;
}

/** Picks the functions a space leaves out (`createSpace({ hideFunctions })`): true hides the function. */
export type FunctionFilter = (fn: OfferedFunction) => boolean;

/** The capabilities a space offers without the functions `hide` picks, and the names hidden per capability id. */
export function withoutHidden(capabilities: readonly HostCapability[], hide: FunctionFilter | undefined): { capabilities: HostCapability[]; hidden: Map<string, Set<string>> } {
  const hidden = new Map<string, Set<string>>();
  if (!hide) return { capabilities: [...capabilities], hidden };
  const offered = capabilities.map((capability) => {
    const names = [...capability.functions.values()]
      .filter((fn) => hide({ capability: capability.id, function: fn.name, requiresApproval: fn.requiresApproval || capability.config.requiresApproval === true }))
      .map((fn) => fn.name);
    if (names.length === 0) return capability;
    hidden.set(capability.id, new Set(names));
    return { ...capability, functions: new Map([...capability.functions].filter(([name]) => !names.includes(name))) };
  });
  return { capabilities: offered, hidden };
}

/**
 * Rewrites the declarations (`<id>.d.ts`) of the capabilities with hidden functions, so agent code is typechecked
 * against what the space offers (the compiler, which writes the declarations, is loaded only when something is hidden).
 */
export async function hideDeclarations(declarations: Map<string, string>, capabilities: readonly HostCapability[], hidden: ReadonlyMap<string, ReadonlySet<string>>): Promise<void> {
  if (hidden.size === 0) return;
  const { hideDeclaredFunctions } = await import('@agent-spaces/compiler');
  for (const capability of capabilities) {
    const names = hidden.get(capability.id);
    const file = `${capability.id}.d.ts`;
    const text = declarations.get(file);
    if (names && text !== undefined) declarations.set(file, await hideDeclaredFunctions(text, capability.exportName, names));
  }
}
