import { isAgentSpacesError, toWireError, type LogLevel, type WireError } from '@agent-spaces/capabilities';
import type { RunLimits } from './limits.js';
import type { ThrownError } from './prelude/contract.js';

/** One captured console line. */
export interface LogEntry {
  level: LogLevel;
  message: string;
  /** ISO-8601 time the host received the line. */
  timestamp: string;
}

/** Figures of one run. */
export interface RunStats {
  durationMs: number;
  capabilityCalls: number;
  /** CPU time the isolate spent on the run. */
  cpuTimeMs: number;
}

/** How a run ended. `run()` never rejects: a failed run is `{ ok: false, error }` with a stable `error.code`. */
export type RunOutcome =
  | { ok: true; value: unknown; logs: LogEntry[]; stats: RunStats }
  | { ok: false; error: WireError; logs: LogEntry[]; stats: RunStats };

/** The error an uncaught throw of agent code becomes. */
export function scriptError(thrown: ThrownError): WireError {
  if (thrown.outOfMemory) return memoryLimit(undefined);
  const capability = thrown.capabilityError;
  return {
    code: 'SCRIPT_ERROR',
    message: thrown.message === '' ? thrown.name : `${thrown.name}: ${thrown.message}`,
    ...(capability?.callId ? { callId: capability.callId } : {}),
    ...(capability?.capability ? { capability: capability.capability } : {}),
    ...(capability?.function ? { function: capability.function } : {}),
    data: {
      name: thrown.name,
      message: thrown.message,
      ...(thrown.stack === undefined ? {} : { stack: thrown.stack }),
      ...(capability ? { code: capability.code, ...(capability.data ? { capabilityData: capability.data } : {}) } : {}),
    },
  };
}

/** `TIMEOUT` at the wall-clock limit. */
export function timeout(limits: RunLimits): WireError {
  return { code: 'TIMEOUT', message: `The run exceeded its wall-clock limit of ${limits.timeoutMs} ms`, data: { limitMs: limits.timeoutMs } };
}

/** `CPU_LIMIT` at the CPU-time limit. */
export function cpuLimit(limits: RunLimits): WireError {
  return { code: 'CPU_LIMIT', message: `The run exceeded its CPU-time limit of ${limits.cpuTimeMs} ms`, data: { limitMs: limits.cpuTimeMs } };
}

/** `MEMORY_LIMIT`: the isolate's heap limit was hit. */
function memoryLimit(limits: RunLimits | undefined): WireError {
  return {
    code: 'MEMORY_LIMIT',
    message: limits ? `The run exceeded its memory limit of ${limits.memoryMb} MiB` : 'The run ran out of memory',
    ...(limits ? { data: { limitMb: limits.memoryMb } } : {}),
  };
}

/** `ABORTED` by the caller's signal. */
export function aborted(reason: unknown): WireError {
  const detail = reason instanceof Error ? reason.message : reason === undefined ? '' : String(reason);
  return { code: 'ABORTED', message: detail ? `The run was aborted: ${detail}` : 'The run was aborted' };
}

/** `PAYLOAD_TOO_LARGE` for the run's result. */
export function resultTooLarge(limits: RunLimits): WireError {
  return {
    code: 'PAYLOAD_TOO_LARGE',
    message: `The run's result exceeds the limit of ${limits.maxPayloadBytes} bytes`,
    data: { limit: limits.maxPayloadBytes, direction: 'result' },
  };
}

/** `RESULT_NOT_CLONEABLE`: the script's value cannot be copied out of the sandbox, for `reason`. */
export function resultNotCloneable(reason: string): WireError {
  return { code: 'RESULT_NOT_CLONEABLE', message: `The run's result cannot be copied out of the sandbox (${reason})` };
}

/** Maps an error isolated-vm raised while linking or running agent code. */
export function isolateError(error: unknown, limits: RunLimits, disposed: boolean): WireError {
  if (isAgentSpacesError(error)) return toWireError(error);
  const message = error instanceof Error ? error.message : String(error);
  if (/memory limit/i.test(message)) return memoryLimit(limits);
  if (disposed) return { code: 'ABORTED', message: 'The sandbox was closed while the run was going' };
  if (/timed out/i.test(message)) return timeout(limits);
  if (error instanceof Error && error.name === 'SyntaxError') {
    return { code: 'IMPORT_NOT_FOUND', message: `Cannot link the script: ${message}`, data: { detail: message } };
  }
  return toWireError(error, 'INTERNAL', 'The sandbox failed');
}

/** An outcome for a run that could not start. */
export function failed(error: WireError, started: number, logs: LogEntry[] = []): RunOutcome {
  return { ok: false, error, logs, stats: { durationMs: performance.now() - started, capabilityCalls: 0, cpuTimeMs: 0 } };
}
