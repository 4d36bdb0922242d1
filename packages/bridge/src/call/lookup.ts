import { AgentSpacesError, type CallMessage } from '@agent-spaces/capabilities';
import type { HostCapability, HostFunction } from '../types.js';
import type { ParamsCheck } from '../validate.js';

/** A function as the bridge dispatches it; its params check is made on its first call ({@link checkedParams}). */
export interface CallTarget {
  capability: HostCapability;
  fn: HostFunction;
  check: ParamsCheck | undefined;
  schemaError: string | undefined;
}

/** The functions calls can reach, by capability id, then function name. */
export type FunctionTable = ReadonlyMap<string, ReadonlyMap<string, CallTarget>>;

/** The table of `capabilities`; throws `NAME_COLLISION` when two share an id. */
export function functionTable(capabilities: readonly HostCapability[]): FunctionTable {
  const table = new Map<string, Map<string, CallTarget>>();
  for (const capability of capabilities) {
    if (table.has(capability.id)) {
      throw new AgentSpacesError('NAME_COLLISION', `Two capabilities have the id '${capability.id}'`, { id: capability.id });
    }
    const targets = new Map<string, CallTarget>();
    for (const [name, fn] of capability.functions) targets.set(name, { capability, fn, check: undefined, schemaError: undefined });
    table.set(capability.id, targets);
  }
  return table;
}

/** The step that looks the call's function up: `CAPABILITY_NOT_FOUND` / `FUNCTION_NOT_FOUND` listing what is available. */
export function lookup(table: FunctionTable, message: CallMessage): CallTarget {
  const targets = table.get(message.capability);
  if (!targets) {
    throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `No capability ${quote(message.capability)} in this space`, { available: [...table.keys()] });
  }
  const target = targets.get(message.function);
  if (!target) {
    throw new AgentSpacesError('FUNCTION_NOT_FOUND', `Capability '${message.capability}' has no function ${quote(message.function)}`, {
      available: [...targets.keys()],
    });
  }
  return target;
}

function quote(value: unknown): string {
  return typeof value === 'string' ? `'${value}'` : `(${typeof value})`;
}
