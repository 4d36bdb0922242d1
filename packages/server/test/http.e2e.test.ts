import { Agent, request, type ClientRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { BUILTIN_TOOL_NAMES } from '../src/config.js';
import { startHttpServer, type HttpServerHandle } from '../src/http.js';
import { createCodeModeHost, type CodeModeHost } from '../src/server.js';
import { callTool, newClient, type ElicitAnswer } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const TOKEN = 'test-token-0123456789';
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

/** A raw POST with full control of the headers (fetch may not set Host). */
function post(url: string, headers: Record<string, string>, body = INITIALIZE): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

interface Reply {
  status: number;
  headers: Record<string, unknown>;
  body: string;
  /** Whether the request went over a keep-alive socket an earlier request used. */
  reusedSocket: boolean;
}

/**
 * Any raw request; `body` is written as given (a Buffer is sent with its Content-Length). Settles once the response
 * has ended and the whole body is written, so that a keep-alive socket is back in `agent` for the next request.
 */
function send(url: string, options: { method: string; headers?: Record<string, string>; body?: string | Buffer; agent?: Agent }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req: ClientRequest = request(url, { method: options.method, headers: options.headers, ...(options.agent ? { agent: options.agent } : {}) }, (res) => {
      let text = '';
      let pending = 2;
      const done = () => {
        if (--pending === 0) resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, reusedSocket: req.reusedSocket });
      };
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', done);
      if (req.writableFinished) done();
      else req.on('finish', done);
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

let project: TestProject;
let host: CodeModeHost;
let http: HttpServerHandle;

async function connect(token = TOKEN, elicit?: ElicitAnswer) {
  const client = newClient(elicit);
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  return client;
}

beforeAll(async () => {
  project = await createProject();
  host = createCodeModeHost({
    spaces: [{ id: 'trains', name: 'Trains' }],
    space: { rootDir: project.rootDir, handlers: project.handlers },
  });
  http = await startHttpServer({
    createServer: () => host.createServer(),
    stats: () => host.stats(),
    port: 0,
    authToken: TOKEN,
    rateLimit: { requests: 1000, windowSeconds: 60 },
  });
});

afterAll(async () => {
  await http?.close();
  await host?.close();
  await project?.cleanup();
});

describe('startHttpServer', () => {
  it('binds 127.0.0.1 by default and serves every tool to a client with the bearer token', async () => {
    expect(http.url).toBe(`http://127.0.0.1:${http.port}/mcp`);
    const client = await connect();
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...BUILTIN_TOOL_NAMES].sort());
    expect((await callTool(client, 'list_spaces')).body.spaces[0].id).toBe('trains');
    await client.close();
  });

  it('runs execute over HTTP', async () => {
    const client = await connect();
    const answer = await callTool(client, 'execute', {
      code: "import { trainSchedule } from '@capabilities/trains';\nexport default (await trainSchedule.getSchedule({})).length;",
    });
    expect(answer.isError).toBe(false);
    expect(answer.body.result).toBe(2);
    await client.close();
  });

  it('asks an HTTP client through elicitation and runs the gated call when it approves', async () => {
    const before = project.deletions.length;
    const client = await connect(TOKEN, () => ({ action: 'accept', content: { approve: true } }));
    const answer = await callTool(client, 'execute', { code: "import { vault } from '@capabilities/vault';\nexport default await vault.deleteSecrets();" });
    expect(answer.body).toMatchObject({ result: { deleted: 3 } });
    expect(project.deletions.length).toBe(before + 1);
    await client.close();
  });

  it('refuses requests without the token or with a wrong one (401)', async () => {
    const missing = await post(http.url, { host: `127.0.0.1:${http.port}` });
    expect(missing.status).toBe(401);
    expect(missing.headers['www-authenticate']).toMatch(/^Bearer/);
    expect((await post(http.url, { host: `127.0.0.1:${http.port}`, authorization: 'Bearer nope' })).status).toBe(401);
    await expect(connect('wrong-token')).rejects.toThrow();
  });

  it('refuses a Host or Origin that is not the server itself, against DNS rebinding (403)', async () => {
    const auth = { authorization: `Bearer ${TOKEN}` };
    expect((await post(http.url, { ...auth, host: `evil.example:${http.port}` })).status).toBe(403);
    expect((await post(http.url, { ...auth, host: `127.0.0.1:${http.port}`, origin: 'http://evil.example' })).status).toBe(403);
    const own = await post(http.url, { ...auth, host: `localhost:${http.port}`, origin: `http://localhost:${http.port}` });
    expect(own.status).toBe(200);
  });

  it('answers 404 for an unknown MCP session and for other paths', async () => {
    const headers = { host: `127.0.0.1:${http.port}`, authorization: `Bearer ${TOKEN}`, 'mcp-session-id': 'no-such-session' };
    expect((await post(http.url, headers)).status).toBe(404);
    expect((await post(http.url.replace('/mcp', '/other'), headers)).status).toBe(404);
  });

  it('keeps sessions private to the HTTP client that created them', async () => {
    const alice = await connect();
    const bob = await connect();
    const created = await callTool(alice, 'create_session');
    const id: string = created.body.sessionId;
    expect((await callTool(alice, 'send_code', { sessionId: id, code: 'const x = 41;' })).isError).toBe(false);
    const stolen = await callTool(bob, 'send_code', { sessionId: id, code: 'return x;' });
    expect(stolen.isError).toBe(true);
    expect(stolen.body.code).toBe('SESSION_NOT_FOUND');
    expect((await callTool(bob, 'list_sessions')).body.sessions).toEqual([]);
    expect((await callTool(alice, 'send_code', { sessionId: id, code: 'return x + 1;' })).body.result).toBe(42);
    await alice.close();
    await bob.close();
  });
});

