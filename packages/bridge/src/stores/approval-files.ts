import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { ApprovalOutcome, ApprovalRecord, ApprovalRequest, ApprovalStore } from '../types.js';
import { RecordFolder, isSafeId, stateFolder } from './state-files.js';

/** Options of {@link FileApprovalStore}. */
export interface FileApprovalStoreOptions {
  /** How often a waiting call looks for its answer, in ms (default 100): answers may come from another process. */
  pollMs?: number;
  /** How long answered requests stay readable (`approvals show`), in ms (default 7 days). */
  keepAnsweredMs?: number;
}

/** A request as its file keeps it. */
interface RequestFile {
  request: ApprovalRequest;
  /** Milliseconds since the epoch, with the fraction this process can tell: orders requests added in one process. */
  addedAt: number;
}

/** An answer as its file keeps it. */
type AnswerFile = ApprovalOutcome & { answeredAt: string };

const ANSWER = '.answer';
const DAY_MS = 86_400_000;

/**
 * The durable {@link ApprovalStore}: one file per request and one per answer under `<outDir>/state/approvals/`, so a
 * request outlives the process that made it and can be answered from another (`agent-spaces approvals`, the server's
 * `/approvals` API and console). Answers are created atomically (a link that fails when the answer exists), so of
 * concurrent answers, from any number of processes, exactly one wins. A waiting call is woken at once by an answer
 * given in its own process, and looks for one given elsewhere every `pollMs`. Answered requests stay readable for `keepAnsweredMs`, then are removed; ids that could not name a file
 * are never found.
 */
export class FileApprovalStore implements ApprovalStore {
  readonly #folder: RecordFolder;
  readonly #pollMs: number;
  readonly #keepAnsweredMs: number;
  /** Calls of this process waiting for an answer, by request id: an answer given here wakes them at once. */
  readonly #wake = new Map<string, () => void>();

  constructor(outDir: string, options: FileApprovalStoreOptions = {}) {
    this.#folder = new RecordFolder(stateFolder(outDir, 'approvals'));
    this.#pollMs = options.pollMs ?? 100;
    this.#keepAnsweredMs = options.keepAnsweredMs ?? 7 * DAY_MS;
  }

  async add(request: ApprovalRequest): Promise<boolean> {
    if (!isSafeId(request.id)) throw new AgentSpacesError('INTERNAL', `Approval request id ${JSON.stringify(request.id)} cannot name a file`);
    if (this.#folder.read(`${request.id}${ANSWER}`)) return false;
    return this.#folder.create(request.id, { request, addedAt: performance.timeOrigin + performance.now() } satisfies RequestFile);
  }

  async pending(): Promise<ApprovalRequest[]> {
    const answered = new Set<string>();
    const requests: RequestFile[] = [];
    for (const name of this.#folder.names()) {
      if (name.endsWith(ANSWER)) answered.add(name.slice(0, -ANSWER.length));
    }
    for (const name of this.#folder.names()) {
      if (name.endsWith(ANSWER) || answered.has(name)) continue;
      const file = this.#folder.read<RequestFile>(name);
      if (file?.request) requests.push(file);
    }
    this.#prune(answered);
    return requests.sort((a, b) => a.addedAt - b.addedAt).map((file) => file.request);
  }

  async get(id: string): Promise<ApprovalRecord | undefined> {
    if (!isSafeId(id)) return undefined;
    const file = this.#folder.read<RequestFile>(id);
    if (!file?.request) return undefined;
    const answer = this.#folder.read<AnswerFile>(`${id}${ANSWER}`);
    return { request: file.request, ...(answer ? { answer } : {}) };
  }

  async answer(id: string, outcome: ApprovalOutcome): Promise<boolean> {
    if (!isSafeId(id) || !this.#folder.read<RequestFile>(id)) return false;
    const created = this.#folder.create(`${id}${ANSWER}`, { ...outcome, answeredAt: new Date().toISOString() } satisfies AnswerFile);
    if (created) this.#wake.get(id)?.();
    return created;
  }

  answered(id: string, signal: AbortSignal): Promise<ApprovalOutcome> {
    return new Promise<ApprovalOutcome>((resolve, reject) => {
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        this.#wake.delete(id);
        signal.removeEventListener('abort', onAbort);
      };
      const onAbort = () => {
        done();
        reject(stopped());
      };
      const look = () => {
        clearTimeout(timer);
        const answer = isSafeId(id) ? this.#folder.read<AnswerFile>(`${id}${ANSWER}`) : undefined;
        if (!answer) return void (timer = setTimeout(look, this.#pollMs));
        done();
        resolve(outcomeOf(answer));
      };
      if (signal.aborted) return reject(stopped());
      signal.addEventListener('abort', onAbort, { once: true });
      this.#wake.set(id, look);
      look();
    });
  }

  async withdraw(id: string): Promise<void> {
    if (!isSafeId(id)) return;
    this.#folder.remove(`${id}${ANSWER}`);
    this.#folder.remove(id);
  }

  /** Removes the requests answered longer than `keepAnsweredMs` ago. */
  #prune(answered: Set<string>): void {
    const before = Date.now() - this.#keepAnsweredMs;
    for (const id of answered) {
      const answer = this.#folder.read<AnswerFile>(`${id}${ANSWER}`);
      if (answer && Date.parse(answer.answeredAt) < before) void this.withdraw(id);
    }
  }
}

function stopped(): AgentSpacesError {
  return new AgentSpacesError('ABORTED', 'Stopped waiting for the answer to an approval request');
}

/** The outcome an answer file holds (without the time it was given). */
function outcomeOf(answer: AnswerFile): ApprovalOutcome {
  const outcome: ApprovalOutcome & { answeredAt?: string } = { ...answer };
  delete outcome.answeredAt;
  return outcome;
}
