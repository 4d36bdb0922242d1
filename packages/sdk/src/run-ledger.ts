import { AgentSpacesError, toWireError, type RunEvent, type WireError } from '@agent-spaces/capabilities';
import { isoNow, type KeptRun, type RunCall, type RunStore, type StartedRun } from '@agent-spaces/bridge';
import type { RunResult } from './run.js';

/**
 * The record of one run in the space's run store: started before the code runs, each call appended to its ledger as
 * the call ends, ended with the run. Writes are made in order, one after another: a store that writes synchronously
 * costs no promise, and once one write returns a promise the later ones wait for it. Fail closed: a run that cannot be
 * put on record does not run, and one whose record cannot be completed ends `INTERNAL`.
 */
export class RunLedger {
  readonly #store: RunStore;
  readonly #runId: string;
  /** The writes still in progress, once a write returned a promise (undefined while every write was synchronous). */
  #pending: Promise<void> | undefined;
  #failure: unknown;
  #failedAtStart = false;
  /** Set once the record is ended: a call that ends after its run (an aborted run's call in flight) is not written. */
  #ended = false;

  constructor(store: RunStore, run: StartedRun) {
    this.#store = store;
    this.#runId = run.id;
    this.#write(() => store.start(run));
  }

  /** Undefined once the run is on record; else the error the run is refused with (nothing else is written before). */
  async started(): Promise<WireError | undefined> {
    await this.#pending;
    this.#failedAtStart = this.#failure !== undefined;
    return this.#failedAtStart ? recordError(this.#failure) : undefined;
  }

  /** Appends the call that `event` says ended to the run's ledger, unless the run's record has ended. */
  call(event: Extract<RunEvent, { type: 'capabilityResult' }>): void {
    if (this.#ended) return;
    const call: RunCall = {
      callId: event.callId,
      capability: String(event.capability),
      function: String(event.function),
      outcome: event.ok || !event.error ? { ok: true } : { ok: false, code: event.error.code, message: event.error.message },
      durationMs: Math.round(event.durationMs * 1000) / 1000,
    };
    this.#write(() => this.#store.addCall(this.#runId, call));
  }

  /** Keeps the run durably (`RunStore.keep`), in order with its other writes. */
  keep(run: KeptRun): void {
    this.#write(() => this.#store.keep(run));
  }

  /** Resolves once every write made so far is done; rejects (`INTERNAL`, or `STORE_UNAVAILABLE`) when one failed. */
  async written(): Promise<void> {
    await this.#pending;
    if (this.#failure === undefined) return;
    const cause = toWireError(this.#failure, 'INTERNAL');
    throw new AgentSpacesError(cause.code === 'STORE_UNAVAILABLE' ? cause.code : 'INTERNAL', `The run could not be put on record: ${cause.message}`, cause.data);
  }

  /** Forgets what was kept of the run. */
  forget(): void {
    this.#write(() => this.#store.forget(this.#runId));
  }

  /** Ends the run's record with `result`; returns `result`, or an `INTERNAL` failure when the record could not be written. */
  async end(result: RunResult): Promise<RunResult> {
    if (this.#failedAtStart) return result;
    this.#ended = true;
    const endedAt = isoNow();
    this.#write(() =>
      this.#store.end(this.#runId, result.ok ? { status: 'succeeded', endedAt } : { status: 'failed', endedAt, error: { code: result.error.code, message: result.error.message } }),
    );
    await this.#pending;
    if (this.#failure === undefined) return result;
    return { ok: false, error: recordError(this.#failure), logs: result.logs, events: result.events, stats: result.stats };
  }

  /** Makes `write` now when no earlier write is in progress, else after it; keeps the first failure. */
  #write(write: () => void | Promise<void>): void {
    const fail = (error: unknown) => {
      this.#failure ??= error;
    };
    if (this.#pending) {
      this.#pending = this.#pending.then(write).catch(fail);
      return;
    }
    try {
      const written = write();
      if (written !== undefined) this.#pending = Promise.resolve(written).catch(fail);
    } catch (error) {
      fail(error);
    }
  }
}

function recordError(error: unknown): WireError {
  const cause = toWireError(error, 'INTERNAL');
  return { code: 'INTERNAL', message: `The run could not be put on record: ${cause.message}` };
}
