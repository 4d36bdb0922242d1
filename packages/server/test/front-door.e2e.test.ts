import { Agent, request } from 'node:http';
import { connect as connectSocket, type Socket } from 'node:net';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sessionTag } from '../src/log.js';
import { callTool, newClient } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';

// One local process floods `mcp serve` over HTTP — every client shares 127.0.0.1 — and other clients are still served.

const FLOOD = 1_000;
/** The server's default cap of unused clients of one address (docs/mcp-server.md, "HTTP safety"). */
const MAX_UNUSED_PER_ADDRESS = 128;
/** How long a client that just initialized is never freed for its address's cap. */
const UNUSED_GRACE_MS = 2_000;
/** Short timeouts of this server, so the tests see connections and unused clients freed. */
const REQUEST_TIMEOUT_SECONDS = 2;
const UNUSED_CLIENT_SECONDS = 4;
const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'flood', version: '1' } },
});

let project: TestProject;
let server: HttpServe;
let url: string;
/** Every MCP session id a client of these tests was given: none may reach the log. */
const sessionIds: string[] = [];

beforeAll(async () => {
  project = await createProject();
  const server_ = { requestTimeoutSeconds: REQUEST_TIMEOUT_SECONDS, unusedClientSeconds: UNUSED_CLIENT_SECONDS };
  await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.json'], server: server_ }));
  server = new HttpServe(project.rootDir, { 'log-format': 'json' });
  url = await server.url();
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await project?.cleanup();
}, 30_000);

interface Reply {
  status: number;
  sessionId: string | undefined;
  body: string;
}

