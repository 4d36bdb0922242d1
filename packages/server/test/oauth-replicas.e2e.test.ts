// Per-user identity across replicas: two `mcp serve` replicas sharing PostgreSQL and Redis, configured with
// `server.auth` for a loopback test issuer. A request naming an MCP session another replica holds is forwarded with the
// client's token, and the holder verifies that token itself and compares its user with the session's.
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIssuer, type TestIssuer } from '../../../test/services/issuer.js';
import { newClient } from './support/client.js';
import { counterProject } from './support/counter.js';
import { ReplicatedService, type Replica } from './support/replicas.js';

const AUDIENCE = 'https://mcp.example.com/mcp';
const TOOLS = [{ name: 'bump', description: 'Bumps', inputSchema: { type: 'object', properties: {} } }];

let issuer: TestIssuer;
let service: ReplicatedService;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  issuer = await startIssuer({ audience: AUDIENCE });
  const project = await counterProject(TOOLS, { server: { auth: { issuer: issuer.url, audience: AUDIENCE, scopes: ['mcp'] } } });
  service = new ReplicatedService(project, {});
  await service.start(2);
  [a, b] = service.replicas as [Replica, Replica];
}, 180_000);

afterAll(async () => {
  await service?.close();
  await issuer?.close();
}, 60_000);

describe('an MCP session held by another replica', () => {
  it('is served to its user through either replica, and to nobody else', async () => {
    const alice = await issuer.sign({ sub: 'alice', scope: 'mcp' });
    const client = newClient();
    const transport = new StreamableHTTPClientTransport(new URL(a.url), { requestInit: { headers: { Authorization: `Bearer ${alice}` } } });
    await client.connect(transport);
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': transport.sessionId!, 'mcp-protocol-version': '2025-11-25' };
    const list = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
    const viaB = (token: string) => fetch(b.url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${token}` }, body: list });

    expect((await viaB(alice)).status).toBe(200);
    const bob = await viaB(await issuer.sign({ sub: 'bob', scope: 'mcp' }));
    expect(bob.status).toBe(404);
    expect(((await bob.json()) as { error: { message: string } }).error.message).toBe('Unknown MCP session: initialize a new one');
    expect((await viaB(await issuer.sign({ sub: 'alice', scope: 'mcp', foreignKey: true }))).status).toBe(401);
    // The holder logged the refusal: the request reached it and it compared the user itself.
    await expect.poll(() => a.serve.stderr, { timeout: 10_000 }).toContain('MCP session of another principal (asked by user:bob)');
    await client.close();
  });
});
