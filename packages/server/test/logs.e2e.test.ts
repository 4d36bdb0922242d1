import { request } from 'node:http';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { serve } from '../src/cli.js';
import { createServerLog, sessionTag } from '../src/log.js';
import { callTool, newClient } from './support/client.js';
import { tsNodeArgs } from './support/child.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';

// `agent-spaces mcp serve --log-format json|text` as a real child process, driven by the official SDK client.

const TOKEN = 'log-test-token-SECRET-7f3a';
const ENV_SECRET = 'env-secret-value-91c2';
const CODE_MARKER = 'code-marker-5d1e';
const PARAM_MARKER = 'param-marker-44b0';
const RESULT_MARKER = 'result-marker-0c9a';
/** Strings that must never reach a log line: the token, a secret of the environment, code, params and results. */
const NEVER_LOGGED = [TOKEN, ENV_SECRET, CODE_MARKER, PARAM_MARKER, RESULT_MARKER];

const WORKER = {
  name: 'worker',
  description: 'Does work',
  functions: [
    {
      name: 'work',
      description: 'Works on a label',
      parameters: { type: 'object', properties: { label: { type: 'string' } }, required: ['label'] },
      returns: { type: 'string' },
    },
  ],
  executor: { kind: 'module', module: './worker.handlers.mjs' },
};
const HANDLERS = `export async function work({ label }, context) {
  context.progress({ progress: 1, total: 2, message: 'half way' });
  return label + ' ${RESULT_MARKER} ' + process.env.LOG_TEST_SECRET;
}
`;
const CODE = `import { worker } from '@capabilities/worker';\n// ${CODE_MARKER}\nexport default await worker.work({ label: '${PARAM_MARKER}' });`;
const ENTRY = fileURLToPath(new URL('./support/serve-entry.ts', import.meta.url));

let project: TestProject;

beforeAll(async () => {
  project = await createProject({
    'capabilities/worker.json': JSON.stringify(WORKER),
    'capabilities/worker.handlers.mjs': HANDLERS,
  });
  await writeFile(
    join(project.rootDir, 'agent-spaces.config.json'),
    JSON.stringify({ capabilities: ['capabilities/*.json'], policies: { secrets: ['LOG_TEST_SECRET'] } }),
  );
});

afterAll(async () => {
  await project?.cleanup();
});

/** `mcp serve` over HTTP with the test token, in the project, with a secret in its environment. */
function httpServe(values: Record<string, string | boolean>): HttpServe {
  return new HttpServe(project.rootDir, { 'auth-token': TOKEN, ...values }, { LOG_TEST_SECRET: ENV_SECRET });
}

/** A POST that the server refuses: a wrong bearer token. */
function postWithWrongToken(url: string, sessionId?: string): Promise<number> {
  const session = sessionId === undefined ? {} : { 'mcp-session-id': sessionId };
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', headers: { authorization: `Bearer wrong-${TOKEN}`, 'content-type': 'application/json', ...session } }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end('{}');
  });
}

type Entry = Record<string, unknown> & { time: string; level: string; event: string };

/** Tests that start `mcp serve` from the TypeScript sources: on a busy machine the child takes a while to start. */
const CHILD = { timeout: 90_000 };

