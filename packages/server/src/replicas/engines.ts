import { SharedCounters, SharedDatabase } from '@agent-spaces/bridge/shared';
import { ReplicaRegistry } from './registry.js';

/** Where a server keeps shared state (docs/deployment.md): both unset keeps today's embedded stores. */
export interface EngineSettings {
  /** PostgreSQL (`postgres://…`): audit log, approvals, kept runs, session records, tasks, replicas. */
  databaseUrl?: string;
  /** Redis or Valkey (`redis://…`): rate-limit counters, of capability calls and of HTTP requests. */
  redisUrl?: string;
}

/** The shared engines a server uses, opened; {@link join} puts it among the service's replicas once it listens. */
export class SharedEngines {
  readonly database: SharedDatabase | undefined;
  readonly counters: SharedCounters | undefined;
  /** The replicas sharing the database (this one among them once it {@link join}ed); none without a database. */
  readonly replicas: ReplicaRegistry | undefined;

  private constructor(database: SharedDatabase | undefined, counters: SharedCounters | undefined, replicas: ReplicaRegistry | undefined) {
    this.database = database;
    this.counters = counters;
    this.replicas = replicas;
  }

  /**
   * Opens the engines `settings` name (PostgreSQL's migrations run now); none opened when neither is set. Rejects with
   * `STORE_UNAVAILABLE` when one cannot be reached (the other is closed again).
   */
  static async open(settings: EngineSettings): Promise<SharedEngines> {
    const database = settings.databaseUrl ? await SharedDatabase.open(settings.databaseUrl, { applicationName: 'agent-spaces mcp serve' }) : undefined;
    try {
      const replicas = database ? await ReplicaRegistry.open(database) : undefined;
      // The runs this replica keeps are marked as its own: a live replica takes them over once it is gone.
      if (database && replicas) database.runs.replica = replicas.id;
      const counters = settings.redisUrl ? await SharedCounters.open(settings.redisUrl) : undefined;
      return new SharedEngines(database, counters, replicas);
    } catch (error) {
      await database?.close();
      throw error;
    }
  }

  /** Puts this server on record as a replica reached at `url` (nothing without a database). */
  async join(url: string): Promise<void> {
    await this.replicas?.join(url);
  }

  /** Leaves the replicas and closes the engines. */
  async close(): Promise<void> {
    await this.replicas?.leave();
    await Promise.all([this.database?.close(), this.counters?.close()]);
  }
}
