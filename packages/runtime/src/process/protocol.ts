import { LOG_LEVELS, isRecord, readWireError, type CallMessage, type CallOutcome, type LogLevel } from '@agent-spaces/capabilities';
import type { TranspiledScript } from '../assemble.js';
import type { LogEntry } from '../host-port.js';
import type { RunLimits } from '../limits.js';
import type { RunOutcome } from '../sandbox/outcome.js';

/**
 * The protocol between a {@link ProcessSandbox} and its sandbox processes: one union per direction, sent over Node's
 * IPC channel with `serialization: 'advanced'` (values copy like structured clone, no JSON re-encoding). The parent
 * trusts nothing the child sends: {@link parseFromChild} checks every message before anything acts on it.
 */

/** Parent -> child. */
export type ToChild =
  /** First message: the modules and base limits of the child's in-process `Sandbox`, and a script to warm it with. */
  | { kind: 'init'; modules: ReadonlyMap<string, string>; limits: RunLimits; warmUp: Script }
  /** The modules changed (`setModules`); runs sent later see them. */
  | { kind: 'modules'; modules: ReadonlyMap<string, string> }
  /** Start a run of `script`, transpiled by the parent: in session `session`'s context, or in a fresh one without it. */
  | { kind: 'run'; runId: number; script: Script; limits: RunLimits; session?: string }
  /** Set up session `session` (its own isolate and context) for the runs sent to it later. */
  | { kind: 'open'; session: string }
  /** Close session `session`: its run going on ends, its isolate and context are freed. */
  | { kind: 'close'; session: string }
  /** The outcome of call `callId` of run `runId`. */
  | { kind: 'outcome'; runId: number; callId: number; outcome: CallOutcome }
  /** The run's signal was aborted. */
  | { kind: 'abort'; runId: number }
  /** Answered with a `pong` as soon as the child's event loop turns. */
  | { kind: 'ping' };

/** Agent code and what the parent's transpiler made of it. */
export interface Script {
  code: string;
  transpiled: TranspiledScript;
}

/** Child -> parent. */
export type FromChild =
  /** The child is set up and warm (its first context ran a script). */
  | { kind: 'ready' }
  /** Run `runId` calls the host: the parent forwards `message` to the run's `HostPort`. */
  | { kind: 'call'; runId: number; callId: number; message: CallMessage }
  /** A console line of run `runId`, as it is written. */
  | { kind: 'log'; runId: number; entry: LogEntry }
  /** Run `runId` ended. `outcome.logs` is empty (the lines were streamed); `rssBytes` is the child's RSS. */
  | { kind: 'end'; runId: number; outcome: RunOutcome; rssBytes: number }
  | { kind: 'pong' };

/** A message from the child with only the fields the parent reads, or `undefined` when it is malformed. */
export function parseFromChild(value: unknown): FromChild | undefined {
  if (!isRecord(value)) return undefined;
  switch (value.kind) {
    case 'ready':
    case 'pong':
      return { kind: value.kind };
    case 'call': {
      const message = value.message;
      if (!isId(value.runId) || !isId(value.callId) || !isRecord(message)) return undefined;
      if (typeof message.capability !== 'string' || typeof message.function !== 'string') return undefined;
      return {
        kind: 'call',
        runId: value.runId,
        callId: value.callId,
        message: { kind: 'call', capability: message.capability, function: message.function, params: message.params },
      };
    }
    case 'log': {
      const entry = value.entry;
      if (!isId(value.runId) || !isRecord(entry) || !LOG_LEVELS.includes(entry.level as LogLevel)) return undefined;
      if (typeof entry.message !== 'string' || typeof entry.timestamp !== 'string') return undefined;
      return { kind: 'log', runId: value.runId, entry: { level: entry.level as LogLevel, message: entry.message, timestamp: entry.timestamp } };
    }
    case 'end': {
      const outcome = parseOutcome(value.outcome);
      if (!isId(value.runId) || !outcome || typeof value.rssBytes !== 'number') return undefined;
      return { kind: 'end', runId: value.runId, outcome, rssBytes: value.rssBytes };
    }
    default:
      return undefined;
  }
}

function parseOutcome(value: unknown): RunOutcome | undefined {
  if (!isRecord(value) || !isRecord(value.stats)) return undefined;
  const cpuTimeMs = value.stats.cpuTimeMs;
  if (typeof cpuTimeMs !== 'number' || !Number.isFinite(cpuTimeMs)) return undefined;
  // The parent measures the duration and counts the calls itself.
  const stats = { durationMs: 0, capabilityCalls: 0, cpuTimeMs };
  if (value.ok === true) return { ok: true, value: value.value, logs: [], stats };
  const error = readWireError(value.error, 'run');
  return value.ok === false && error ? { ok: false, error, logs: [], stats } : undefined;
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}
