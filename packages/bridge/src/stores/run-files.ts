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
 */
export class FileRunStore extends MemoryRunStore {
  readonly #folder: RecordFolder;

  constructor(outDir: string, options: FileRunStoreOptions = {}) {
    super(options.keepEnded === undefined ? {} : { keepEnded: options.keepEnded });
    this.#folder = new RecordFolder(stateFolder(outDir, 'runs'));
    this.#prune(Date.now() - (options.keepEndedMs ?? 7 * DAY_MS));
  }

  override keep(run: KeptRun): void {
    if (isSafeId(run.id)) this.#folder.write(run.id, run);
  }

  override async kept(runId: string): Promise<KeptRun | undefined> {
    return isSafeId(runId) ? this.#folder.read<KeptRun>(runId) : undefined;
  }

  override async keptRuns(query: RunQuery = {}): Promise<KeptRun[]> {
    return select(this.#all(), query);
  }

  override forget(runId: string): void {
    if (isSafeId(runId)) this.#folder.remove(runId);
  }

  #all(): KeptRun[] {
    return this.#folder.names().flatMap((name) => this.#folder.read<KeptRun>(name) ?? []);
  }

  #prune(before: number): void {
    for (const run of this.#all()) {
      if (run.endedAt !== undefined && Date.parse(run.endedAt) < before) this.forget(run.id);
    }
  }
}
