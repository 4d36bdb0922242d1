import { writeFile } from 'node:fs/promises';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities } from '@agent-spaces/compiler';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { PromptListChangedNotificationSchema, ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { startHttpServer, type HttpServerHandle } from '../src/http.js';
import type { SpaceDefinition } from '../src/config.js';
import { createCodeModeHost, type CodeModeHost } from '../src/server.js';
import { callTool, newClient } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const GRACE_MS = 300;
const IDLE_MS = 400;

let project: TestProject;
let host: CodeModeHost;
let http: HttpServerHandle;

beforeAll(async () => {
  project = await createProject();
  host = createCodeModeHost({
    spaces: [{ id: 'trains', name: 'Trains' }],
    space: {
      rootDir: project.rootDir,
      handlers: { ...project.handlers, greeter: { hello: (params: unknown) => `hello ${(params as { name: string }).name}` } },
    },
  });
  http = await startHttpServer({
    createServer: () => host.createServer(),
    stats: () => host.stats(),
    port: 0,
    rateLimit: false,
    lifecycle: { disconnectGraceMs: GRACE_MS, idleMs: IDLE_MS },
  });
});

afterAll(async () => {
  await http?.close();
  await host?.close();
  await project?.cleanup();
});

async function open() {
  const transport = new StreamableHTTPClientTransport(new URL(http.url));
  const client = newClient();
  await client.connect(transport);
  return { client, transport, id: transport.sessionId! };
}

/** A raw JSON-RPC POST to the endpoint, as a client without the SDK (and without a standalone stream) sends it. */
async function post(
  body: unknown,
  sessionId?: string,
): Promise<{ status: number; json: () => Promise<unknown>; text: () => Promise<string>; sessionId: string | null }> {
  const response = await fetch(http.url, {
    method: 'POST',
    headers: {
      'Content-Type': 'application/json',
      Accept: 'application/json, text/event-stream',
      ...(sessionId ? { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body: JSON.stringify(body),
  });
  return {
    status: response.status,
    json: () => response.json() as Promise<unknown>,
    text: () => response.text(),
    sessionId: response.headers.get('mcp-session-id'),
  };
}

/** Initializes a client that never opens the standalone SSE stream; returns its MCP session id. */
async function rawClient(): Promise<string> {
  const init = await post({
    jsonrpc: '2.0',
    id: 1,
    method: 'initialize',
    params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
  });
  expect(init.status).toBe(200);
  const id = init.sessionId!;
  expect((await post({ jsonrpc: '2.0', method: 'notifications/initialized' }, id)).status).toBe(202);
  return id;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('clients that leave without DELETE', () => {
  it('frees a client whose event stream closed (SDK client.close()) with its sessions, and tells a late request why', async () => {
    const before = host.stats();
    const { client, id } = await open();
    const session = (await callTool(client, 'create_session')).body.sessionId as string;
    expect(host.stats()).toMatchObject({ connections: before.connections + 1, sessions: before.sessions + 1 });
    await client.close();
    await expect.poll(() => host.stats(), { timeout: 5_000 }).toMatchObject({ connections: before.connections, sessions: before.sessions });
    const late = await post({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'get_session_info', arguments: { sessionId: session } } }, id);
    expect(late.status).toBe(404);
    const error = ((await late.json()) as { error: { message: string; data: { reason: string } } }).error;
    expect(error.data.reason).toMatch(/event stream closed and did not reopen within 0\.3 s/);
    // The message is logged as the refusal's `why`: it never repeats the id, a bearer credential.
    expect(error.message).toMatch(/^This MCP session has ended: client disconnected/);
    expect(error.message).not.toContain(id);
  });

  it('keeps a client that is thinking with its stream open, past the grace and the idle time', async () => {
    const { client, transport } = await open();
    const session = (await callTool(client, 'create_session')).body.sessionId as string;
    await callTool(client, 'send_code', { sessionId: session, code: 'const kept = 41;' });
    await sleep(IDLE_MS + GRACE_MS + 300);
    expect((await callTool(client, 'send_code', { sessionId: session, code: 'return kept + 1;' })).body.result).toBe(42);
    await transport.terminateSession();
    await client.close();
  });

  it('frees a client that never opened a stream after the idle time, but not while it has a call in flight', async () => {
    const before = host.stats().connections;
    const id = await rawClient();
    expect(host.stats().connections).toBe(before + 1);
    // A call longer than the idle time keeps its client.
    const slow = await post(
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'execute', arguments: { code: `const end = Date.now() + ${IDLE_MS * 2}; while (Date.now() < end) {} export default 7;` } } },
      id,
    );
    expect(slow.status).toBe(200);
    const event = JSON.parse(/^data: (.*)$/m.exec(await slow.text())![1]!) as { result: { content: { text: string }[] } };
    expect(JSON.parse(event.result.content[0]!.text)).toMatchObject({ result: 7 });
    expect(host.stats().connections).toBe(before + 1);
    await expect.poll(() => host.stats().connections, { timeout: 5_000 }).toBe(before);
    const late = await post({ jsonrpc: '2.0', id: 3, method: 'tools/list' }, id);
    expect(late.status).toBe(404);
    expect(((await late.json()) as { error: { data: { reason: string } } }).error.data.reason).toMatch(/no request and no event stream for 0\.4 s/);
  });

  it('says "closed by the client" to a request after a DELETE', async () => {
    const { client, transport, id } = await open();
    await transport.terminateSession();
    await client.close();
    const late = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list' }, id);
    expect(late.status).toBe(404);
    expect(((await late.json()) as { error: { data: { reason: string } } }).error.data.reason).toBe('closed by the client (DELETE)');
  });
});

/** Initializes a raw client from the loopback address `from` (127.0.0.x); resolves with its MCP session id. */
function initializeFrom(url: string, from: string): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: from, version: '1' } } });
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers, localAddress: from }, (res) => {
      res.resume();
      res.on('end', () => (res.statusCode === 200 ? resolve(String(res.headers['mcp-session-id'])) : reject(new Error(`initialize: ${res.statusCode}`))));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('clients that never use their session', () => {
  it('frees the oldest unused client of an address past its cap, and the oldest of all past the server cap, saying why', async () => {
    const capped = await startHttpServer({ createServer: () => host.createServer(), port: 0, rateLimit: false, lifecycle: { maxUnusedPerAddress: 2, unusedGraceMs: 0, maxUnused: 3 } });
    const reasonOf = async (id: string) => {
      const late = await fetch(capped.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': id }, body: '{"jsonrpc":"2.0","id":2,"method":"ping"}' });
      return late.status === 404 ? ((await late.json()) as { error: { data: { reason: string } } }).error.data.reason : late.status;
    };
    try {
      const a: string[] = [];
      for (let i = 0; i < 3; i++) a.push(await initializeFrom(capped.url, '127.0.0.2'));
      const b = [await initializeFrom(capped.url, '127.0.0.3'), await initializeFrom(capped.url, '127.0.0.3')];
      // A request uses a session, so each is asked only once all were created.
      expect(await reasonOf(a[0]!)).toBe('unused: freed for a newer client of its address (at most 2 unused clients an address)');
      expect(await reasonOf(a[1]!)).toBe('unused: freed for a newer client (at most 3 unused clients)');
      expect([await reasonOf(a[2]!), await reasonOf(b[0]!), await reasonOf(b[1]!)]).toEqual([200, 200, 200]);
    } finally {
      await capped.close();
    }
  });

  it('frees a client that initialized and sent nothing more after the unused time, but not one that went on', async () => {
    const timed = await startHttpServer({ createServer: () => host.createServer(), port: 0, rateLimit: false, lifecycle: { unusedMs: 300 } });
    try {
      const unused = await initializeFrom(timed.url, '127.0.0.1');
      const client = newClient();
      await client.connect(new StreamableHTTPClientTransport(new URL(timed.url)));
      await sleep(800);
      const late = await fetch(timed.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-session-id': unused }, body: '{"jsonrpc":"2.0","id":2,"method":"ping"}' });
      expect(late.status).toBe(404);
      expect(((await late.json()) as { error: { data: { reason: string } } }).error.data.reason).toBe('unused: no request within 0.3 s of initializing');
      expect((await callTool(client, 'list_spaces')).body.spaces[0].id).toBe('trains');
      await client.close();
    } finally {
      await timed.close();
    }
  });
});

describe('hot reload', () => {
  it('serves a capability built while a client is connected without a restart; a session from before keeps working', async () => {
    const { client, transport } = await open();
    const session = (await callTool(client, 'create_session')).body.sessionId as string;
    await callTool(client, 'send_code', { sessionId: session, code: 'const before = 5;' });
    const code = "import { greeter } from '@capabilities/greeter';\nexport default await greeter.hello({ name: 'Ada' });";
    const missing = await callTool(client, 'execute', { code });
    expect(missing.body.code).toBe('TYPE_ERROR');

    await writeFile(
      join(project.rootDir, 'capabilities', 'greeter.json'),
      JSON.stringify({
        name: 'greeter',
        description: 'Says hello',
        functions: [{ name: 'hello', description: 'Greet someone', parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] }, returns: { type: 'string' } }],
        executor: { kind: 'runtime' },
      }),
    );
    const report = await buildCapabilities({ rootDir: project.rootDir, sources: ['capabilities/*.json'] });
    expect(report.totals.failed).toBe(0);

    await expect.poll(async () => (await callTool(client, 'execute', { code })).body.result, { timeout: 10_000, interval: 200 }).toBe('hello Ada');
    const found = await callTool(client, 'search_capabilities', { query: 'greet someone' });
    expect(found.text).toContain('greeter.hello');
    expect((await callTool(client, 'send_code', { sessionId: session, code: 'return before * 2;' })).body.result).toBe(10);
    await transport.terminateSession();
    await client.close();
  });

  it('announces changed tool and prompt lists to connected clients on a config reload, and serves the new ones', async () => {
    const { client, transport } = await open();
    const heard: string[] = [];
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.push('tools'));
    client.setNotificationHandler(PromptListChangedNotificationSchema, () => void heard.push('prompts'));
    const plain = { id: 'trains', name: 'Trains' };
    const withTool: SpaceDefinition = {
      ...plain,
      tools: [{ name: 'double', description: 'Doubles n', parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, code: 'return input.n * 2;' }],
      prompts: [{ name: 'plan', description: 'Plan a trip', template: 'Plan a trip to {city}', arguments: [{ name: 'city', required: true }] }],
    };
    // Notifications travel on the client's standalone stream, which it opens just after connecting: reload until heard.
    await expect
      .poll(() => {
        host.reload({ spaces: [plain] });
        host.reload({ spaces: [withTool] });
        return [...new Set(heard)].sort();
      })
      .toEqual(['prompts', 'tools']);
    const tools = (await client.listTools()).tools.map((t) => t.name);
    expect(tools).toContain('double');
    expect((await callTool(client, 'double', { n: 21 })).body).toBe(42);
    expect(() => host.reload({ spaces: [] })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('double');
    await transport.terminateSession();
    await client.close();
  });
});
