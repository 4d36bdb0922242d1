import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BUILTIN_TOOL_NAMES } from '../src/config.js';
import { startHttpServer, type HttpServerHandle } from '../src/http.js';
import { createCodeModeHost, type CodeModeHost } from '../src/server.js';
import { callTool, newClient } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';

const TOKEN = 'alice-token-0123456789';
const OTHER_TOKEN = 'bob-token-9876543210';
const MODERN = '2026-07-28';
const SCHEDULE_CODE = "import { trainSchedule } from '@capabilities/trains';\nexport default (await trainSchedule.getSchedule({})).length;";

let project: TestProject;
let host: CodeModeHost;
let http: HttpServerHandle;

beforeAll(async () => {
  project = await createProject();
  host = createCodeModeHost({ spaces: [{ id: 'trains', name: 'Trains' }], space: { rootDir: project.rootDir, handlers: project.handlers } });
  http = await startHttpServer({
    createServer: () => host.createServer(),
    createModernServer: (authInfo) => host.createModernServer(authInfo),
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

/** What a test client gets of a tool call: its text and, when JSON, its value. */
interface Answer {
  isError: boolean;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the parsed JSON of the tools' answers, read field by field
  body: any;
}

/** A v2 client pinned to protocol 2026-07-28 over Streamable HTTP (at `url`), with every response's headers it saw. */
async function modernClient(token = TOKEN, url = http.url): Promise<{ client: ModernClient; transport: ModernTransport; responses: Headers[] }> {
  const responses: Headers[] = [];
  const transport = new ModernTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
    fetch: async (url, init) => {
      const response = await fetch(url, init);
      responses.push(response.headers);
      return response;
    },
  });
  const client = new ModernClient({ name: 'modern-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
  await client.connect(transport);
  return { client, transport, responses };
}

async function legacyClient(token = TOKEN, url = http.url) {
  const client = newClient();
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, transport };
}

/** One raw 2026-07-28 request: `method` with `params` and the envelope (unless `envelope` replaces it), as one POST. */
function modernRequest(method: string, params: Record<string, unknown> = {}, options: { token?: string | null; envelope?: Record<string, unknown>; headers?: Record<string, string> } = {}) {
  const envelope = options.envelope ?? {
    'io.modelcontextprotocol/protocolVersion': MODERN,
    'io.modelcontextprotocol/clientInfo': { name: 'raw', version: '1' },
    'io.modelcontextprotocol/clientCapabilities': {},
  };
  const token = options.token === undefined ? TOKEN : options.token;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': MODERN,
    'mcp-method': method,
    ...(typeof params.name === 'string' ? { 'mcp-name': params.name } : {}),
    ...(token ? { authorization: `Bearer ${token}` } : {}),
    ...options.headers,
  };
  return fetch(http.url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: envelope } }) });
}

/** The JSON-RPC message of a response, JSON or the last `data:` event of an SSE stream. */
async function message(response: Response): Promise<{ result?: Record<string, unknown>; error?: { code: number; message: string } }> {
  const text = await response.text();
  if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
  const events = text.split('\n').filter((line) => line.startsWith('data:'));
  return JSON.parse(events.at(-1)!.slice(5));
}

function toolText(result: Record<string, unknown> | undefined): Answer {
  const content = (result?.content ?? []) as { type: string; text: string }[];
  return { isError: result?.isError === true, body: JSON.parse(content[0]?.text ?? 'null') };
}

