import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { discover, discoverAll, hashTools, type McpDiscovery } from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { fixture, freePort, officialServers, startHttpEverything } from './servers.js';

let dir: string;
const stopServers: Array<() => void> = [];

beforeAll(async () => {
  ({ dir } = await makeProject());
});
afterAll(async () => {
  for (const stop of stopServers) stop();
});

/** Rejection of `promise` as `{ code, data }`. */
async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; data: Record<string, unknown> }> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  return error as { code: string; message: string; data: Record<string, unknown> };
}

describe('discovery of the official servers over stdio', () => {
  let outcomes: Awaited<ReturnType<typeof discoverAll>>;
  beforeAll(async () => {
    outcomes = await discoverAll(officialServers(dir));
  });
  const found = (server: string): McpDiscovery => {
    const outcome = outcomes.find((o) => o.server === server);
    if (!outcome?.ok) throw new Error(`${server} failed: ${outcome?.ok === false ? outcome.error.message : 'missing'}`);
    return outcome.discovery;
  };

  it('finds every server in config order', () => {
    expect(outcomes.map((o) => [o.server, o.ok])).toEqual([
      ['everything', true],
      ['filesystem', true],
      ['memory', true],
      ['thinking', true],
    ]);
  });

  it("lists everything's tools with schemas, its resources, prompts, instructions and server info", () => {
    const everything = found('everything');
    expect(everything.serverInfo.name).toBe('mcp-servers/everything');
    expect(everything.instructions).toMatch(/Everything Server/);
    const sum = everything.tools.find((t) => t.name === 'get-sum');
    expect(sum?.inputSchema).toMatchObject({ type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } } });
    expect(everything.tools.find((t) => t.name === 'get-structured-content')?.outputSchema).toMatchObject({
      required: ['temperature', 'conditions', 'humidity'],
    });
    expect(everything.resources?.length).toBeGreaterThan(0);
    expect(everything.prompts?.map((p) => p.name)).toContain('args-prompt');
  });

  it('lists filesystem, memory and sequential-thinking tools, resources only where advertised', () => {
    expect(found('filesystem').tools.map((t) => t.name)).toEqual(expect.arrayContaining(['read_text_file', 'write_file']));
    expect(found('filesystem').resources).toBeUndefined();
    expect(found('memory').tools.map((t) => t.name)).toEqual(expect.arrayContaining(['create_entities', 'read_graph']));
    expect(found('memory').resources?.map((r) => r.uri)).toEqual(['memory://knowledge-graph']);
    expect(found('thinking').tools.map((t) => t.name)).toEqual(['sequentialthinking']);
  });

  it('hashes each tool list canonically (key order and tool order do not matter)', () => {
    const everything = found('everything');
    expect(everything.toolsHash).toMatch(/^[0-9a-f]{64}$/);
    expect(everything.toolsHash).toBe(hashTools(everything.tools));
    const shuffled = [...everything.tools].reverse().map((tool) => Object.fromEntries(Object.entries(tool).reverse()) as typeof tool);
    expect(hashTools(shuffled)).toBe(everything.toolsHash);
    expect(found('memory').toolsHash).not.toBe(everything.toolsHash);
  });
});

describe('discovery follows every tools/list cursor', () => {
  it('collects the three pages of a paged server in order', async () => {
    const discovery = await discover('paged', { command: process.execPath, args: [fixture('paged-server.mjs')] });
    expect(discovery.tools.map((t) => t.name)).toEqual(['no-params', 'with-defs', 'unions', 'wait-for-cancel', 'last-page']);
    expect(discovery.tools[1]?.inputSchema.$defs).toBeDefined();
  });
});

describe('discovery over HTTP', () => {
  it('discovers server-everything over Streamable HTTP on 127.0.0.1', async () => {
    const http = await startHttpEverything('streamableHttp');
    stopServers.push(http.stop);
    const discovery = await discover('remote', { type: 'http', url: `http://127.0.0.1:${http.port}/mcp` });
    expect(discovery.tools.map((t) => t.name)).toContain('echo');
  });

  it('falls back to SSE when a server without a type answers Streamable HTTP with a 4xx', async () => {
    const sse = await startHttpEverything('sse');
    stopServers.push(sse.stop);
    const discovery = await discover('old', { url: `http://127.0.0.1:${sse.port}/sse` });
    expect(discovery.tools.map((t) => t.name)).toContain('get-sum');
  });
});

