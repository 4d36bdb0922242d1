import type { CallOutcome } from '@agent-spaces/capabilities';
import type { LogEntry, RunOutcome } from '../outcome.js';
import type { PreparedRun } from '../script/prepare.js';

/**
 * The protocol between a `ProcessSandbox` (the parent) and its sandbox processes (the children): one union per
 * direction, sent over Node's IPC channel with `serialization: 'advanced'` (values copy like structured clone, no JSON
 * re-encoding). The child trusts its parent: runs come prepared, and it executes them as they are. The parent trusts
 * nothing the child sends: `parent/child-guard.ts` checks every message before anything acts on it.
 */

/** Parent -> child. */
export type ToChild =
  /** First message: the modules runs may import, the heap of a plain run's isolate, and a run to warm up with. */
  | { kind: 'init'; modules: ReadonlyMap<string, string>; memoryMb: number; warmUp: PreparedRun }
  /** The modules changed (`setModules`), or the process was handed to a sandbox; runs sent later see them. */
  | { kind: 'modules'; modules: ReadonlyMap<string, string> }
  /**
   * Dispose of every isolate (and whatever runs left in them) and start over with a fresh runner: `memoryMb` for the
   * plain runs' heap, `modules` importable. Sent when a process passes from one sandbox to another (host-wide warm
   * processes, `parent/warm-processes.ts`) or its sandbox needs another heap size.
   */
  | { kind: 'reset'; modules: ReadonlyMap<string, string>; memoryMb: number }
  /** Execute `run`, prepared by the parent (its `timeoutMs` is the time left): in session `session`'s context, or in a fresh one. */
  | { kind: 'run'; runId: number; run: PreparedRun; session?: string }
  /** Set up session `session` (its own isolate and context) for the runs sent to it later. */
  | { kind: 'open'; session: string }
  /** Close session `session`: its run going on ends, its isolate and context are freed. */
  | { kind: 'close'; session: string }
  /** The outcome of call `seq` of run `runId`. */
  | { kind: 'outcome'; runId: number; seq: number; outcome: CallOutcome }
  /** The run's signal was aborted. */
  | { kind: 'abort'; runId: number }
  /** Run `runId` waits for a person (`held`), or no longer: its wall clock stands still meanwhile. */
  | { kind: 'hold'; runId: number; held: boolean }
  /** Answered with a `pong` as soon as the child's event loop turns. */
  | { kind: 'ping' };

/** Child -> parent. */
export type FromChild =
  /** The child is set up and warm (its first context ran a script). */
  | { kind: 'ready' }
  /**
   * Run `runId` calls `capability.function` with `params`: the parent forwards the call to the run's `HostPort`. `seq`
   * is the prelude's number of the call in its context (not the bridge's public `callId`), sent back with the outcome.
   * Flat, not a nested `CallMessage`: one object less to serialize and parse on every call.
   */
  | { kind: 'call'; runId: number; seq: number; capability: string; function: string; params: unknown }
  /** A console line of run `runId`, as it is written. */
  | { kind: 'log'; runId: number; entry: LogEntry }
  /** Run `runId` ended. `outcome.logs` is empty (the lines were streamed); `rssBytes` is the child's RSS. */
  | { kind: 'end'; runId: number; outcome: RunOutcome; rssBytes: number }
  /** The answer to a `ping`. */
  | { kind: 'pong' };
