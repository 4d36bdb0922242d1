import type { WireError } from './errors.js';
import type { LogLevel } from './protocol.js';

/** Fields every run event carries. `timestamp` is an ISO-8601 string; `seq` orders events of one run. */
interface EventBase {
  timestamp: string;
  runId: string;
  seq: number;
}

/** A run began. */
export interface RunStartedEvent extends EventBase {
  type: 'runStarted';
  sessionId?: string;
}
/** Agent code called a capability function (before validation and policy). */
export interface CapabilityCallEvent extends EventBase {
  type: 'capabilityCall';
  callId: string;
  capability: string;
  function: string;
  params: unknown;
}
/** A capability call finished, successfully or not. */
export interface CapabilityResultEvent extends EventBase {
  type: 'capabilityResult';
  callId: string;
  capability: string;
  function: string;
  ok: boolean;
  durationMs: number;
  error?: WireError;
}
/** A running capability call reported progress (an MCP server's `notifications/progress`). */
export interface ProgressEvent extends EventBase {
  type: 'progress';
  /** The `callId` of the call's `capabilityCall` event. */
  callId: string;
  capability: string;
  function: string;
  /** Grows with every notification of the call; with `total`, `progress / total` is the fraction done. */
  progress: number;
  total?: number;
  message?: string;
}
/** Agent code wrote to the console. */
export interface LogEvent extends EventBase {
  type: 'log';
  level: LogLevel;
  message: string;
}
/** The run failed. */
export interface ErrorEvent extends EventBase {
  type: 'error';
  error: WireError;
}
/** The run ended (always the last event). */
export interface RunFinishedEvent extends EventBase {
  type: 'runFinished';
  ok: boolean;
  durationMs: number;
  capabilityCalls: number;
}

/**
 * A call (`source: 'capability'`) or the whole script (`source: 'script'`, `params: { code }`) waits for a person's
 * approval (seed 002 "Approval Events"); answer it with `space.approvals.resolve(id, { approved })`.
 */
export interface ApprovalRequiredEvent extends EventBase {
  type: 'approvalRequired';
  /** Id of the approval request (`agent-spaces approvals show <id>`). */
  id: string;
  /** The bridge's id of the call that waits (`source: 'capability'`). */
  callId?: string;
  source: 'capability' | 'script';
  capability: string;
  function: string;
  params: unknown;
  message: string;
}
/** An approval request was answered; `by` says who or what answered (`approver`, `resolve`, `timeout`, …). */
export interface ApprovalResolvedEvent extends EventBase {
  type: 'approvalResolved';
  id: string;
  approved: boolean;
  by: string;
  reason?: string;
}

/** Every event a run emits, discriminated on `type`. */
export type RunEvent =
  | RunStartedEvent
  | CapabilityCallEvent
  | CapabilityResultEvent
  | ApprovalRequiredEvent
  | ApprovalResolvedEvent
  | ProgressEvent
  | LogEvent
  | ErrorEvent
  | RunFinishedEvent;

/** A {@link RunEvent} before the emitter stamps it with `timestamp`, `runId` and `seq`. */
export type RunEventInput = RunEvent extends infer E ? (E extends RunEvent ? Omit<E, keyof EventBase> : never) : never;
