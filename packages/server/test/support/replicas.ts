import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHaproxy, type HaproxyServer } from '../../../../test/services/haproxy.js';
import { startPostgres, type PostgresServer } from '../../../../test/services/postgres.js';
import { startRedis, type RedisServer } from '../../../../test/services/redis.js';
import type { Project } from '../../../../test/fixtures/project.js';
import { newClient } from './client.js';
import { HttpServe } from './serve.js';

/** One `mcp serve` replica of a test service: its process and its MCP endpoint. */
export interface Replica {
  serve: HttpServe;
  url: string;
}

/**
 * A service of `mcp serve` replicas as a team would run it: real PostgreSQL and Redis servers, replicas of one project
 * sharing them (each a child process), and a real HAProxy balancing round robin in front.
 */
export class ReplicatedService {
  readonly replicas: Replica[] = [];
  readonly #closers: (() => Promise<unknown>)[] = [];
  postgres!: PostgresServer;
  redis!: RedisServer;
  databaseUrl!: string;
  balancer!: HaproxyServer;

  constructor(
    readonly project: Project,
    readonly values: Record<string, string | boolean>,
  ) {}

  /** Starts PostgreSQL, Redis, `count` replicas and the balancer. */
  async start(count: number): Promise<void> {
    this.postgres = await startPostgres();
    this.#closers.push(() => this.postgres.close());
    this.databaseUrl = await this.postgres.createDatabase();
    this.redis = await startRedis();
    this.#closers.push(() => this.redis.close());
    for (let i = 0; i < count; i++) await this.addReplica();
    this.balancer = await startHaproxy(this.replicas.map((r, i) => ({ name: `replica-${i}`, url: new URL(r.url).origin })));
    this.#closers.push(() => this.balancer.close());
  }

  /** Starts one more replica (the first one runs the migrations: replicas start one after another). */
  async addReplica(): Promise<Replica> {
    const serve = new HttpServe(this.project.dir, this.values, { DATABASE_URL: this.databaseUrl, REDIS_URL: this.redis.url });
    this.#closers.push(() => serve.stop());
    const replica = { serve, url: await serve.url() };
    this.replicas.push(replica);
    return replica;
  }

  /** The balancer's MCP endpoint. */
  get url(): string {
    return `${this.balancer.url}/mcp`;
  }

  async close(): Promise<void> {
    for (const close of this.#closers.reverse()) await close().catch(() => undefined);
  }
}

/** An official 1.x SDK client speaking 2025-11-25 to `url` with bearer `token`. */
export async function legacyClient(url: string, token: string): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

/** An official v2 SDK client pinned to the stateless revision 2026-07-28, to `url` with bearer `token`. */
export async function modernClient(url: string, token: string): Promise<ModernClient> {
  const client = new ModernClient({ name: 'agent-spaces-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
  await client.connect(new ModernTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}
