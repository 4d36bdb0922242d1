import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UserCredentials, type Principal, type UserSecrets } from '@agent-spaces/capabilities';
import { startRecordingMcpServer, type RecordingUpstream } from '../../../test/fixtures/recording-upstream.js';
import { McpClientPool, type McpPoolOptions } from '../src/index.js';

/** Per-user connections of the pool against a real Streamable HTTP server that records each request's credential. */

const who = (sub: string): Principal => ({ id: `user:${sub}`, scopes: [], groups: [] });
const TOKENS: Record<string, string> = { 'user:alice': 'alice-token-123', 'user:bob': 'bob-token-456', 'user:carol': 'carol-token-789' };
/** A real store of the interface: a fixed table. */
const table: UserSecrets = { source: 'the test table', get: async (principal, name) => (name === 'TOKEN' ? TOKENS[principal.id] : undefined) };

let upstream: RecordingUpstream;
const pools: McpClientPool[] = [];

beforeAll(async () => {
  upstream = await startRecordingMcpServer({});
});
afterAll(async () => {
  await Promise.all(pools.map((pool) => pool.close()));
  await upstream.close();
});

function pool(options: McpPoolOptions = {}, headers: Record<string, string> = { Authorization: 'Bearer ${user:TOKEN}' }): McpClientPool {
  const made = new McpClientPool({ up: { type: 'http', url: `${upstream.url}/mcp`, headers } }, { userSecrets: new UserCredentials(table), ...options });
  pools.push(made);
  return made;
}

/** The credentials of the `initialize` requests the upstream received since `from`. */
const initializes = (from: number) => upstream.requests.slice(from).filter((r) => r.what === 'initialize').map((r) => r.credential);

describe('per-user connections of the MCP client pool', () => {
  it('closes the least recently used idle one past maxUserConnections', async () => {
    const limited = pool({ maxUserConnections: 2 });
    const from = upstream.requests.length;
    for (const sub of ['alice', 'bob', 'alice', 'carol', 'alice', 'bob']) await limited.callTool('up', 'whoami', {}, { principal: who(sub) });
    // bob was least recently used when carol came, carol when bob came back: each connected again; alice never.
    expect(initializes(from)).toEqual(['Bearer alice-token-123', 'Bearer bob-token-456', 'Bearer carol-token-789', 'Bearer bob-token-456']);
  });

  it('closes one idle for userIdleTimeoutMs; the next call connects again', async () => {
    const quick = pool({ userIdleTimeoutMs: 50 });
    const from = upstream.requests.length;
    await quick.callTool('up', 'whoami', {}, { principal: who('alice') });
    await quick.callTool('up', 'whoami', {}, { principal: who('alice') });
    await new Promise((resolve) => setTimeout(resolve, 200));
    await quick.callTool('up', 'whoami', {}, { principal: who('alice') });
    expect(initializes(from)).toEqual(['Bearer alice-token-123', 'Bearer alice-token-123']);
  });

  it('keeps one shared connection for a server without ${user:NAME}, whoever calls', async () => {
    const shared = pool({}, { Authorization: 'Bearer static-token-000' });
    const from = upstream.requests.length;
    for (const sub of ['alice', 'bob', 'carol']) await shared.callTool('up', 'whoami', {}, { principal: who(sub) });
    expect(initializes(from)).toEqual(['Bearer static-token-000']);
  });

  it.each([
    ['no store', undefined],
    ['a store without the principal', table],
  ])('fails CREDENTIAL_MISSING with %s, before any request', async (_, store) => {
    const bare = new McpClientPool({ up: { type: 'http', url: `${upstream.url}/mcp`, headers: { Authorization: 'Bearer ${user:TOKEN}' } } }, { userSecrets: new UserCredentials(store) });
    pools.push(bare);
    const from = upstream.requests.length;
    await expect(bare.callTool('up', 'whoami', {}, { principal: who('mallory') })).rejects.toMatchObject({
      code: 'CREDENTIAL_MISSING',
      data: { name: 'TOKEN', principal: 'user:mallory' },
    });
    expect(upstream.requests.length).toBe(from);
  });
});
