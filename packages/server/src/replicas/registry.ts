import { randomBytes, randomUUID } from 'node:crypto';
import type { SharedDatabase } from '@agent-spaces/bridge/shared';

/** How often a replica says it is alive. */
const HEARTBEAT_MS = 1_000;
/** A replica silent this long is gone: its sessions are restored elsewhere, its paused runs resumed elsewhere. */
const REPLICA_SILENCE_MS = 4_000;

/**
 * The replicas of one service that share a database (docs/deployment.md): each puts itself on record with the URL the
 * others reach it at, and says every second that it is alive. What one replica holds in memory — a warm REPL session,
 * a 2025-11-25 MCP session — is marked with its id, so another replica that gets a request for it forwards the request
 * while the holder is alive and takes the work over once it is gone.
 */
export class ReplicaRegistry {
  /** This replica's id (random, new at every start). */
  readonly id = randomUUID();
  /**
   * The service's forwarding secret, made by the first replica and shared through the database: a request that
   * carries it was forwarded by a replica (counted once, never forwarded again). Clients never see it.
   */
  readonly secret: string;
  readonly #db: SharedDatabase;
  #url: string | undefined;
  #timer: NodeJS.Timeout | undefined;
  /** What was last seen of each replica (its URL when alive) and when: asked at most once per heartbeat. */
  readonly #seen = new Map<string, { url: string | undefined; at: number }>();
  /** Replicas that could not be reached (by id), until when: gone, whatever their last heartbeat says. */
  readonly #unreachable = new Map<string, number>();

  private constructor(db: SharedDatabase, secret: string) {
    this.#db = db;
    this.secret = secret;
  }

  /** The registry of the replicas sharing `db` (this one not on record until {@link join}); `STORE_UNAVAILABLE` when down. */
  static async open(db: SharedDatabase): Promise<ReplicaRegistry> {
    await db.query("INSERT INTO agent_spaces_cluster (key, value) VALUES ('forwarding-secret', $1) ON CONFLICT (key) DO NOTHING", [randomBytes(32).toString('hex')]);
    const [row] = await db.query<{ value: string }>("SELECT value FROM agent_spaces_cluster WHERE key = 'forwarding-secret'");
    return new ReplicaRegistry(db, row!.value);
  }

  /** Where other replicas reach this one (its MCP endpoint's origin), once it joined. */
  get url(): string | undefined {
    return this.#url;
  }

  /** Puts this replica, reached at `url`, on record, and says every second from now on that it is alive. */
  async join(url: string): Promise<void> {
    // Replicas silent for a day are gone for good: their rows go, with the transport sessions and claims they held.
    await this.#db.query("DELETE FROM agent_spaces_replicas WHERE heartbeat_at < now() - interval '1 day'");
    await this.#db.query('DELETE FROM agent_spaces_transport_sessions WHERE replica NOT IN (SELECT id FROM agent_spaces_replicas)');
    await this.#db.query('DELETE FROM agent_spaces_claims WHERE replica NOT IN (SELECT id FROM agent_spaces_replicas)');
    await this.#db.query('INSERT INTO agent_spaces_replicas (id, url, started_at, heartbeat_at) VALUES ($1, $2, now(), now())', [this.id, url]);
    this.#url = url;
    this.#timer = setInterval(() => void this.#beat().catch(() => undefined), HEARTBEAT_MS);
    this.#timer.unref();
  }

  /** Whether replica `id` is this one or said it was alive within {@link REPLICA_SILENCE_MS}. */
  async alive(id: string): Promise<boolean> {
    return id === this.id || (await this.#look(id)) !== undefined;
  }

  /** Replica `id`'s URL while it is alive and not this one; undefined otherwise. */
  async peer(id: string): Promise<{ id: string; url: string } | undefined> {
    const url = id === this.id ? undefined : await this.#look(id);
    return url === undefined ? undefined : { id, url };
  }

  /** The URL of replica `id` when it is alive (asked of the database at most once per heartbeat); else undefined. */
  async #look(id: string): Promise<string | undefined> {
    if ((this.#unreachable.get(id) ?? 0) > Date.now()) return undefined;
    const seen = this.#seen.get(id);
    if (seen && Date.now() - seen.at < HEARTBEAT_MS) return seen.url;
    const [row] = await this.#db.query<{ url: string }>(
      'SELECT url FROM agent_spaces_replicas WHERE id = $1 AND heartbeat_at > now() - make_interval(secs => $2::double precision / 1000)',
      [id, REPLICA_SILENCE_MS],
    );
    this.#seen.set(id, { url: row?.url, at: Date.now() });
    if (this.#seen.size > 1_000) this.#seen.delete(this.#seen.keys().next().value!);
    return row?.url;
  }

  /**
   * Takes replica `id` for gone: a forwarded request could not reach it. Its heartbeat is not trusted until it would
   * have gone silent anyway, so its sessions are restored here at once rather than after {@link REPLICA_SILENCE_MS}.
   */
  unreachable(id: string): void {
    this.#unreachable.set(id, Date.now() + REPLICA_SILENCE_MS);
    if (this.#unreachable.size > 1_000) this.#unreachable.delete(this.#unreachable.keys().next().value!);
  }

  /** Marks a transport session (a 2025-11-25 `Mcp-Session-Id`, by its tag) as held here. */
  async hold(sessionTag: string): Promise<void> {
    await this.#db.query('INSERT INTO agent_spaces_transport_sessions (tag, replica) VALUES ($1, $2) ON CONFLICT (tag) DO UPDATE SET replica = $2', [sessionTag, this.id]);
  }

  /** The replica that holds transport session `sessionTag`, when one does. */
  async holderOf(sessionTag: string): Promise<string | undefined> {
    const [row] = await this.#db.query<{ replica: string }>('SELECT replica FROM agent_spaces_transport_sessions WHERE tag = $1', [sessionTag]);
    return row?.replica;
  }

  /**
   * Takes over work `item` (a kept run, `run:<id>`) that replica `from` held and is gone: true for exactly one of the
   * replicas that try at once. Work whose claim another live replica took is not taken.
   */
  async claim(item: string, from: string | undefined): Promise<boolean> {
    const [current] = await this.#db.query<{ replica: string }>('SELECT replica FROM agent_spaces_claims WHERE item = $1', [item]);
    const holder = current?.replica ?? from;
    if (holder !== undefined && (await this.alive(holder))) return holder === this.id;
    const taken = current
      ? await this.#db.query('UPDATE agent_spaces_claims SET replica = $2 WHERE item = $1 AND replica = $3 RETURNING item', [item, this.id, current.replica])
      : await this.#db.query('INSERT INTO agent_spaces_claims (item, replica) VALUES ($1, $2) ON CONFLICT (item) DO NOTHING RETURNING item', [item, this.id]);
    return taken.length === 1;
  }

  /** Stops saying it is alive and takes this replica off the record (its transport sessions go with it). */
  async leave(): Promise<void> {
    clearInterval(this.#timer);
    await this.#db.query('DELETE FROM agent_spaces_transport_sessions WHERE replica = $1', [this.id]).catch(() => undefined);
    await this.#db.query('DELETE FROM agent_spaces_replicas WHERE id = $1', [this.id]).catch(() => undefined);
  }

  async #beat(): Promise<void> {
    await this.#db.query('UPDATE agent_spaces_replicas SET heartbeat_at = now() WHERE id = $1', [this.id]);
  }
}
