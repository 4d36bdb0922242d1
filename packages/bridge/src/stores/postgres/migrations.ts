/**
 * The schema of the bridge's PostgreSQL stores, as ordered migrations that {@link SharedDatabase.open} applies at start.
 *
 * APPEND new entries (next version number) — never edit or reorder one that was applied: databases that ran it keep
 * what it did, and it is not run again.
 *
 * Records are `json`, not `jsonb`: `json` holds any string JavaScript can send (a NUL character, a lone surrogate),
 * which `jsonb` refuses — an audit line or a kept run must never fail over what a script passed. Times given by the
 * bridge as ISO-8601 strings are kept as `text COLLATE "C"`, so they come back exactly and compare as they sort.
 */
export interface Migration {
  /** 1, 2, 3, …: applied in this order, each once per database. */
  version: number;
  name: string;
  /** One or more statements, run in one transaction. */
  sql: string;
}

/** Every migration, oldest first. Append only (see the file's comment). */
export const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'bridge stores: audit, approvals, kept runs, sessions',
    sql: `
      CREATE TABLE agent_spaces_audit (
        id bigserial PRIMARY KEY,
        space text NOT NULL,
        time timestamptz NOT NULL,
        ended boolean NOT NULL,
        entry json NOT NULL
      );
      CREATE INDEX agent_spaces_audit_space_time ON agent_spaces_audit (space, time);
      CREATE INDEX agent_spaces_audit_time ON agent_spaces_audit (time, id);

      CREATE TABLE agent_spaces_approvals (
        id text PRIMARY KEY,
        seq bigserial NOT NULL,
        request json NOT NULL,
        answer json,
        answered_at timestamptz
      );
      CREATE INDEX agent_spaces_approvals_waiting ON agent_spaces_approvals (seq) WHERE answer IS NULL;
      CREATE INDEX agent_spaces_approvals_answered ON agent_spaces_approvals (answered_at) WHERE answer IS NOT NULL;

      CREATE TABLE agent_spaces_kept_runs (
        id text PRIMARY KEY,
        space text NOT NULL,
        owner text,
        session_id text,
        status text NOT NULL,
        started_at text COLLATE "C" NOT NULL,
        run_order double precision,
        ended_at timestamptz,
        run json NOT NULL
      );
      CREATE INDEX agent_spaces_kept_runs_session ON agent_spaces_kept_runs (session_id);
      CREATE INDEX agent_spaces_kept_runs_started ON agent_spaces_kept_runs (started_at, run_order);

      CREATE TABLE agent_spaces_sessions (
        id text PRIMARY KEY,
        space text NOT NULL,
        owner text NOT NULL,
        created_at text COLLATE "C" NOT NULL,
        last_used_at text COLLATE "C" NOT NULL,
        metadata json NOT NULL
      );
      CREATE INDEX agent_spaces_sessions_owner ON agent_spaces_sessions (owner, last_used_at);
    `,
  },
  {
    version: 2,
    name: 'tasks',
    // The MCP tasks of `mcp serve` (packages/server/src/tasks/postgres.ts): times in ms since the epoch, `expires_at`
    // null while a task runs.
    sql: `
      CREATE TABLE agent_spaces_tasks (
        task_id text PRIMARY KEY,
        principal text NOT NULL,
        tool text NOT NULL,
        created_at text COLLATE "C" NOT NULL,
        ended_at double precision,
        expires_at double precision,
        run_ids text[] NOT NULL,
        record json NOT NULL,
        result json
      );
      CREATE INDEX agent_spaces_tasks_principal ON agent_spaces_tasks (principal, created_at, task_id);
      CREATE INDEX agent_spaces_tasks_unfinished ON agent_spaces_tasks (created_at, task_id) WHERE ended_at IS NULL;
      CREATE INDEX agent_spaces_tasks_expires ON agent_spaces_tasks (expires_at) WHERE expires_at IS NOT NULL;
      CREATE INDEX agent_spaces_tasks_runs ON agent_spaces_tasks USING gin (run_ids);
    `,
  },
  {
    version: 3,
    name: 'replicas',
    // The replicas of one `mcp serve` service (packages/server/src/replicas/registry.ts): who is alive and where it is
    // reached, which replica holds each 2025-11-25 transport session (by tag), who took over a gone replica's work,
    // and the forwarding secret that marks a request one replica passed to another.
    sql: `
      CREATE TABLE agent_spaces_cluster (key text PRIMARY KEY, value text NOT NULL);
      CREATE TABLE agent_spaces_replicas (
        id text PRIMARY KEY,
        url text NOT NULL,
        started_at timestamptz NOT NULL,
        heartbeat_at timestamptz NOT NULL
      );
      CREATE TABLE agent_spaces_transport_sessions (tag text PRIMARY KEY, replica text NOT NULL);
      CREATE INDEX agent_spaces_transport_sessions_replica ON agent_spaces_transport_sessions (replica);
      CREATE TABLE agent_spaces_claims (item text PRIMARY KEY, replica text NOT NULL);
    `,
  },
  {
    version: 4,
    name: 'skills',
    // The typed skills that clients of `mcp serve` saved (packages/server/src/skills/postgres.ts): what every replica's
    // `skills/` folder must hold, and who owns each. `owner` is the client id's hash (null: the operator), `sha256` the
    // text's; a deleted skill keeps its row with `text` null (and the sha256 of the text deleted), so a replica that
    // was away removes its copy too. Names and texts are the SDK's (validated, bounded) before they get here.
    sql: `
      CREATE TABLE agent_spaces_skills (
        name text PRIMARY KEY,
        text text,
        owner text,
        sha256 text NOT NULL,
        updated_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 5,
    name: 'skill shares',
    // With whom a skill's owner shares it (packages/sdk/src/skill-shares.ts): null for the space (every skill before
    // users, and the operator's), else JSON "private" or {"groups": [...]}.
    sql: `ALTER TABLE agent_spaces_skills ADD COLUMN share jsonb;`,
  },
];

/** What applying migrations needs: a transaction with a query function. */
export type Transact = <T>(fn: (query: <R>(sql: string, params?: unknown[]) => Promise<R[]>) => Promise<T>) => Promise<T>;

/**
 * Applies the migrations of `migrations` a database has not applied, in order, one transaction each, under a
 * transaction-level advisory lock: replicas starting together wait for each other, and each migration is applied once.
 * Returns the versions this call applied.
 */
export async function migrate(transaction: Transact, migrations: readonly Migration[] = MIGRATIONS): Promise<number[]> {
  const applied: number[] = [];
  for (const migration of [...migrations].sort((a, b) => a.version - b.version)) {
    const ran = await transaction(async (query) => {
      await query("SELECT pg_advisory_xact_lock(hashtext('agent_spaces_migrations'))");
      await query('CREATE TABLE IF NOT EXISTS agent_spaces_migrations (version int PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())');
      const done = await query('SELECT 1 FROM agent_spaces_migrations WHERE version = $1', [migration.version]);
      if (done.length > 0) return false;
      await query(migration.sql);
      await query('INSERT INTO agent_spaces_migrations (version, name, applied_at) VALUES ($1, $2, now())', [migration.version, migration.name]);
      return true;
    });
    if (ran) applied.push(migration.version);
  }
  return applied;
}