describe('mcp serve --log-format json over HTTP', () => {
  it('writes one JSON object per stderr line: start, refusals, clients, tool calls and stop, with ids and no secrets', CHILD, async () => {
    // The MCP session id is a bearer credential: lines name the client by its tag, also on a refused request.
    const server = httpServe({ 'log-format': 'json' });
    try {
      const url = await server.url();
      expect(await postWithWrongToken(url)).toBe(401);
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
      const client = newClient();
      await client.connect(transport);
      const run = await callTool(client, 'execute', { code: CODE });
      expect(run.body.result).toBe(`${PARAM_MARKER} ${RESULT_MARKER} [REDACTED:LOG_TEST_SECRET]`);
      const created = await callTool(client, 'create_session');
      const sessionId = created.body.sessionId as string;
      expect((await callTool(client, 'send_code', { sessionId, code: `// ${CODE_MARKER}\nreturn 1;` })).body.result).toBe(1);
      expect((await callTool(client, 'no_such_tool\n{"event":"forged"}')).body.code).toBe('TOOL_NOT_FOUND');
      const sessionHeader = transport.sessionId!;
      const clientId = sessionTag(sessionHeader);
      await transport.terminateSession();
      await client.close();
      expect(await postWithWrongToken(url, sessionHeader)).toBe(401);
      expect(await server.stop()).toBe(0);

      const lines = server.stderr.trimEnd().split('\n');
      const entries = lines.map((line) => JSON.parse(line) as Entry);
      for (const entry of entries) {
        expect(Number.isNaN(Date.parse(entry.time))).toBe(false);
        expect(['info', 'warn', 'error']).toContain(entry.level);
      }
      for (const secret of [...NEVER_LOGGED, sessionHeader]) expect(server.stderr).not.toContain(secret);
      expect(clientId).toMatch(/^[0-9a-f]{16}$/);
      const events = entries.map((e) => e.event);
      expect(events[0]).toBe('server.started');
      expect(events.at(-1)).toBe('server.stopped');
      expect(events).not.toContain('forged');
      expect(entries[0]).toMatchObject({ transport: 'http', url, spaces: 'default', auth: true, level: 'info' });
      const refused = entries.filter((e) => e.event === 'http.refused');
      expect(refused[0]).toMatchObject({ level: 'warn', status: 401, method: 'POST', path: '/mcp', why: expect.stringContaining('bearer token') });
      expect(refused.at(-1)).toMatchObject({ status: 401, session: clientId });
      expect(entries.find((e) => e.event === 'client.connected')).toMatchObject({ client: clientId, name: 'agent-spaces-test', version: '1.0.0' });
      expect(entries.find((e) => e.event === 'client.disconnected')).toMatchObject({ client: clientId, reason: 'client closed' });
      const calls = entries.filter((e) => e.event === 'tool.called');
      expect(calls.map((c) => c.tool)).toEqual(['execute', 'create_session', 'send_code', 'no_such_tool\n{"event":"forged"}']);
      for (const call of calls) {
        expect(call).toMatchObject({ level: 'info', client: clientId, request: expect.any(Number), duration_ms: expect.any(Number) });
      }
      expect(calls[0]).toMatchObject({ ok: true });
      expect(calls[0]).not.toHaveProperty('code');
      expect(calls[2]).toMatchObject({ ok: true, session: sessionId });
      expect(calls[3]).toMatchObject({ ok: false, code: 'TOOL_NOT_FOUND' });
      expect(entries.at(-1)).toMatchObject({ transport: 'http', reason: 'SIGTERM' });
    } finally {
      await server.stop();
    }
  });
});

describe('mcp serve --log-format text', () => {
  it('writes the human banner and one text line per event, a hostile tool name quoted on its line', CHILD, async () => {
    const server = httpServe({});
    try {
      const url = await server.url();
      const client = newClient();
      const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } });
      await client.connect(transport);
      await callTool(client, 'x y\ninfo  server.stopped forged=1');
      const sessionHeader = transport.sessionId!;
      await client.close();
      expect(await server.stop()).toBe(0);
      const lines = server.stderr.trimEnd().split('\n');
      expect(lines[0]).toBe(`agent-spaces mcp serve: serving default on ${url} (bearer token required)`);
      const events = lines.slice(1).map((line) => /^\S+Z (info |warn |error) (\S+)/.exec(line)?.[2]);
      expect(events).toEqual(['server.started', 'client.connected', 'tool.called', 'client.disconnected', 'server.stopped']);
      expect(lines.find((l) => l.includes('client.disconnected'))).toContain('reason="server stopped"');
      expect(lines.find((l) => l.includes('tool.called'))).toContain('tool="x y\\ninfo  server.stopped forged=1"');
      expect(lines.find((l) => l.includes('tool.called'))).toContain(`client=${sessionTag(sessionHeader)}`);
      expect(server.stderr).not.toContain(TOKEN);
      expect(server.stderr).not.toContain(sessionHeader);
    } finally {
      await server.stop();
    }
  });

  it('refuses an unknown format with exit code 2, naming the flag', async () => {
    for (const bad of ['xml', 'JSON', '', true]) {
      const errors: string[] = [];
      const code = await serve({ values: { 'log-format': bad }, positionals: [], output: { out: () => undefined, err: (t) => errors.push(t), interactive: false } });
      expect(code).toBe(2);
      expect(errors.join('\n')).toContain('--log-format');
    }
  });
});