describe('startHttpServer client lifecycle', () => {
  it('closes a client’s sessions when it ends its MCP session (DELETE)', async () => {
    const transport = new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
    const client = newClient();
    await client.connect(transport);
    await callTool(client, 'create_session');
    const { sessions, connections } = host.stats();
    await transport.terminateSession();
    await expect.poll(() => host.stats()).toMatchObject({ connections: connections - 1, sessions: sessions - 1 });
    await client.close();
  });
});

describe('startHttpServer rate limit', () => {
  it('answers 429 with Retry-After once a session spends its budget, and to an address sending requests without one', async () => {
    const limited = await startHttpServer({ createServer: () => host.createServer(), port: 0, rateLimit: { requests: 3, windowSeconds: 60 } });
    try {
      const headers = { host: `127.0.0.1:${limited.port}` };
      const noSession = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' });
      const statuses = [];
      for (let i = 0; i < 4; i++) statuses.push((await post(limited.url, headers, noSession)).status);
      expect(statuses).toEqual([400, 400, 400, 429]);
      const init = await post(limited.url, headers);
      expect(init.status).toBe(200);
      const session = { ...headers, 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
      const spent = [];
      for (let i = 0; i < 4; i++) spent.push((await post(limited.url, session, noSession)).status);
      expect(spent).toEqual([200, 200, 200, 429]);
      const refused = await post(limited.url, session, noSession);
      expect(refused.status).toBe(429);
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('never counts initialize against the address: a client still starts after the address spent its budget', async () => {
    const limited = await startHttpServer({ createServer: () => host.createServer(), port: 0, rateLimit: { requests: 3, windowSeconds: 60 } });
    try {
      const headers = { host: `127.0.0.1:${limited.port}` };
      for (let i = 0; i < 3; i++) expect((await post(limited.url, headers, '{"jsonrpc":"2.0","id":1,"method":"ping"}')).status).toBe(400);
      const statuses = [];
      for (let i = 0; i < 10; i++) statuses.push((await post(limited.url, headers)).status);
      expect(statuses).toEqual(Array(10).fill(200));
      const client = newClient();
      await client.connect(new StreamableHTTPClientTransport(new URL(limited.url)));
      expect((await client.listTools()).tools.length).toBeGreaterThan(0);
      await client.close();
    } finally {
      await limited.close();
    }
  });
});

describe('startHttpServer status codes', () => {
  const auth = () => ({ host: `127.0.0.1:${http.port}`, authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' });

  it('answers unparsable JSON without a session with a JSON-RPC parse error (400, -32700)', async () => {
    const reply = await send(http.url, { method: 'POST', headers: auth(), body: '{"jsonrpc": "2.0", "id": 1, "method": ' });
    expect(reply.status).toBe(400);
    expect(JSON.parse(reply.body)).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
  });

  it('reads at most 64 KiB of a POST without a session (413), and up to 4 MiB in a session', async () => {
    const padded = (id: number) => JSON.stringify({ jsonrpc: '2.0', id, method: 'ping', params: { _meta: { pad: 'x'.repeat(100 * 1024) } } });
    expect((await send(http.url, { method: 'POST', headers: auth(), body: padded(1) })).status).toBe(413);
    const init = await send(http.url, { method: 'POST', headers: auth(), body: INITIALIZE });
    const session = { ...auth(), 'mcp-session-id': String(init.headers['mcp-session-id']), 'mcp-protocol-version': '2025-06-18' };
    const inSession = await send(http.url, { method: 'POST', headers: session, body: padded(2) });
    expect(inSession.status).toBe(200);
    expect(inSession.body).toContain('"id":2');
  });

  it('answers other methods than GET, POST and DELETE with 405 and an Allow header', async () => {
    for (const method of ['PUT', 'PATCH']) {
      const reply = await send(http.url, { method, headers: auth(), body: INITIALIZE });
      expect(reply.status).toBe(405);
      expect(reply.headers.allow).toBe('GET, POST, DELETE');
    }
  });

  it('keeps a keep-alive connection open after a 413, with or without Content-Length', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    try {
      const big = Buffer.alloc(8 * 1024 * 1024, 0x20);
      const declared = await send(http.url, { method: 'POST', headers: auth(), body: big, agent });
      expect(declared.status).toBe(413);
      const chunked = await send(http.url, { method: 'POST', headers: { ...auth(), 'transfer-encoding': 'chunked' }, body: big, agent });
      expect(chunked).toMatchObject({ status: 413, reusedSocket: true });
      const next = await send(http.url, { method: 'POST', headers: auth(), body: INITIALIZE, agent });
      expect(next).toMatchObject({ status: 200, reusedSocket: true });
    } finally {
      agent.destroy();
    }
  });
});

describe('startHttpServer health endpoint', () => {
  it('answers GET /health without a token with counts only', async () => {
    const healthUrl = http.url.replace('/mcp', '/health');
    const client = await connect();
    await callTool(client, 'create_session');
    const reply = await send(healthUrl, { method: 'GET' });
    expect(reply.status).toBe(200);
    expect(reply.headers['content-type']).toBe('application/json');
    const body = JSON.parse(reply.body);
    expect(Object.keys(body).sort()).toEqual(['connections', 'sandboxes', 'sessions', 'spaces', 'status']);
    expect(body).toEqual({ status: 'ok', ...host.stats() });
    expect(body.connections).toBeGreaterThanOrEqual(1);
    expect(body.sessions).toBeGreaterThanOrEqual(1);
    expect(body.sandboxes).toBeGreaterThanOrEqual(1);
    expect((await send(healthUrl, { method: 'POST', body: '{}' })).status).toBe(405);
    await client.close();
  });

  it('shares one space between clients: an idle client costs no space, and a client leaving leaves it to the others', async () => {
    const open = async () => {
      const transport = new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
      const client = newClient();
      await client.connect(transport);
      return { client, transport };
    };
    const first = await open();
    await callTool(first.client, 'execute', { code: 'export default 1;' });
    const spaces = host.stats().spaces;
    expect(spaces).toBe(1);
    const second = await open();
    expect(host.stats().spaces).toBe(spaces);
    expect(await callTool(second.client, 'execute', { code: 'export default 2;' })).toMatchObject({ body: { result: 2 } });
    expect(host.stats().spaces).toBe(spaces);
    await first.transport.terminateSession();
    await first.client.close();
    expect(await callTool(second.client, 'execute', { code: 'export default 3;' })).toMatchObject({ body: { result: 3 } });
    await second.transport.terminateSession();
    await second.client.close();
  });
});