/** A raw POST to the endpoint over `agent`. */
function post(body: string, agent: Agent, sessionId?: string): Promise<Reply> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(sessionId ? { 'mcp-session-id': sessionId } : {}) };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, agent }, (res) => {
      let text = '';
      res.on('data', (chunk: Buffer) => (text += chunk.toString()));
      res.on('end', () => {
        const id = res.headers['mcp-session-id'];
        resolve({ status: res.statusCode ?? 0, sessionId: typeof id === 'string' ? id : undefined, body: text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends `count` POSTs of `body` from this process, 32 at a time over keep-alive connections; the replies in order. */
async function flood(count: number, body: string): Promise<Reply[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 32 });
  try {
    const replies: Reply[] = [];
    let next = 0;
    const worker = async () => {
      while (next < count) {
        const i = next++;
        replies[i] = await post(body, agent);
      }
    };
    await Promise.all(Array.from({ length: 32 }, worker));
    for (const reply of replies) if (reply.sessionId) sessionIds.push(reply.sessionId);
    return replies;
  } finally {
    agent.destroy();
  }
}

/** An official SDK client over Streamable HTTP. */
async function sdkClient() {
  const transport = new StreamableHTTPClientTransport(new URL(url));
  const client = newClient();
  await client.connect(transport);
  sessionIds.push(transport.sessionId!);
  return client;
}

/** Asserts that `client` lists the tools and runs a script in the sandbox. */
async function expectServed(client: Awaited<ReturnType<typeof sdkClient>>): Promise<void> {
  const { tools } = await client.listTools();
  expect(tools.map((t) => t.name)).toContain('execute');
  const run = await callTool(client, 'execute', { code: 'export default 21 * 2;' });
  expect(run.body).toMatchObject({ result: 42 });
}

async function health(): Promise<{ connections: number }> {
  return (await fetch(url.replace('/mcp', '/health'))).json() as Promise<{ connections: number }>;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('one local process sending 1,000 initialize requests', () => {
  it('is never answered 429; a connected client is served throughout, and new SDK clients connect and work during and after', { timeout: 120_000 }, async () => {
    const connected = await sdkClient();
    let flooding = true;
    const during = flood(FLOOD, INITIALIZE).finally(() => (flooding = false));
    const served = (async () => {
      let answers = 0;
      for (; flooding; answers++) expect((await callTool(connected, 'list_spaces')).body.spaces[0].id).toBe('default');
      return answers;
    })();
    await sleep(200);
    const joined = await sdkClient();
    const joinedDuringFlood = flooding;
    await expectServed(joined);
    const replies = await during;
    expect(joinedDuringFlood).toBe(true);
    expect(await served).toBeGreaterThan(0);
    expect(replies.filter((r) => r.status !== 200)).toEqual([]);
    const fresh = await sdkClient();
    await expectServed(fresh);
    await expectServed(connected);
    await Promise.all([fresh.close(), joined.close(), connected.close()]);
  });

  it('frees the clients that never use their session: past 128 an address at once (oldest first), the rest after the unused time', { timeout: 60_000 }, async () => {
    await expect.poll(async () => (await health()).connections, { timeout: 20_000 }).toBe(0);
    const replies = await flood(FLOOD, INITIALIZE);
    // A client is never freed for its address's cap in its first 2 s: the next initialize after them frees the excess.
    await sleep(UNUSED_GRACE_MS);
    const agent = new Agent();
    replies.push(await post(INITIALIZE, agent));
    expect((await health()).connections).toBeLessThanOrEqual(MAX_UNUSED_PER_ADDRESS);
    const oldest = await post('{"jsonrpc":"2.0","id":2,"method":"tools/list"}', agent, replies[0]!.sessionId);
    expect(oldest.status).toBe(404);
    expect(JSON.parse(oldest.body).error.data.reason).toMatch(/^unused: freed for a newer client of its address/);
    const newest = await post('{"jsonrpc":"2.0","method":"notifications/initialized"}', agent, replies.at(-1)!.sessionId);
    expect(newest.status).toBe(202);
    await expect.poll(async () => (await health()).connections, { timeout: (UNUSED_CLIENT_SECONDS + 5) * 1000 }).toBe(1);
    agent.destroy();
  });
});

describe('one local process holding connections open', () => {
  it('serves a new SDK client while 1,000 connections send nothing and 1,000 trickle a body, then closes them at the request timeout', { timeout: 120_000 }, async () => {
    const connected = await sdkClient();
    const port = Number(new URL(url).port);
    const opened = await Promise.allSettled(Array.from({ length: 2 * FLOOD }, () => openSocket(port)));
    expect(opened.filter((o) => o.status === 'rejected')).toEqual([]);
    const sockets = opened.map((o) => (o as PromiseFulfilledResult<Socket>).value);
    const closed = sockets.map((socket) => new Promise<void>((resolve) => socket.once('close', () => resolve())));
    const trickle = setInterval(() => {
      for (const socket of sockets.slice(FLOOD)) if (!socket.destroyed) socket.write(' ');
    }, 250);
    try {
      for (const socket of sockets.slice(FLOOD)) {
        socket.write(`POST /mcp HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`);
      }
      const fresh = await sdkClient();
      await expectServed(fresh);
      await Promise.race([Promise.all(closed), sleep(30_000).then(() => Promise.reject(new Error('the server kept idle connections open')))]);
      await sleep(REQUEST_TIMEOUT_SECONDS * 1000);
      await expectServed(connected);
      await expectServed(fresh);
      await Promise.all([fresh.close(), connected.close()]);
    } finally {
      clearInterval(trickle);
      for (const socket of sockets) socket.destroy();
    }
  });
});

describe('one local process sending requests without a session', () => {
  it('gets 400 and then 429 for 1,000 of them, and a new SDK client still connects and works', { timeout: 120_000 }, async () => {
    const replies = await flood(FLOOD, '{"jsonrpc":"2.0","id":1,"method":"tools/list"}');
    const statuses = new Set(replies.map((r) => r.status));
    expect([...statuses].sort()).toEqual([400, 429]);
    const fresh = await sdkClient();
    await expectServed(fresh);
    await fresh.close();
  });
});

describe('the log of a flooded server', () => {
  it('never holds an MCP session id in clear, only its tag', async () => {
    expect(sessionIds.length).toBeGreaterThan(2 * FLOOD);
    await expect.poll(() => server.stderr.includes('client.reaped')).toBe(true);
    const entries = server.stderr.trimEnd().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const tags = new Set(sessionIds.map(sessionTag));
    const reaped = entries.filter((e) => e.event === 'client.reaped');
    expect(reaped.length).toBeGreaterThan(FLOOD);
    for (const entry of reaped) expect(tags.has(entry.client as string)).toBe(true);
    for (const id of sessionIds) expect(server.stderr).not.toContain(id);
  });
});

/** A TCP connection to the server that has sent nothing yet. */
function openSocket(port: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connectSocket({ port, host: '127.0.0.1' });
    socket.once('connect', () => {
      // Writes after the server closed it fail with EPIPE, which is what is expected of it.
      socket.on('error', () => undefined);
      resolve(socket);
    });
    socket.once('error', reject);
  });
}

describe('a server listening on every address (--host 0.0.0.0)', () => {
  let open: HttpServe;
  let port: number;

  beforeAll(async () => {
    open = new HttpServe(project.rootDir, { host: '0.0.0.0', 'log-format': 'json' });
    await vi.waitFor(() => expect(open.stderr).toMatch(/http:\/\/0\.0\.0\.0:\d+\/mcp/), { timeout: 60_000, interval: 100 });
    port = Number(/http:\/\/0\.0\.0\.0:(\d+)\/mcp/.exec(open.stderr)![1]);
  }, 90_000);

  afterAll(async () => {
    await open?.stop();
  }, 30_000);

  /** A raw POST of `initialize` to the server with `headers` (a `host` header replaces the one node would send). */
  function initializeWith(headers: Record<string, string>): Promise<{ status: number; message: string }> {
    return new Promise((resolve, reject) => {
      const req = request(
        { host: '127.0.0.1', port, path: '/mcp', method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, message: res.statusCode === 403 ? (JSON.parse(text) as { error: { message: string } }).error.message : text }));
        },
      );
      req.on('error', reject);
      req.end(INITIALIZE);
    });
  }

  it('answers a foreign Host with a 403 that names server.allowedHosts, the key that would allow it', async () => {
    for (const host of ['evil.example', `evil.example:${port}`, 'EVIL.Example', `10.0.0.7:${port}`, '[fe80::1]', `localhost.evil.example:${port}`, '0.0.0.0', 'evil.example\u00e9']) {
      const reply = await initializeWith({ host });
      expect(reply.status, host).toBe(403);
      expect(reply.message, host).toMatch(/^Forbidden: Host ".*" is not allowed \(DNS rebinding protection\); to serve it, add ".*" to server\.allowedHosts in the config file$/);
    }
    const own = await initializeWith({ host: `localhost:${port}` });
    expect(own.status).toBe(200);
  });

  it('answers a foreign Origin with a 403 that names server.allowedOrigins', async () => {
    for (const origin of ['http://evil.example', 'null', `http://localhost:${port}.evil.example`, `https://localhost:${port}`, `http://localhost:${port + 1}`]) {
      const reply = await initializeWith({ host: `127.0.0.1:${port}`, origin });
      expect(reply.status, origin).toBe(403);
      expect(reply.message, origin).toContain('to accept it, add it to server.allowedOrigins in the config file');
    }
    expect((await initializeWith({ host: `127.0.0.1:${port}`, origin: `http://127.0.0.1:${port}` })).status).toBe(200);
  });
});
