import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { ApprovalOutcome, ApprovalRecord, ApprovalRequest, ApprovalStore } from '../../types.js';
import type { Database } from './database.js';
import { unavailable } from './errors.js';

/** The channel an answer is announced on (payload: the request's id). */
const APPROVALS_CHANNEL = 'agent_spaces_approvals';
/** How often a waiting call looks for its answer itself: a notification lost while reconnecting must not hang it. */
const RECHECK_MS = 1_000;
const DAY_MS = 86_400_000;
/** Answered requests are pruned at most this often. */
const PRUNE_EVERY_MS = 60_000;

/** Options of {@link PostgresApprovalStore}. */
export interface PostgresApprovalStoreOptions {
  /** How long answered requests stay readable (`approvals show`), in ms (default 7 days). */
  keepAnsweredMs?: number;
}

/**
 * The shared {@link ApprovalStore}: requests and answers are rows of `agent_spaces_approvals`, so a request made by
 * one replica can be listed and answered by any. An answer is one `UPDATE … WHERE answer IS NULL`: of concurrent
 * answers from any number of processes exactly one wins. A waiting call is woken at once by an answer given in its
 * own process, by a notification (LISTEN/NOTIFY) for one given in another, and looks for itself every second besides.
 * Answered requests stay readable for `keepAnsweredMs`, then are pruned as requests are listed.
 */
export class PostgresApprovalStore implements ApprovalStore {
  readonly #database: Database;
  readonly #keepAnsweredMs: number;
  /** Calls of this process waiting for an answer, by request id. */
  readonly #wake = new Map<string, Set<() => void>>();
  #listening = false;
  #prunedAt = 0;
  #closed = false;

  constructor(database: Database, options: PostgresApprovalStoreOptions = {}) {
    this.#database = database;
    this.#keepAnsweredMs = options.keepAnsweredMs ?? 7 * DAY_MS;
  }

  async add(request: ApprovalRequest): Promise<boolean> {
    if (request.id.includes('\0')) throw new AgentSpacesError('INTERNAL', `Approval request id ${JSON.stringify(request.id)} cannot be stored`);
    const rows = await this.#database.query('INSERT INTO agent_spaces_approvals (id, request) VALUES ($1, $2) ON CONFLICT (id) DO NOTHING RETURNING id', [
      request.id,
      JSON.stringify(request),
    ]);
    return rows.length === 1;
  }

  async pending(): Promise<ApprovalRequest[]> {
    await this.#prune();
    const rows = await this.#database.query<{ request: ApprovalRequest }>('SELECT request FROM agent_spaces_approvals WHERE answer IS NULL ORDER BY seq');
    return rows.map((row) => row.request);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    if (id.includes('\0')) return undefined;
    const [row] = await this.#database.query<{ request: ApprovalRequest; answer: ApprovalOutcome | null; answered_at: Date | null }>(
      'SELECT request, answer, answered_at FROM agent_spaces_approvals WHERE id = $1',
      [id],
    );
    if (!row) return undefined;
    return { request: row.request, ...(row.answer ? { answer: { ...row.answer, answeredAt: row.answered_at!.toISOString() } } : {}) };
  }

  async answer(id: string, outcome: ApprovalOutcome): Promise<boolean> {
    if (id.includes('\0')) return false;
    // The notification is sent as the answer commits, to every process listening.
    const rows = await this.#database.query(
      `WITH won AS (UPDATE agent_spaces_approvals SET answer = $2, answered_at = now() WHERE id = $1 AND answer IS NULL RETURNING id)
       SELECT pg_notify($3, id) FROM won`,
      [id, JSON.stringify(outcome), APPROVALS_CHANNEL],
    );
    if (rows.length === 0) return false;
    this.#wakeUp(id);
    return true;
  }

  answered(id: string, signal: AbortSignal): Promise<ApprovalOutcome> {
    if (signal.aborted) return Promise.reject(stopped());
    return new Promise<ApprovalOutcome>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      /** A look in progress, and whether another was asked for meanwhile (an answer may have come after it read). */
      let [looking, again] = [false, false];
      const wakers = this.#wake.get(id) ?? new Set<() => void>();
      const settle = (settled: () => void) => {
        clearTimeout(timer);
        wakers.delete(look);
        if (wakers.size === 0 && this.#wake.get(id) === wakers) this.#wake.delete(id);
        signal.removeEventListener('abort', onAbort);
        settled();
      };
      const onAbort = () => settle(() => reject(stopped()));
      const look = (): void => {
        clearTimeout(timer);
        if (this.#closed) return settle(() => reject(unavailable('the database was closed')));
        if (looking) return void (again = true);
        [looking, again] = [true, false];
        this.#answerOf(id)
          .catch(() => undefined) // unavailable for now: looked for again in a second
          .then((answer) => {
            looking = false;
            if (signal.aborted || !wakers.has(look)) return;
            if (answer) settle(() => resolve(answer));
            else if (again) look();
            else timer = setTimeout(look, RECHECK_MS);
          });
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#wake.set(id, wakers.add(look));
      this.#listen();
      look();
    });
  }

  async withdraw(id: string): Promise<void> {
    if (id.includes('\0')) return;
    await this.#database.query('DELETE FROM agent_spaces_approvals WHERE id = $1', [id]);
  }

  /** Stops: waiting calls reject `STORE_UNAVAILABLE` (the database is closing). */
  close(): void {
    this.#closed = true;
    for (const id of [...this.#wake.keys()]) this.#wakeUp(id);
  }

  /** The answer to request `id`, if it was answered. */
  async #answerOf(id: string): Promise<ApprovalOutcome | undefined> {
    if (id.includes('\0')) return undefined;
    const [row] = await this.#database.query<{ answer: ApprovalOutcome | null }>('SELECT answer FROM agent_spaces_approvals WHERE id = $1', [id]);
    return row?.answer ?? undefined;
  }

  #wakeUp(id: string): void {
    for (const look of this.#wake.get(id) ?? []) look();
  }

  /** Listens for answers given anywhere, once (again after a failure: the next waiting call tries). */
  #listen(): void {
    if (this.#closed || this.#listening) return;
    this.#listening = true;
    this.#database.listen(APPROVALS_CHANNEL, (id) => this.#wakeUp(id)).catch(() => (this.#listening = false));
  }

  /** Removes the requests answered longer than `keepAnsweredMs` ago (at most once a minute). */
  async #prune(): Promise<void> {
    if (Date.now() - this.#prunedAt < PRUNE_EVERY_MS) return;
    this.#prunedAt = Date.now();
    await this.#database.query('DELETE FROM agent_spaces_approvals WHERE answer IS NOT NULL AND answered_at < $1', [new Date(Date.now() - this.#keepAnsweredMs)]);
  }
}

function stopped(): AgentSpacesError {
  return new AgentSpacesError('ABORTED', 'Stopped waiting for the answer to an approval request');
}
