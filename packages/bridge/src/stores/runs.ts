import { AgentSpacesError, type ErrorCode, type Principal, type WireError } from '@agent-spaces/capabilities';

/** Where a run is: running, paused (waiting for a person's answer), or how it ended. */
export type RunStatus = 'running' | 'paused' | 'succeeded' | 'failed';

/** One capability call of a run, as its ledger keeps it: how it ended, as its audit line says (never its value). */
export interface RunCall {
  /** The bridge's call id. */
  callId: string;
  capability: string;
  function: string;
  outcome: { ok: true } | { ok: false; code: ErrorCode; message: string };
  durationMs: number;
}

/** What is on record about one run of agent code. */
export interface RunRecord {
  id: string;
  /** The space's name. */
  space: string;
  /** Who the run is for (`RunOptions.owner`), when said. */
  owner?: string;
  /** Who the run's calls are for (`RunOptions.principal`), when said: a resumed run's calls are made for it again. */
  principal?: Principal;
  /** The session it ran in, if any. */
  sessionId?: string;
  /** The agent code. */
  script: string;
  status: RunStatus;
  /** ISO-8601. */
  startedAt: string;
  endedAt?: string;
  /** Why a failed run failed. */
  error?: { code: ErrorCode; message: string };
  /** Its capability calls in the order they ended. */
  calls: RunCall[];
}

/** A run as it starts: its record without status, end and calls. */
export type StartedRun = Pick<RunRecord, 'id' | 'space' | 'owner' | 'principal' | 'sessionId' | 'script' | 'startedAt'>;

/** How a run ended. */
export type RunEnd = { status: 'succeeded'; endedAt: string } | { status: 'failed'; endedAt: string; error: { code: ErrorCode; message: string } };

/** Which runs {@link RunStore.list} returns: those matching every field given. */
export interface RunQuery {
  space?: string;
  owner?: string;
  sessionId?: string;
  status?: RunStatus;
}

/** One call as a kept run's ledger holds it, in the order the script made them: enough to replay it. */
export interface LedgerCall {
  capability: string;
  function: string;
  /** Its params, redacted, as JSON: a replayed call must send the same. */
  params: string;
  /** How it ended, redacted; absent while it runs or waits for approval. */
  outcome?: { ok: true; value: unknown } | { ok: false; error: WireError };
  /** When its outcome reached the sandbox (ms since the epoch): a replay moves the clock there. */
  at?: number;
  /** The approval request it waits for, while it does. */
  approvalId?: string;
}

/** What a run keeps to be replayed: how its clock started, and its calls. */
export interface RunReplay {
  clock: { seed: number; startedAt: number };
  calls: LedgerCall[];
  /**
   * False when it cannot be replayed: its ledger went over the size budget (then `calls` is empty), or a call that was
   * neither answered nor waiting for approval was in flight when it was kept.
   */
  replayable: boolean;
}

/**
 * A run kept to outlive its process: one that paused for a person's answer (until it ends), and a session's runs
 * (until the session is closed), with the ledger a replay needs.
 */
export interface KeptRun extends StartedRun {
  status: RunStatus;
  replay: RunReplay;
  /** ISO-8601, with `error` for a failed run. */
  endedAt?: string;
  error?: { code: ErrorCode; message: string };
  /** The approval request of the whole script, while the run waits for it (its calls' requests are in the ledger). */
  awaitingScript?: string;
  /** The process that ran it: while that process lives, the run is its own (no other process resumes it). */
  pid?: number;
  /**
   * The replica that holds it, when replicas of a service share the store (docs/deployment.md): while that replica is
   * alive the run is its own; once it is gone, a live one takes it over.
   */
  replica?: string;
  /**
   * When it started, in milliseconds with the fraction the process could tell: orders runs that started in the same
   * millisecond (a session's runs replay in the order they ran).
   */
  order?: number;
}

/**
 * Where runs are put on record: the space starts each run's record before the code runs, appends each of its calls to
 * the run's ledger as the call ends, and ends the record with the run. The three writes may complete synchronously
 * (return nothing, throw at once) or return a promise: a write is on every run's and call's path, and the embedded
 * store's take no promise (bench/runtime.mjs); the space makes them one after another either way.
 */
