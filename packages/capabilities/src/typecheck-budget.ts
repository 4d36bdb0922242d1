import { AgentSpacesError } from './errors.js';
import { isRecord } from './shape.js';

/**
 * What one typecheck of agent code may cost before it is stopped and its run refused with `TYPECHECK_LIMIT`: the
 * config file's `typecheck` key and `createSpace({ typecheckBudget })` (docs/security.md, "The typechecker").
 */
export interface TypecheckBudget {
  /** Longest one check may take, in ms, once its worker has the space's declarations (default 5 000). */
  timeoutMs: number;
  /** Heap of a typecheck worker, in MiB (default 384); a check that needs more is stopped. */
  memoryMb: number;
  /** Largest script checked or run, in bytes of UTF-8 (default 262 144, 256 KiB); also bounds runs without a typecheck. */
  maxSourceBytes: number;
}

/** The documented defaults of {@link TypecheckBudget}. */
export const DEFAULT_TYPECHECK_BUDGET: Readonly<TypecheckBudget> = Object.freeze({
  timeoutMs: 5_000,
  memoryMb: 384,
  maxSourceBytes: 256 * 1024,
});

const MINIMUMS: Readonly<TypecheckBudget> = { timeoutMs: 1, memoryMb: 64, maxSourceBytes: 1 };

/** What is wrong with a `typecheck` budget value (`typecheck.timeoutMs must be …`), or undefined when valid. */
export function findTypecheckBudgetProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'typecheck must be an object { timeoutMs?, memoryMb?, maxSourceBytes? }';
  for (const [key, item] of Object.entries(value)) {
    if (!Object.hasOwn(MINIMUMS, key)) return `typecheck has an unknown key "${key}" (known: ${Object.keys(MINIMUMS).join(', ')})`;
    const minimum = MINIMUMS[key as keyof TypecheckBudget];
    if (item !== undefined && !(Number.isInteger(item) && (item as number) >= minimum)) return `typecheck.${key} must be an integer of at least ${minimum}`;
  }
  return undefined;
}

/** A complete budget: `budget`'s values over the defaults. */
export function resolveTypecheckBudget(budget: Partial<TypecheckBudget> = {}): TypecheckBudget {
  const defined = Object.fromEntries(Object.entries(budget).filter(([, value]) => value !== undefined));
  return { ...DEFAULT_TYPECHECK_BUDGET, ...defined };
}

/** `TYPECHECK_LIMIT` (`data.budget: 'size'`) for agent code longer than `maxSourceBytes`, else undefined. */
export function oversizedSource(code: string, maxSourceBytes: number): AgentSpacesError | undefined {
  const bytes = Buffer.byteLength(code);
  if (bytes <= maxSourceBytes) return undefined;
  const message = `The script is ${bytes} bytes, over the budget of ${maxSourceBytes} (typecheck.maxSourceBytes)`;
  return new AgentSpacesError('TYPECHECK_LIMIT', message, { budget: 'size', limit: maxSourceBytes });
}
