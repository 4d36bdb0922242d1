import type { RecordedShare, SharedSkill, SkillRecord, SkillRecords } from '@agent-spaces/sdk';

/** The channel on which a replica that saved or deleted a skill tells the others (payload: the skill's name). */
export const SKILLS_CHANNEL = 'agent_spaces_skills';

/** Runs one statement and returns its rows (a `SharedDatabase`'s `query`, or a transaction's). */
type Query = <R = Record<string, unknown>>(sql: string, params?: unknown[]) => Promise<R[]>;

/**
 * What {@link PostgresSkillRecords} uses of a `SharedDatabase` (`@agent-spaces/bridge/shared`): the `agent_spaces_skills`
 * table of its migrations, statements and transactions. Its errors pass through (`STORE_UNAVAILABLE` when PostgreSQL
 * did not answer).
 */
export interface SkillDatabase {
  query: Query;
  transaction<T>(fn: (query: Query) => Promise<T>): Promise<T>;
}

/** One row of `agent_spaces_skills` as read. */
interface Row {
  name: string;
  owner: string | null;
  sha256: string;
  text?: string | null;
  deleted?: boolean;
  /** With whom its owner shares it (column `share`, jsonb; null: the space). */
  share?: RecordedShare | null;
}

/**
 * The skills clients saved through any replica of `mcp serve`, in the PostgreSQL database the replicas share (table
 * `agent_spaces_skills`): the record of what each replica's `skills/` folder holds and who owns each skill. A change
 * holds its skill's name (an advisory lock, also for a name no row has yet, and the row's lock) until it commits, so
 * two replicas changing one skill take turns and the owner checks read what the other one kept; the change is
 * announced on {@link SKILLS_CHANNEL} when it commits.
 */
export class PostgresSkillRecords implements SkillRecords {
  readonly #db: SkillDatabase;

  /** The skill records of `database` (its migrations made the table). */
  constructor(database: SkillDatabase) {
    this.#db = database;
  }

  async change<T>(name: string, apply: (held: SharedSkill | undefined) => Promise<{ value: T; kept: SharedSkill }>): Promise<T> {
    return this.#db.transaction(async (query) => {
      await query("SELECT pg_advisory_xact_lock(hashtext('agent_spaces_skills:' || $1))", [name]);
      const [row] = await query<Row>('SELECT name, owner, sha256, text, share FROM agent_spaces_skills WHERE name = $1 FOR UPDATE', [name]);
      const { value, kept } = await apply(row && sharedSkill(row));
      await query(
        `INSERT INTO agent_spaces_skills (name, text, owner, sha256, share, updated_at) VALUES ($1, $2, $3, $4, $5, now())
         ON CONFLICT (name) DO UPDATE SET text = EXCLUDED.text, owner = EXCLUDED.owner, sha256 = EXCLUDED.sha256, share = EXCLUDED.share, updated_at = now()`,
        [kept.name, kept.deleted ? null : (kept.text ?? null), kept.owner, kept.sha256, kept.share === undefined ? null : JSON.stringify(kept.share)],
      );
      await query('SELECT pg_notify($1, $2)', [SKILLS_CHANNEL, kept.name]);
      return value;
    });
  }

  /** Every skill on record (deleted ones too), without texts. */
  async all(): Promise<SkillRecord[]> {
    const rows = await this.#db.query<Row>('SELECT name, owner, sha256, share, text IS NULL AS deleted FROM agent_spaces_skills ORDER BY name');
    return rows.map((row) => ({ name: row.name, owner: row.owner, sha256: row.sha256, deleted: row.deleted === true, ...shareOf(row) }));
  }

  /** The texts of the skills `names` that are not deleted. */
  async texts(names: readonly string[]): Promise<Map<string, string>> {
    const rows = await this.#db.query<Row>('SELECT name, text FROM agent_spaces_skills WHERE name = ANY ($1) AND text IS NOT NULL', [names]);
    return new Map(rows.map((row) => [row.name, row.text!]));
  }
}

/** The `share` of a row's record, when it has one (the SDK reads it back failing closed: anything odd is private). */
const shareOf = (row: Row): { share?: RecordedShare } => (row.share === null || row.share === undefined ? {} : { share: row.share });

function sharedSkill(row: Row): SharedSkill {
  const record = { name: row.name, owner: row.owner, sha256: row.sha256, ...shareOf(row) };
  return typeof row.text === 'string' ? { ...record, deleted: false, text: row.text } : { ...record, deleted: true };
}