export interface RunStore {
  /** Puts a new run on record as `running`; throws `INTERNAL` when a run with its id is on record already. */
  start(run: StartedRun): void | Promise<void>;
  /** Appends `call` to the ledger of the running run `runId`; throws `INTERNAL` when no such run is running. */
  addCall(runId: string, call: RunCall): void | Promise<void>;
  /** Ends the running run `runId`; throws `INTERNAL` when no such run is running. */
  end(runId: string, end: RunEnd): void | Promise<void>;
  /** The record of run `runId` (a copy), or undefined when none is kept. */
  get(runId: string): Promise<RunRecord | undefined>;
  /** The records `query` selects (copies), oldest start first. */
  list(query?: RunQuery): Promise<RunRecord[]>;
  /**
   * Keeps `run` durably, replacing what was kept of it: synchronous in the embedded stores, because a call approved
   * after a pause runs only once its run is kept as `running` again (a restart then never replays it twice).
   */
  keep(run: KeptRun): void | Promise<void>;
  /** The kept run `runId` (a copy), or undefined. */
  kept(runId: string): Promise<KeptRun | undefined>;
  /** The kept runs `query` selects (copies), oldest start first. */
  keptRuns(query?: RunQuery): Promise<KeptRun[]>;
  /** Forgets kept run `runId` (nothing when none is kept). */
  forget(runId: string): void | Promise<void>;
}

/**
 * The embedded {@link RunStore}: records in memory. It keeps the runs in progress and, of the ended ones, the last
 * `keepEnded` (default 0: a run is forgotten as it ends, so a space holds nothing of its finished runs, as before
 * there were run records).
 */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, RunRecord>();
  readonly #kept = new Map<string, KeptRun>();
  /** Ids of the ended runs kept, oldest end first. */
  readonly #ended: string[] = [];
  readonly #keepEnded: number;

  /** `keepEnded`: how many ended runs stay readable (default 0). */
  constructor(options: { keepEnded?: number } = {}) {
    this.#keepEnded = options.keepEnded ?? 0;
  }

  start(run: StartedRun): void {
    if (this.#runs.has(run.id)) throw new AgentSpacesError('INTERNAL', `Run ${run.id} is on record already`);
    this.#runs.set(run.id, { ...run, status: 'running', calls: [] });
  }

  addCall(runId: string, call: RunCall): void {
    this.#running(runId).calls.push({ ...call });
  }

  end(runId: string, end: RunEnd): void {
    Object.assign(this.#running(runId), end);
    if (this.#keepEnded === 0) {
      this.#runs.delete(runId);
      return;
    }
    this.#ended.push(runId);
    if (this.#ended.length > this.#keepEnded) this.#runs.delete(this.#ended.shift()!);
  }

  async get(runId: string): Promise<RunRecord | undefined> {
    const run = this.#runs.get(runId);
    return run && copy(run);
  }

  async list(query: RunQuery = {}): Promise<RunRecord[]> {
    return select([...this.#runs.values()], query).map(copy);
  }

  keep(run: KeptRun): void {
    this.#kept.set(run.id, structuredClone(run));
  }

  async kept(runId: string): Promise<KeptRun | undefined> {
    const run = this.#kept.get(runId);
    return run && structuredClone(run);
  }

  async keptRuns(query: RunQuery = {}): Promise<KeptRun[]> {
    return select([...this.#kept.values()], query).map((run) => structuredClone(run));
  }

  forget(runId: string): void {
    this.#kept.delete(runId);
  }

  #running(runId: string): RunRecord {
    const run = this.#runs.get(runId);
    if (run?.status !== 'running') throw new AgentSpacesError('INTERNAL', `No run ${runId} is running`);
    return run;
  }
}

/** The runs `query` selects, oldest start first (`order` breaking ties). */
export function select<T extends Pick<RunRecord, 'space' | 'owner' | 'sessionId' | 'status' | 'startedAt'> & { order?: number }>(runs: T[], query: RunQuery): T[] {
  const matches = (run: T) =>
    (query.space === undefined || run.space === query.space) &&
    (query.owner === undefined || run.owner === query.owner) &&
    (query.sessionId === undefined || run.sessionId === query.sessionId) &&
    (query.status === undefined || run.status === query.status);
  return runs.filter(matches).sort((a, b) => a.startedAt.localeCompare(b.startedAt) || (a.order ?? 0) - (b.order ?? 0));
}

function copy(run: RunRecord): RunRecord {
  return { ...run, calls: run.calls.map((call) => ({ ...call })), ...(run.error ? { error: { ...run.error } } : {}) };
}
