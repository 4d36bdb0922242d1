import { toWireError } from '@agent-spaces/capabilities';
import { mirrorSkills, rebuildSkills, type SkillProject } from '@agent-spaces/sdk';
import type { ServerLog } from '../log.js';
import { PostgresSkillRecords, SKILLS_CHANNEL, type SkillDatabase } from './postgres.js';

/** How long after a change the project is rebuilt, so that a burst of changes is built once. */
const REBUILD_DELAY_MS = 200;
/** How often the folder is compared with the records anyway (a notification sent while the listener reconnected is lost). */
const CATCH_UP_MS = 30_000;

/** What {@link SkillMirror} needs. */
export interface SkillMirrorOptions {
  /** The shared database (a `SharedDatabase`): its skill records, and its notifications. */
  database: SkillDatabase & { listen(channel: string, onMessage: (payload: string) => void): Promise<() => Promise<void>> };
  /** The project whose `skills/` folder follows the records. */
  project: SkillProject;
  /** Called after a rebuild, so that the spaces serve the new build. */
  onBuilt(): void;
  log: ServerLog;
}

/**
 * Keeps this replica's `skills/` folder in step with the skills on record in the shared database: at {@link start}, on
 * every change another replica announces, and every 30 s, the folder is made to hold each skill on record (file and
 * owner record; a deleted one removed) and, when a file changed, the project is rebuilt once. Skills the records do not
 * hold (the operator's own) are left alone. A replica's own save finds its folder in step already: no second build.
 */
export class SkillMirror {
  readonly #options: SkillMirrorOptions;
  readonly #records: PostgresSkillRecords;
  #stop: (() => Promise<void>) | undefined;
  #timer: NodeJS.Timeout | undefined;
  #rebuild: NodeJS.Timeout | undefined;
  /** The sync running now, and whether another was asked for meanwhile. */
  #running: Promise<void> | undefined;
  #again = false;
  #closed = false;

  constructor(options: SkillMirrorOptions) {
    this.#options = options;
    this.#records = new PostgresSkillRecords(options.database);
  }

  /** Listens for changes and catches up with the records; a failure is logged and retried every 30 s. Never rejects. */
  async start(): Promise<void> {
    this.#timer = setInterval(() => void this.sync(), CATCH_UP_MS).unref();
    await this.sync();
  }

  /** Makes the folder match the records now (once more after the one running, when one is). Never rejects. */
  sync(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#syncOnce().catch((error: unknown) => this.#failed(error));
      } while (this.#again && !this.#closed);
      this.#running = undefined;
    })();
    return this.#running;
  }

  async #syncOnce(): Promise<void> {
    const { database, project } = this.#options;
    const records = this.#records;
    this.#stop ??= await database.listen(SKILLS_CHANNEL, () => void this.sync());
    const changed = await mirrorSkills(project, await records.all(), (names) => records.texts(names));
    if (changed.length === 0) return;
    this.#options.log.event('skills.mirrored', { skills: changed.length });
    clearTimeout(this.#rebuild);
    this.#rebuild = setTimeout(() => void this.#build(), REBUILD_DELAY_MS);
  }

  async #build(): Promise<void> {
    if (this.#closed) return;
    try {
      await rebuildSkills(this.#options.project);
      this.#options.onBuilt();
    } catch (error) {
      this.#failed(error);
    }
  }

  #failed(error: unknown): void {
    const { code, message } = toWireError(error);
    this.#options.log.event('skills.mirrored', { ok: false, code, message }, 'error');
  }

  /** Stops listening and following. */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    clearTimeout(this.#rebuild);
    await this.#running;
    await this.#stop?.().catch(() => undefined);
  }
}