describe('discovery errors name the server and the reason', () => {
  it('spawn_failed for a command that does not exist', async () => {
    const error = await failure(discover('ghost', { command: 'agent-spaces-no-such-command-xyz' }));
    expect(error.code).toBe('MCP_UNAVAILABLE');
    expect(error.data).toMatchObject({ server: 'ghost', reason: 'spawn_failed', errno: 'ENOENT' });
    expect(error.message).toContain('"ghost"');
  });

  it('exited with the exit code and the stderr tail for a server that exits at once', async () => {
    const script = 'for (let i = 1; i <= 30; i++) console.error("line " + i); process.exit(3)';
    const error = await failure(discover('crashy', { command: process.execPath, args: ['-e', script] }));
    expect(error.data).toMatchObject({ server: 'crashy', reason: 'exited', exitCode: 3 });
    const stderr = String(error.data.stderr).split('\n');
    expect(stderr).toHaveLength(20);
    expect(stderr.at(-1)).toBe('line 30');
  });

  it('never puts an expanded ${VAR} secret into the message or the stderr tail, in any form; short values stay', async () => {
    const leak = 'console.error("token=" + process.env.TOKEN, JSON.stringify(process.env.TOKEN), encodeURIComponent(process.env.TOKEN), "port=" + process.env.PORT); process.exit(1)';
    const config = { command: process.execPath, args: ['-e', leak], env: { TOKEN: '${LEAKY_TOKEN}', PORT: '${LEAKY_PORT}' } };
    const error = await failure(discover('leaky', config, { env: { LEAKY_TOKEN: 'hunter2 "secret"', LEAKY_PORT: '8080' } }));
    const redacted = 'token=[REDACTED:LEAKY_TOKEN] "[REDACTED:LEAKY_TOKEN]" [REDACTED:LEAKY_TOKEN] port=8080';
    expect(error.data).toMatchObject({ reason: 'exited', exitCode: 1, stderr: redacted });
    expect(error.message).toContain(redacted);
    expect(error.message).not.toContain('hunter2');
  });

  it('handshake_timeout for a process that never answers, ended within the timeout + slack', async () => {
    const started = Date.now();
    const error = await failure(
      discover('silent', { command: process.execPath, args: ['-e', 'setInterval(() => {}, 1000)'] }, { handshakeTimeoutMs: 500 }),
    );
    expect(error.data).toMatchObject({ server: 'silent', reason: 'handshake_timeout', timeoutMs: 500 });
    expect(Date.now() - started).toBeLessThan(500 + 3000);
  });

  it('auth_refused for an HTTP 401', async () => {
    const port = await freePort();
    const server: Server = createServer((_, res) => res.writeHead(401, { 'content-type': 'text/plain' }).end('no token'));
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    try {
      const error = await failure(discover('locked', { url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer wrong' } }));
      expect(error.data).toMatchObject({ server: 'locked', reason: 'auth_refused', status: 401 });
    } finally {
      server.close();
    }
  });

  it('connect_failed when nothing listens on the port', async () => {
    const port = await freePort();
    const error = await failure(discover('nobody', { type: 'http', url: `http://127.0.0.1:${port}/mcp` }));
    expect(error.data).toMatchObject({ server: 'nobody', reason: 'connect_failed' });
  });

  it('CONFIG_INVALID for a url that is not http(s) once expanded', async () => {
    const error = await failure(discover('ftp', { url: '${FTP_HOST:-ftp://example.com}/mcp' }, { env: {} }));
    expect(error).toMatchObject({ code: 'CONFIG_INVALID', data: { server: 'ftp', field: 'url' } });
  });

  it('one failing server does not stop the others in discoverAll', async () => {
    const outcomes = await discoverAll({
      ghost: { command: 'agent-spaces-no-such-command-xyz' },
      thinking: officialServers(dir).thinking,
    });
    expect(outcomes.map((o) => [o.server, o.ok])).toEqual([
      ['ghost', false],
      ['thinking', true],
    ]);
    const ghost = outcomes[0];
    expect(ghost?.ok === false && ghost.error.data?.reason).toBe('spawn_failed');
  });
});
