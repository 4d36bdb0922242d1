import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { McpClientPool, createMcpExecutor, discover, promptSourceName } from '../src/index.js';
import type { ProgressUpdate } from '@agent-spaces/capabilities';
import { makeProject } from '../../../test/fixtures/project.js';
import { fixture, officialServers, startHttpEverything } from './servers.js';

let dir: string;
let pool: McpClientPool;

beforeAll(async () => {
  ({ dir } = await makeProject());
  pool = new McpClientPool({
    ...officialServers(dir),
    paged: { command: process.execPath, args: [fixture('paged-server.mjs')], env: { CANCEL_MARKER: join(dir, 'cancelled.txt') } },
  });
});
afterAll(async () => {
  await pool.close();
});

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; data: Record<string, unknown> }> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  return error as { code: string; message: string; data: Record<string, unknown> };
}

/** Pids of this process's children whose command line contains `text` (Linux `/proc`). */
function childPids(text: string): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((pid) => {
      try {
        const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
        const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
        return ppid === process.pid && readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

describe('calls through the pool', () => {
  it("calls everything's get-sum and echo, reusing one connection", async () => {
    const sum = await pool.callTool('everything', 'get-sum', { a: 2, b: 40 });
    expect(sum.content).toEqual([{ type: 'text', text: 'The sum of 2 and 40 is 42.' }]);
    const echo = await pool.callTool('everything', 'echo', { message: 'hi' });
    expect(echo.content[0]).toMatchObject({ type: 'text', text: 'Echo: hi' });
    expect(childPids('server-everything')).toHaveLength(1);
  });

  it('returns structuredContent of a tool with an outputSchema', async () => {
    const result = await pool.callTool('everything', 'get-structured-content', { location: 'Chicago' });
    expect(result.structuredContent).toEqual({ temperature: 36, conditions: 'Light rain / drizzle', humidity: 82 });
  });

  it('writes and reads a file of the temp dir through server-filesystem', async () => {
    const file = join(dir, 'note.txt');
    await pool.callTool('filesystem', 'write_file', { path: file, content: 'from MCP' });
    expect(await readFile(file, 'utf8')).toBe('from MCP');
    await writeFile(join(dir, 'host.txt'), 'from host');
    const read = await pool.callTool('filesystem', 'read_text_file', { path: join(dir, 'host.txt') });
    expect(read.structuredContent).toEqual({ content: 'from host' });
  });

  it("builds and reads server-memory's knowledge graph, stored in the temp dir", async () => {
    await pool.callTool('memory', 'create_entities', {
      entities: [{ name: 'Ada', entityType: 'person', observations: ['wrote the first program'] }],
    });
    const graph = await pool.callTool('memory', 'read_graph', {});
    expect(graph.structuredContent).toMatchObject({ entities: [{ name: 'Ada', entityType: 'person' }] });
    expect(await readFile(join(dir, 'memory.jsonl'), 'utf8')).toContain('Ada');
  });

  it('rejects with CAPABILITY_NOT_FOUND for a server that is not configured', async () => {
    expect((await failure(pool.callTool('nope', 'x'))).code).toBe('CAPABILITY_NOT_FOUND');
  });
});

describe('tool and protocol errors', () => {
  it('turns an isError result into HANDLER_ERROR carrying the server text', async () => {
    const error = await failure(pool.callTool('everything', 'get-sum', { a: 'x', b: 1 }));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.message).toContain('expected number');
    expect(error.data).toMatchObject({ server: 'everything', tool: 'get-sum' });
  });

  it('turns a JSON-RPC error into HANDLER_ERROR', async () => {
    const error = await failure(pool.readResource('everything', 'demo://no-such-resource'));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.message).toContain('not found');
    expect(error.data).toMatchObject({ mcpCode: -32602 });
  });
});

describe('cancellation, timeouts and progress', () => {
  it('aborting the signal rejects with ABORTED and the server receives notifications/cancelled', async () => {
    await pool.toolsHash('paged'); // connected, so the request is on the wire when the signal aborts
    const controller = new AbortController();
    const call = pool.callTool('paged', 'wait-for-cancel', {}, { signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect((await failure(call)).code).toBe('ABORTED');
    const marker = join(dir, 'cancelled.txt');
    await expect.poll(() => existsSync(marker), { timeout: 5000 }).toBe(true);
  });

  it('rejects with TIMEOUT after timeoutMs, ended within the limit + slack', async () => {
    const started = Date.now();
    const error = await failure(
      pool.callTool('everything', 'trigger-long-running-operation', { duration: 10, steps: 2 }, { timeoutMs: 300 }),
    );
    expect(error.code).toBe('TIMEOUT');
    expect(error.data).toMatchObject({ timeoutMs: 300 });
    expect(Date.now() - started).toBeLessThan(300 + 2000);
  });

  it("delivers the long-running tool's progress notifications, in order", async () => {
    const progress: ProgressUpdate[] = [];
    await pool.callTool('everything', 'trigger-long-running-operation', { duration: 0.4, steps: 4 }, { onProgress: (p) => progress.push(p) });
    // The SDK client drops a notification that arrives together with the result, so the last step may be missing.
    expect(progress.length).toBeGreaterThanOrEqual(3);
    expect(progress.map((p) => [p.progress, p.total])).toEqual([1, 2, 3, 4].slice(0, progress.length).map((n) => [n, 4]));
  });
});

describe('a server that crashes', () => {
  it('fails the in-flight call with server_exited within 1 s, then the next call restarts it', async () => {
    const crashPool = new McpClientPool({ crashy: officialServers(dir).everything });
    try {
      const before = childPids('server-everything');
      await crashPool.callTool('crashy', 'echo', { message: 'warm' });
      const [pid] = childPids('server-everything').filter((p) => !before.includes(p));
      const call = crashPool.callTool('crashy', 'trigger-long-running-operation', { duration: 10, steps: 2 });
      await new Promise((resolve) => setTimeout(resolve, 100));
      const killedAt = Date.now();
      process.kill(pid!, 'SIGKILL');
      const error = await failure(call);
      expect(Date.now() - killedAt).toBeLessThan(1000);
      expect(error.code).toBe('MCP_UNAVAILABLE');
      expect(error.data).toMatchObject({ server: 'crashy', reason: 'server_exited', signal: 'SIGKILL' });
      const again = await crashPool.callTool('crashy', 'echo', { message: 'back' });
      expect(again.content[0]).toMatchObject({ text: 'Echo: back' });
    } finally {
      await crashPool.close();
    }
  });
});

describe('staleness, secrets and close', () => {
  it('checkStale passes for the build hash and fails with CAPABILITY_STALE for another', async () => {
    const built = await discover('thinking', officialServers(dir).thinking);
    expect(await pool.toolsHash('thinking')).toBe(built.toolsHash);
    await pool.checkStale('thinking', built.toolsHash);
    const error = await failure(pool.checkStale('thinking', 'f'.repeat(64)));
    expect(error.code).toBe('CAPABILITY_STALE');
    expect(error.message).toContain('agent-spaces capabilities build');
  });

  it('expands ${VAR} from the environment and .env only when connecting, and lists the secrets', async () => {
    await writeFile(join(dir, '.env'), 'FROM_DOTENV="dotenv value"\n');
    const config = {
      command: process.execPath,
      args: officialServers(dir).everything.args,
      env: { EV_TOKEN: '${MCP_TEST_TOKEN}', EV_FILE: '${FROM_DOTENV}', EV_DEFAULT: '${MCP_UNSET_VAR:-fallback}' },
    };
    const envPool = new McpClientPool({ env: config }, { projectRoot: dir, env: { MCP_TEST_TOKEN: 's3cret-token' } });
    try {
      const result = await envPool.callTool('env', 'get-env');
      const env = JSON.parse(result.content[0]?.type === 'text' ? result.content[0].text : '{}') as Record<string, string>;
      expect(env).toMatchObject({ EV_TOKEN: 's3cret-token', EV_FILE: 'dotenv value', EV_DEFAULT: 'fallback' });
      expect(envPool.secrets().sort()).toEqual(['dotenv value', 's3cret-token']);
      expect(config.env.EV_TOKEN).toBe('${MCP_TEST_TOKEN}');
    } finally {
      await envPool.close();
    }
  });

  it('close() ends every server process and later calls reject with pool_closed', async () => {
    const before = childPids('server-sequential-thinking');
    const closing = new McpClientPool({ thinking: officialServers(dir).thinking });
    await closing.toolsHash('thinking');
    const started = childPids('server-sequential-thinking').filter((pid) => !before.includes(pid));
    expect(started).toHaveLength(1);
    await closing.close();
    expect(childPids('server-sequential-thinking')).not.toContain(started[0]);
    expect((await failure(closing.callTool('thinking', 'sequentialthinking'))).data).toMatchObject({ reason: 'pool_closed' });
  });
});

describe('the MCP executor', () => {
  const context = (fn: string) => ({ capability: 'mcp-everything', function: fn, signal: new AbortController().signal, progress: () => {} });

  it('resolves structuredContent for a tool with an outputSchema, { content, text } for one without', async () => {
    const execute = createMcpExecutor(pool, { server: 'everything' });
    expect(await execute({ sourceName: 'get-structured-content' }, { location: 'New York' }, context('getStructuredContent'))).toEqual({
      temperature: 33,
      conditions: 'Cloudy',
      humidity: 82,
    });
    expect(await execute({ sourceName: 'echo' }, { message: 'yo' }, context('echo'))).toEqual({
      content: [{ type: 'text', text: 'Echo: yo' }],
      text: 'Echo: yo',
    });
  });

  it('gives a JSON text result its parsed data, tells onToolData, and keeps a plain text result without data (told as undefined)', async () => {
    const heard: Array<[string, unknown]> = [];
    const execute = createMcpExecutor(pool, { server: 'everything' }, { onToolData: (tool, data) => heard.push([tool, data]) });
    const env = (await execute({ sourceName: 'get-env' }, {}, context('getEnv'))) as { text: string; data?: unknown };
    expect(env.data).toEqual(JSON.parse(env.text));
    expect(typeof env.data).toBe('object');
    expect(heard).toEqual([['get-env', env.data]]);
    expect(await execute({ sourceName: 'echo' }, { message: '{"not": "json" but text' }, context('echo'))).not.toHaveProperty('data');
    expect(heard).toEqual([
      ['get-env', env.data],
      ['echo', undefined],
    ]);
  });

  it('dispatches listResources, readResource and prompt functions', async () => {
    const execute = createMcpExecutor(pool, { server: 'everything' });
    const resources = (await execute({ sourceName: 'resources/list' }, {}, context('listResources'))) as Array<{ uri: string }>;
    const uri = resources.find((r) => r.uri.endsWith('features.md'))?.uri;
    expect(uri).toBeDefined();
    const contents = (await execute({ sourceName: 'resources/read' }, { uri }, context('readResource'))) as Array<{ text?: string }>;
    expect(contents[0]?.text).toContain('Everything Server');
    const messages = await execute({ sourceName: promptSourceName('args-prompt') }, { city: 'Paris' }, context('promptArgsPrompt'));
    expect(messages).toEqual([{ role: 'user', content: { type: 'text', text: "What's weather in Paris?" } }]);
  });

  it('rejects params that are not an object with INVALID_PARAMS', async () => {
    const execute = createMcpExecutor(pool, { server: 'everything' });
    expect((await failure(execute({ sourceName: 'echo' }, 'hi', context('echo')))).code).toBe('INVALID_PARAMS');
  });

  it('reaches server-everything over Streamable HTTP', async () => {
    const http = await startHttpEverything('streamableHttp');
    const httpPool = new McpClientPool({ remote: { type: 'http', url: `http://127.0.0.1:${http.port}/mcp` } });
    try {
      const execute = createMcpExecutor(httpPool, { server: 'remote' });
      expect(await execute({ sourceName: 'get-sum' }, { a: 1, b: 2 }, context('getSum'))).toMatchObject({ text: 'The sum of 1 and 2 is 3.' });
    } finally {
      await httpPool.close();
      http.stop();
    }
  });
});
