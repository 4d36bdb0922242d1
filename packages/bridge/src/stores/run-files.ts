import { MemoryRunStore, select, type KeptRun, type RunQuery } from './runs.js';
import { RecordFolder, isSafeId, stateFolder } from './state-files.js';

/** Options of {@link FileRunStore}. */
export interface FileRunStoreOptions {
  /** How many ended runs stay readable through `get`/`list` (default 0, as in {@link MemoryRunStore}). */
  keepEnded?: number;
  /** Kept runs that ended longer ago than this are removed when the store opens (default 7 days). */
  keepEndedMs?: number;
}

const DAY_MS = 86_400_000;

/**
 * The durable {@link RunStore}: the records of runs in progress in memory (no I/O on a run's or call's path), and the
 * kept runs — paused ones and a session's — one file each under `<outDir>/state/runs/`, written synchronously and
 * atomically, so a restarted process finds them.
 *
 * A session's kept runs are found through an index of the folder by session, made as the store opens (it reads every
 * file once then, to prune) and kept by {@link keep} and {@link forget}: closing or restoring a session reads its own
 * files only, however many other sessions' runs are kept. A session's runs are written by the process that holds it,
 * so runs another process keeps later are found by the other queries (which read the folder) and after a restart.
 */
export class FileRunStore extends MemoryRunStore {
  readonly #folder: RecordFolder;
  /** The ids of the kept runs of each session. */
  readonly #bySession = new Map<string, Set<string>>();
  /** The session of each kept run of one. */
  readonly #sessionOf = new Map<string, string>();

  constructor(outDir: string, options: FileRunStoreOptions = {}) {
    super(options.keepEnded === undefined ? {} : { keepEnded: options.keepEnded });
    this.#folder = new RecordFolder(stateFolder(outDir, 'runs'));
    this.#open(Date.now() - (options.keepEndedMs ?? 7 * DAY_MS));
  }

  override keep(run: KeptRun): void {
    if (!isSafeId(run.id)) return;
    this.#folder.write(run.id, run);
    this.#index(run);
  }

  override async kept(runId: string): Promise<KeptRun | undefined> {
    return isSafeId(runId) ? this.#folder.read<KeptRun>(runId) : undefined;
  }

  override async keptRuns(query: RunQuery = {}): Promise<KeptRun[]> {
    if (query.sessionId === undefined) return select(this.#all(), query);
    const ids = [...(this.#bySession.get(query.sessionId) ?? [])];
    return select(ids.flatMap((id) => this.#folder.read<KeptRun>(id) ?? []), query);
  }

  override forget(runId: string): void {
    if (!isSafeId(runId)) return;
    this.#folder.remove(runId);
    const sessionId = this.#sessionOf.get(runId);
    if (sessionId === undefined) return;
    this.#sessionOf.delete(runId);
    const ids = this.#bySession.get(sessionId)!;
    ids.delete(runId);
    if (ids.size === 0) this.#bySession.delete(sessionId);
  }

  #all(): KeptRun[] {
    return this.#folder.names().flatMap((name) => this.#folder.read<KeptRun>(name) ?? []);
  }

  /** Forgets the kept runs that ended before `before` and indexes the others by session. */
  #open(before: number): void {
    for (const run of this.#all()) {
      if (run.endedAt !== undefined && Date.parse(run.endedAt) < before) this.forget(run.id);
      else this.#index(run);
    }
  }

  #index(run: KeptRun): void {
    if (run.sessionId === undefined) return;
    const ids = this.#bySession.get(run.sessionId) ?? new Set<string>();
    this.#bySession.set(run.sessionId, ids.add(run.id));
    this.#sessionOf.set(run.id, run.sessionId);
  }
}