describe('mcp serve --stdio --log-format json', () => {
  it('keeps stdout for the protocol: progress reaches the client, and stderr holds only JSON log lines', CHILD, async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...tsNodeArgs(ENTRY), JSON.stringify({ stdio: true, 'log-format': 'json' })],
      cwd: project.rootDir,
      env: { ...(process.env as Record<string, string>), LOG_TEST_SECRET: ENV_SECRET },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = newClient();
    await client.connect(transport);
    const progress: Progress[] = [];
    try {
      await client.callTool({ name: 'execute', arguments: { code: CODE } }, CallToolResultSchema, { onprogress: (p) => progress.push(p) });
      expect(progress.map((p) => p.message)).toEqual(expect.arrayContaining(['worker.work started', 'worker.work: half way (1/2)']));
    } finally {
      await client.close();
    }
    await expect.poll(() => stderr.includes('server.stopped'), { timeout: 10_000 }).toBe(true);
    const entries = stderr.trimEnd().split('\n').map((line) => JSON.parse(line) as Entry);
    expect(entries.map((e) => e.event)).toEqual(['server.started', 'client.connected', 'tool.called', 'client.disconnected', 'server.stopped']);
    expect(entries[2]).toMatchObject({ tool: 'execute', ok: true, client: entries[1]!.client });
    expect(entries.at(-1)).toMatchObject({ transport: 'stdio', reason: 'stdin ended' });
    for (const secret of NEVER_LOGGED) expect(stderr).not.toContain(secret);
  });
});

/** True for a character that ends a line somewhere or drives a terminal: C0 and C1 controls, line and paragraph separators. */
function breaksLine(char: string): boolean {
  const code = char.codePointAt(0)!;
  return code < 0x20 || (code >= 0x7f && code <= 0x9f) || code === 0x2028 || code === 0x2029;
}

describe('createServerLog', () => {
  it('keeps every event on one line and escapes what could forge a line or reach a terminal', () => {
    const hostile = ['a\nb', 'a\r\nb', 'a\u2028b', 'a\u2029b', 'a\u001b[31mb', 'a\u009bb', 'a\u0000b', 'a"b', 'a=b', 'a b', '', 'x'.repeat(5000)];
    for (const format of ['json', 'text'] as const) {
      const lines: string[] = [];
      const log = createServerLog({ format, write: (line) => lines.push(line), now: () => new Date(0) });
      for (const value of hostile) log.event('tool.called', { tool: value, event: 'forged', time: 'forged', level: 'forged' });
      expect(lines).toHaveLength(hostile.length);
      for (const line of lines) {
        expect([...line].filter(breaksLine)).toEqual([]);
        expect(line.length).toBeLessThan(400);
        expect(line).not.toContain('forged');
        if (format === 'json') expect(JSON.parse(line)).toMatchObject({ time: '1970-01-01T00:00:00.000Z', level: 'info', event: 'tool.called' });
        else expect(line.startsWith('1970-01-01T00:00:00.000Z info  tool.called tool=')).toBe(true);
      }
      const parsed = format === 'json' ? lines.map((line) => (JSON.parse(line) as { tool: string }).tool) : [];
      if (format === 'json') expect(parsed.slice(0, -1)).toEqual(hostile.slice(0, -1));
    }
  });

  it('leaves out undefined fields and never throws when the sink fails', () => {
    const lines: string[] = [];
    createServerLog({ format: 'text', write: (line) => lines.push(line), now: () => new Date(0) }).event('session.ended', { session: 's1', reason: undefined, runs: 2, ok: false }, 'warn');
    expect(lines).toEqual(['1970-01-01T00:00:00.000Z warn  session.ended session=s1 runs=2 ok=false']);
    const broken = createServerLog({ format: 'json', write: () => { throw new Error('EPIPE'); } });
    expect(() => broken.event('server.stopped')).not.toThrow();
  });
});
