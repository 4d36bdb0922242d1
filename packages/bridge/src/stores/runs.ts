import { AgentSpacesError, type ErrorCode } from '@agent-spaces/capabilities';

/** Where a run is: still running, or how it ended. */
export type RunStatus = 'running' | 'succeeded' | 'failed';

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
export type StartedRun = Pick<RunRecord, 'id' | 'space' | 'owner' | 'sessionId' | 'script' | 'startedAt'>;

/** How a run ended. */
export type RunEnd = { status: 'succeeded'; endedAt: string } | { status: 'failed'; endedAt: string; error: { code: ErrorCode; message: string } };

/** Which runs {@link RunStore.list} returns: those matching every field given. */
export interface RunQuery {
  space?: string;
  owner?: string;
  sessionId?: string;
  status?: RunStatus;
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
}

/**
 * The embedded {@link RunStore}: records in memory. It keeps the runs in progress and, of the ended ones, the last
 * `keepEnded` (default 0: a run is forgotten as it ends, so a space holds nothing of its finished runs, as before
 * there were run records).
 */
export class MemoryRunStore implements RunStore {
  readonly #runs = new Map<string, RunRecord>();
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
    const matches = (run: RunRecord) =>
      (query.space === undefined || run.space === query.space) &&
      (query.owner === undefined || run.owner === query.owner) &&
      (query.sessionId === undefined || run.sessionId === query.sessionId) &&
      (query.status === undefined || run.status === query.status);
    return [...this.#runs.values()]
      .filter(matches)
      .sort((a, b) => a.startedAt.localeCompare(b.startedAt))
      .map(copy);
  }

  #running(runId: string): RunRecord {
    const run = this.#runs.get(runId);
    if (run?.status !== 'running') throw new AgentSpacesError('INTERNAL', `No run ${runId} is running`);
    return run;
  }
}

function copy(run: RunRecord): RunRecord {
  return { ...run, calls: run.calls.map((call) => ({ ...call })), ...(run.error ? { error: { ...run.error } } : {}) };
}