describe('mcp serve over HTTP speaks 2026-07-28 beside 2025-11-25', () => {
  it('serves the v2 client on 2026-07-28 and the 1.x client on 2025-11-25 the same tools and results', async () => {
    const modern = await modernClient();
    const legacy = await legacyClient();
    expect(modern.client.getProtocolEra()).toBe('modern');
    expect(modern.client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(legacy.transport.protocolVersion).toBe('2025-11-25');
    expect(modern.client.getInstructions()).toBe(legacy.client.getInstructions());

    const modernTools = (await modern.client.listTools()).tools.map((t) => t.name).sort();
    const legacyTools = (await legacy.client.listTools()).tools.map((t) => t.name).sort();
    expect(modernTools).toEqual([...BUILTIN_TOOL_NAMES].sort());
    expect(modernTools).toEqual(legacyTools);

    const modernRun = await callTool(modern.client, 'execute', { code: SCHEDULE_CODE });
    const legacyRun = await callTool(legacy.client, 'execute', { code: SCHEDULE_CODE });
    expect(modernRun).toMatchObject({ isError: false, body: { result: 2 } });
    expect(legacyRun.body.result).toBe(modernRun.body.result);

    // No MCP session: the transport never got one, and no response carried the header.
    expect(modern.transport.sessionId).toBeUndefined();
    expect(modern.responses.length).toBeGreaterThan(2);
    expect(modern.responses.every((h) => h.get('mcp-session-id') === null)).toBe(true);
    await modern.client.close();
    await legacy.client.close();
  });

  it('keeps a REPL variable across send_code calls that are separate requests naming only the session id', async () => {
    const legacy = await legacyClient();
    const legacySession: string = (await callTool(legacy.client, 'create_session')).body.sessionId;
    await callTool(legacy.client, 'send_code', { sessionId: legacySession, code: 'const x = 41;' });
    const legacyAnswer = await callTool(legacy.client, 'send_code', { sessionId: legacySession, code: 'return x + 1;' });

    const first = await modernClient();
    const sessionId: string = (await callTool(first.client, 'create_session')).body.sessionId;
    expect((await callTool(first.client, 'send_code', { sessionId, code: 'const x = 41;' })).isError).toBe(false);
    await first.client.close();
    // A lone HTTP request, from no client connection at all, with only the session id.
    const response = await modernRequest('tools/call', { name: 'send_code', arguments: { sessionId, code: 'return x + 1;' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('mcp-session-id')).toBeNull();
    const answer = toolText((await message(response)).result);
    expect(answer).toMatchObject({ isError: false, body: { result: 42 } });
    expect(answer.body.result).toBe(legacyAnswer.body.result);
    await legacy.client.close();
  });

  it('sends the progress of a 2026-07-28 tools/call on its response stream', async () => {
    const { client } = await modernClient();
    const progress: string[] = [];
    const result = await client.callTool({ name: 'execute', arguments: { code: SCHEDULE_CODE } }, { onprogress: (p) => progress.push(p.message ?? '') });
    expect(result.isError).not.toBe(true);
    expect(progress, JSON.stringify(result)).toContain('trains.getSchedule started');
    await client.close();
  });

  it('never asks a 2026-07-28 client for an approval: the headless mode (deny) decides', async () => {
    const before = project.deletions.length;
    const { client } = await modernClient();
    const code = "import { vault } from '@capabilities/vault';\ntry { return await vault.deleteSecrets(); } catch (error) { const { code, message } = error as { code: string; message: string }; return { code, message }; }";
    const answer = await callTool(client, 'execute', { code });
    expect(answer.isError, JSON.stringify(answer.body)).toBe(false);
    expect(answer.body.result.code).toBe('APPROVAL_DENIED');
    expect(answer.body.result.message).toContain('2026-07-28');
    expect(project.deletions.length).toBe(before);
    await client.close();
  });
});

describe('2026-07-28 requests are the principal’s, checked on every request', () => {
  it('refuses another principal every use of a session it names by id, revealing nothing', async () => {
    // A second front door of the same host with its own token: a second principal of the same sessions.
    const other = await startHttpServer({ createServer: () => host.createServer(), createModernServer: (auth) => host.createModernServer(auth), port: 0, authToken: OTHER_TOKEN });
    try {
      const alice = await modernClient();
      const sessionId: string = (await callTool(alice.client, 'create_session')).body.sessionId;
      await callTool(alice.client, 'send_code', { sessionId, code: 'const secret = "s3cr3t-value";' });
      const bobAt = (method: string, params: Record<string, unknown>) =>
        fetch(other.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': method, 'mcp-name': String(params.name), authorization: `Bearer ${OTHER_TOKEN}` },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id: 7,
            method,
            params: { ...params, _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'bob', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } },
          }),
        });
      for (const [tool, args] of [
        ['send_code', { sessionId, code: 'return secret;' }],
        ['get_session_info', { sessionId }],
        ['get_session_history', { sessionId }],
        ['close_session', { sessionId }],
      ] as const) {
        const response = await bobAt('tools/call', { name: tool, arguments: args });
        const text = await response.text();
        expect(text, tool).not.toContain('s3cr3t-value');
        expect(text, tool).not.toContain('const secret');
        const answer = toolText((JSON.parse(text.startsWith('{') ? text : text.split('\n').filter((l) => l.startsWith('data:')).at(-1)!.slice(5)) as { result: Record<string, unknown> }).result);
        expect(answer, tool).toMatchObject({ isError: true, body: { code: 'SESSION_NOT_FOUND' } });
      }
      const listed = await bobAt('tools/call', { name: 'list_sessions', arguments: {} });
      expect(toolText((await message(listed)).result).body.sessions).toEqual([]);
      // Alice's session is untouched by all of it.
      expect(await callTool(alice.client, 'send_code', { sessionId, code: 'return secret.length;' })).toMatchObject({ isError: false, body: { result: 12 } });
      await alice.client.close();
    } finally {
      await other.close();
    }
  });

  it('keeps a 2025-11-25 client’s sessions from a 2026-07-28 request of the same token', async () => {
    const legacy = await legacyClient();
    const sessionId: string = (await callTool(legacy.client, 'create_session')).body.sessionId;
    const response = await modernRequest('tools/call', { name: 'send_code', arguments: { sessionId, code: 'return 1;' } });
    expect(toolText((await message(response)).result)).toMatchObject({ isError: true, body: { code: 'SESSION_NOT_FOUND' } });
    await legacy.client.close();
  });
});

