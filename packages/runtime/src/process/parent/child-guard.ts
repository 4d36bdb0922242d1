import { LOG_LEVELS, isRecord, payloadBytes, readWireError, type CallMessage, type LogLevel } from '@agent-spaces/capabilities';
import type { RunLimits } from '../../limits.js';
import type { LogEntry, RunOutcome } from '../../outcome.js';

/**
 * The parent's one check of what a sandbox process sends. The child is untrusted (agent code runs there, and a V8
 * exploit could own it), so every message is checked here, and only here, before the parent acts on it: its shape
 * (only the fields the parent reads are kept), the child's state, the run it names, and the run's call, log and
 * payload limits. A message that fails is a breach: the parent kills the child. Call params are passed on unread:
 * the bridge behind the run's `HostPort` copies and validates them.
 */

/** The parent's record of a run in the child, as far as the guard counts it. */
export interface GuardedRun {
  readonly limits: RunLimits;
  /** Calls the child sent for the run so far. */
  calls: number;
  /** Bytes of console output the child sent for the run so far. */
  logBytes: number;
}

/** Where the parent's supervision of the child stands (see `SupervisedChild.state`). */
export type ChildState = 'starting' | 'idle' | 'busy' | 'settling' | 'dead';

/** A message from the child, checked: what the parent acts on, or why the child must be stopped. */
export type Checked<R> =
  | { kind: 'ready' }
  | { kind: 'pong' }
  | { kind: 'call'; run: R; seq: number; message: CallMessage }
  | { kind: 'log'; run: R; entry: LogEntry }
  /** `outcome.stats` has the child's CPU time only (the parent measures the rest); `rssMb` is set past the ceiling. */
  | { kind: 'end'; run: R; outcome: RunOutcome; rssMb: number | undefined }
  /** Nothing to do (a late `pong`, or anything once the child is dead). */
  | { kind: 'ignore' }
  | { kind: 'breach'; what: string };

/**
 * Checks the messages of one child against the runs the parent gave it (`runs`, by id) and its RSS ceiling. Counts
 * each run's calls and console bytes as they arrive.
 */
export class ChildGuard<R extends GuardedRun> {
  readonly #runs: ReadonlyMap<number, R>;
  /** The child's RSS ceiling; changes when the child passes to another sandbox. */
  maxRssBytes: number;

  /** `runs`: the child's runs going on, by id (the caller's live map); `maxRssBytes`: the child's RSS ceiling. */
  constructor(runs: ReadonlyMap<number, R>, maxRssBytes: number) {
    this.#runs = runs;
    this.maxRssBytes = maxRssBytes;
  }

  /** What `raw`, a message the child sent while in `state`, means to the parent. */
  check(raw: unknown, state: ChildState): Checked<R> {
    if (state === 'dead') return { kind: 'ignore' };
    if (!isRecord(raw)) return breach('a malformed message');
    switch (raw.kind) {
      case 'ready':
        return state === 'starting' ? { kind: 'ready' } : breach('a second ready');
      case 'pong':
        return state === 'settling' ? { kind: 'pong' } : { kind: 'ignore' };
      case 'call':
      case 'log':
      case 'end': {
        if (!isId(raw.runId)) return breach('a malformed message');
        const run = this.#runs.get(raw.runId);
        if (!run) return breach(`a ${raw.kind} for a run it is not running`);
        if (raw.kind === 'call') return checkCall(raw, run);
        if (raw.kind === 'log') return checkLog(raw, run);
        return this.#checkEnd(raw, run);
      }
      default:
        return breach('a malformed message');
    }
  }

  #checkEnd(raw: Record<string, unknown>, run: R): Checked<R> {
    const outcome = parseOutcome(raw.outcome);
    const rssBytes = raw.rssBytes;
    if (!outcome || typeof rssBytes !== 'number' || Number.isNaN(rssBytes)) return breach('a malformed message');
    const limit = run.limits.maxPayloadBytes;
    if (outcome.ok && payloadBytes(outcome.value, limit) > limit) return breach('a result over maxPayloadBytes');
    const rssMb = rssBytes > this.maxRssBytes ? Math.round(rssBytes / 1024 / 1024) : undefined;
    return { kind: 'end', run, outcome, rssMb };
  }
}

function checkCall<R extends GuardedRun>(raw: Record<string, unknown>, run: R): Checked<R> {
  const { seq, capability, function: fn } = raw;
  if (!isId(seq) || typeof capability !== 'string' || typeof fn !== 'string') return breach('a malformed message');
  if (++run.calls > run.limits.maxCapabilityCalls) return breach('more calls than maxCapabilityCalls');
  return { kind: 'call', run, seq, message: { kind: 'call', capability, function: fn, params: raw.params } };
}

function checkLog<R extends GuardedRun>(raw: Record<string, unknown>, run: R): Checked<R> {
  const entry = raw.entry;
  if (!isRecord(entry) || !LOG_LEVELS.includes(entry.level as LogLevel)) return breach('a malformed message');
  if (typeof entry.message !== 'string' || typeof entry.timestamp !== 'string') return breach('a malformed message');
  run.logBytes += Buffer.byteLength(entry.message, 'utf8');
  if (run.logBytes > run.limits.maxLogBytes) return breach('more console output than maxLogBytes');
  return { kind: 'log', run, entry: { level: entry.level as LogLevel, message: entry.message, timestamp: entry.timestamp } };
}

/** The child's outcome of a run with only what the parent reads, or `undefined` when it is malformed. */
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

function breach(what: string): { kind: 'breach'; what: string } {
  return { kind: 'breach', what };
}

function isId(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value);
}
