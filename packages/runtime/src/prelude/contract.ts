/**
 * The private contract between the host side of the runtime and the in-isolate prelude. Both ends import this file:
 * the host directly, the prelude through its esbuild bundle. Agent code never sees any of it: every global named here
 * is deleted before agent code runs.
 */
import type { LogLevel, RunErrorCode, WireError } from '@agent-spaces/capabilities';

/** Global under which the host hands the prelude its call Callback; the prelude takes and deletes it. */
export const HOST_CALL_GLOBAL = '__agentSpacesHostCall';
/** Global under which the host hands the prelude its log Callback; the prelude takes and deletes it. */
export const HOST_LOG_GLOBAL = '__agentSpacesHostLog';
/** Global under which the host hands the prelude its done Callback; the prelude takes and deletes it. */
export const HOST_DONE_GLOBAL = '__agentSpacesHostDone';
/** Global where the prelude leaves its {@link PreludeApi} for the host, which reads and deletes it. */
export const PRELUDE_API_GLOBAL = '__agentSpacesPrelude';
/** Global where the prelude leaves `call` for the bridge module, which takes and deletes it when evaluated. */
export const BRIDGE_STASH_GLOBAL = '__agentSpacesBridge';

/**
 * Sandbox -> host, through the call Callback (sync mode: the isolate waits until the host has accepted the call,
 * which bounds what a run can queue on the host). Plain arguments, checked by the host: only `params` is an object
 * to copy. `seq` numbers the call in its context, end to end: the host (and in process isolation, the parent) sends
 * it back with the outcome; it is not the bridge's public `callId`. Returns `undefined` when the call was accepted (its outcome arrives later through
 * {@link PreludeApi.settle}), or an error that rejects the call at once.
 */
export type HostCall = (seq: number, capability: string, fn: string, params: unknown) => CallError | undefined;

/** Sandbox -> host, through the log Callback (sync mode). Returns `undefined`, or the code that ends the run. */
export type HostLog = (level: LogLevel, message: string) => RunErrorCode | undefined;

/** A call's error as the host hands it to the sandbox: agent code sees run codes only (the host port checks them). */
export type CallError = WireError & { code: RunErrorCode };

/** Sandbox -> host, through the done Callback (sync mode): how the run ended. Throws when `result` cannot be copied. */
export type HostDone = (result: MainResult) => void;

/** The top-level declarations of one run, as getters, so a session can keep them as globals. */
export type DeclarationGetters = Record<string, () => unknown>;

/** The transpiled agent module's default export. */
export type AgentMain = (register: (getters: DeclarationGetters) => void) => Promise<unknown>;

/** The transpiled agent module's namespace (handed over whole: one crossing less than reading `default` first). */
export interface AgentModule {
  readonly default: AgentMain;
}

/** An error thrown by agent code and not caught, described in the sandbox. */
export interface ThrownError {
  name: string;
  message: string;
  stack: string | undefined;
  /** Set when the error is a `CapabilityError`: its fields as the agent's object holds them (`code` unchecked). */
  capabilityError?: Omit<WireError, 'code'> & { code: string };
  /** True for V8's `RangeError: Array buffer allocation failed` (the memory limit, seen from inside). */
  outOfMemory: boolean;
}

/** How a run ended, as {@link PreludeApi.run} reports it through {@link HostDone}. */
export type MainResult =
  | { ok: true; value: unknown }
  | { ok: false; thrown: ThrownError }
  /** The script's value could not be copied out of the sandbox (why, in V8's words). */
  | { ok: false; notCloneable: string };

/** How a run's clock and random numbers start (see `prelude/clock.ts`): recorded with a run, given again to replay it. */
export interface RunClock {
  /** The 32-bit seed of `Math.random` (used by the first run of a context; a session's later runs go on). */
  seed: number;
  /** Milliseconds since the epoch the run's clock starts at. */
  startedAt: number;
}

/** What the prelude gives the host for one context. */
export interface PreludeApi {
  /**
   * Delivers the outcome of call `seq`: its value when `ok`, else its error (dropped when `seq` is unknown). `at`, when
   * given (a replayed call's recorded return time), moves the run's clock there.
   */
  settle(seq: number, ok: boolean, valueOrError: unknown, at?: number): void;
  /**
   * Starts the agent module's default export and returns; how it ends is reported through {@link HostDone}. With
   * `persist`, keeps its top-level declarations as globals. `seed` and `startedAt` set the run's clock and random
   * numbers up (`prelude/clock.ts`; a recorded run's, when it is replayed).
   */
  run(agent: AgentModule, persist: boolean, seed?: number, startedAt?: number): void;
}