describe('the front door checks 2026-07-28 requests as it checks 2025-11-25 ones', () => {
  it('answers a malformed envelope or an unsupported revision with the SDK’s protocol error, never a 500', async () => {
    const variants: { envelope: Record<string, unknown>; headers?: Record<string, string> }[] = [
      { envelope: { 'io.modelcontextprotocol/protocolVersion': 42 } },
      { envelope: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientCapabilities': 'all' } },
      { envelope: { 'io.modelcontextprotocol/protocolVersion': '2099-01-01', 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }, headers: { 'mcp-protocol-version': '2099-01-01' } },
      { envelope: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} }, headers: { 'mcp-protocol-version': '2025-11-25' } },
      { envelope: {} },
    ];
    for (const [i, variant] of variants.entries()) {
      const response = await modernRequest('tools/list', {}, variant);
      expect(response.status, `variant ${i}`).toBeLessThan(500);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      const { error } = await message(response);
      expect(error, `variant ${i}`).toMatchObject({ code: expect.any(Number) });
      expect(error!.code, `variant ${i}`).toBeLessThan(0);
    }
  });

  it('answers 413 to a body over 4 MiB, 415 to one that is not JSON, 401 without the token — for both revisions', async () => {
    const huge = 'x'.repeat(4 * 1024 * 1024 + 1);
    expect((await modernRequest('tools/call', { name: 'execute', arguments: { code: huge } })).status).toBe(413);
    expect((await modernRequest('tools/list', {}, { headers: { 'content-type': 'text/plain' } })).status).toBe(415);
    const missing = await modernRequest('tools/list', {}, { token: null });
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await modernRequest('tools/list', {}, { token: 'wrong' })).status).toBe(401);
    const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    const legacyMissing = await fetch(http.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify(initialize) });
    expect(legacyMissing.status).toBe(401);
    await expect(modernClient('wrong')).rejects.toThrow();
  });

  it('opens no MCP session for 2026-07-28 requests: 100 of them leave /health’s counts as they were', async () => {
    const health = async () => (await fetch(http.url.replace('/mcp', '/health'))).json() as Promise<{ connections: number; sessions: number }>;
    // The 2025-11-25 clients of the tests before are closed: their connections and sessions end.
    await expect.poll(async () => (await health()).connections, { timeout: 10_000 }).toBe(0);
    const before = await health();
    for (let i = 0; i < 100; i++) {
      const response = await modernRequest(i % 2 ? 'tools/list' : 'prompts/list');
      expect(response.status).toBe(200);
      expect(response.headers.get('mcp-session-id')).toBeNull();
      await response.text();
    }
    const after = await health();
    expect(after.connections).toBe(before.connections);
    expect(after.sessions).toBe(before.sessions);
  });

  it('counts 2026-07-28 requests against their principal’s budget (429)', async () => {
    const limited = await startHttpServer({
      createServer: () => host.createServer(),
      createModernServer: (auth) => host.createModernServer(auth),
      port: 0,
      authToken: TOKEN,
      rateLimit: { requests: 3, windowSeconds: 60 },
    });
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) {
        const response = await fetch(limited.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'mcp-protocol-version': MODERN, 'mcp-method': 'tools/list', authorization: `Bearer ${TOKEN}` },
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': MODERN, 'io.modelcontextprotocol/clientInfo': { name: 'x', version: '1' }, 'io.modelcontextprotocol/clientCapabilities': {} } } }),
        });
        statuses.push(response.status);
        if (response.status === 429) expect(Number(response.headers.get('retry-after'))).toBeGreaterThan(0);
        await response.text();
      }
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await limited.close();
    }
  });
});

describe('agent-spaces mcp serve --port (the CLI) serves both revisions', () => {
  it('answers the v2 client on 2026-07-28 and the 1.x client on 2025-11-25 alike, with no MCP session for the first', async () => {
    await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.json'] }));
    const served = new HttpServe(project.rootDir, { 'auth-token': TOKEN });
    try {
      const url = await served.url();
      const modern = await modernClient(TOKEN, url);
      const legacy = await legacyClient(TOKEN, url);
      expect(modern.client.getNegotiatedProtocolVersion()).toBe(MODERN);
      expect(legacy.transport.sessionId).toBeDefined();
      expect(modern.transport.sessionId).toBeUndefined();
      const code = 'export default [1, 2, 3].reduce((a, b) => a + b, 0);';
      const [a, b] = [await callTool(modern.client, 'execute', { code }), await callTool(legacy.client, 'execute', { code })];
      expect(a).toMatchObject({ isError: false, body: { result: 6 } });
      expect(b.body.result).toBe(a.body.result);
      expect(modern.responses.every((h) => h.get('mcp-session-id') === null)).toBe(true);
      await modern.client.close();
      await legacy.client.close();
    } finally {
      await served.stop();
    }
  }, 90_000);
});
