import { AgentSpacesError } from '@agent-spaces/capabilities';

/** What one run may use. Every limit ends the run with a structured error and leaves the host unharmed. */
export interface RunLimits {
  /** Wall-clock time of the run, in ms (default 30 000) → `TIMEOUT`. */
  timeoutMs: number;
  /** CPU time the isolate spends on the run, in ms (default 10 000) → `CPU_LIMIT`. */
  cpuTimeMs: number;
  /** Heap of the isolate, in MiB (default 128) → `MEMORY_LIMIT`. */
  memoryMb: number;
  /** Capability calls per run (default 1 000) → `MAX_CALLS`. */
  maxCapabilityCalls: number;
  /** Size of one call's params or result, and of the run's result, measured on the host (default 1 MiB) → `PAYLOAD_TOO_LARGE`. */
  maxPayloadBytes: number;
  /** Bytes of console output per run (default 256 KiB) → `LOG_LIMIT`. */
  maxLogBytes: number;
}

/** The limits a run gets when nothing overrides them. */
export const DEFAULT_LIMITS: Readonly<RunLimits> = Object.freeze({
  timeoutMs: 30_000,
  cpuTimeMs: 10_000,
  memoryMb: 128,
  maxCapabilityCalls: 1_000,
  maxPayloadBytes: 1024 * 1024,
  maxLogBytes: 256 * 1024,
});

/** isolated-vm refuses isolates smaller than this. */
const MIN_MEMORY_MB = 8;

/**
 * Layers partial limits over {@link DEFAULT_LIMITS} (later layers win) into a new object. Throws `CONFIG_INVALID`
 * naming the field when a value is not a positive number (or `memoryMb` is below 8).
 */
export function resolveLimits(...layers: ReadonlyArray<Partial<RunLimits> | undefined>): RunLimits {
  const limits: RunLimits = { ...DEFAULT_LIMITS };
  for (const layer of layers) {
    if (layer === undefined) continue;
    for (const key of Object.keys(layer) as (keyof RunLimits)[]) {
      if (!(key in DEFAULT_LIMITS)) {
        throw new AgentSpacesError('CONFIG_INVALID', `limits.${String(key)} is not a known limit`, { field: `limits.${String(key)}` });
      }
      const value: unknown = layer[key];
      if (value === undefined) continue;
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
        throw new AgentSpacesError('CONFIG_INVALID', `limits.${key} must be a positive number, got ${String(value)}`, {
          field: `limits.${key}`,
        });
      }
      limits[key] = value;
    }
  }
  if (limits.memoryMb < MIN_MEMORY_MB) {
    throw new AgentSpacesError('CONFIG_INVALID', `limits.memoryMb must be at least ${MIN_MEMORY_MB}`, { field: 'limits.memoryMb' });
  }
  return limits;
}
