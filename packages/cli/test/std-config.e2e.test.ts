// The config file's `std` key and policy rules on std functions, end to end: `agent-spaces run` (the committed bin over
// the built packages) and `agent-spaces mcp serve --stdio` (a real MCP client) reach an allowed 127.0.0.1 server,
// read the project read-only, and are refused without the key.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { loadConfig } from '@agent-spaces/compiler';
import { createSpace } from '@agent-spaces/sdk';
import { runCli } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { callTool, newClient } from '../../server/test/support/client.js';
import { tsNodeArgs } from '../../server/test/support/child.js';

const SCRIPT = `import { fs, http } from '@agent-spaces/std';
const outcome = async (f: () => Promise<unknown>) => { try { return await f(); } catch (e) { return (e as CapabilityError).code; } };
export default {
  hello: await outcome(async () => (await http.get('http://127.0.0.1:PORT/hello')).body),
  secret: await outcome(() => http.get('http://127.0.0.1:PORT/secret')),
  post: await outcome(() => http.post('http://127.0.0.1:PORT/hello', 'x')),
  note: await outcome(() => fs.readFile('note.txt')),
  write: await outcome(() => fs.writeFile('note.txt', 'changed')),
};
`;

let server: Server;
let script: string;
let allowed: string;
let closed: string;

/** A project folder holding `note.txt`, the script and a config with `config` as its body. */
async function project(config: Record<string, unknown>): Promise<string> {
  const made = await makeProject({ 'note.txt': 'from the project', 'agent.ts': script, 'agent-spaces.config.json': config });
  await mkdir(made.path('.agent-spaces/capabilities'), { recursive: true });
  return made.dir;
}

beforeAll(async () => {
  server = createServer((req, res) => res.end(req.url === '/hello' ? 'hi from 127.0.0.1' : 'the secret'));
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  script = SCRIPT.replaceAll('PORT', String(port));
  allowed = await project({
    capabilities: [],
    std: { http: { allowHosts: [`127.0.0.1:${port}`], methods: ['GET'] }, fs: { root: '.', write: false } },
    policies: { rules: { 'std.http.request': [{ when: { url: { endsWith: '/secret' } }, then: 'deny' }] } },
  });
  closed = await project({ capabilities: [] });
});

afterAll(async () => {
  server?.close();
});

const ALLOWED_RESULT = { hello: 'hi from 127.0.0.1', secret: 'POLICY_DENIED', post: 'ACCESS_DENIED', note: 'from the project', write: 'ACCESS_DENIED' };
const CLOSED_RESULT = { hello: 'ACCESS_DENIED', secret: 'ACCESS_DENIED', post: 'ACCESS_DENIED', note: 'HANDLER_ERROR', write: 'ACCESS_DENIED' };

describe('std settings from the config file', () => {
  it('agent-spaces run reaches an allowed host, applies the std.http.request rule and reads the project read-only', async () => {
    const run = await runCli(allowed, ['run', '--json', 'agent.ts']);
    expect(JSON.parse(run.stdout), run.stderr).toMatchObject({ ok: true, result: ALLOWED_RESULT });
    expect(await readFile(join(allowed, 'note.txt'), 'utf8')).toBe('from the project');
  });

  it('agent-spaces run without a std key denies the network and keeps the space folder read-only', async () => {
    const run = await runCli(closed, ['run', '--json', 'agent.ts']);
    expect(JSON.parse(run.stdout), run.stderr).toMatchObject({ ok: true, result: CLOSED_RESULT });
  });

  it('mcp serve applies the same settings, and refuses without them', async () => {
    const entry = fileURLToPath(new URL('../../server/test/support/serve-entry.ts', import.meta.url));
    for (const [cwd, expected] of [
      [allowed, ALLOWED_RESULT],
      [closed, CLOSED_RESULT],
    ] as const) {
      const transport = new StdioClientTransport({ command: process.execPath, args: [...tsNodeArgs(entry), JSON.stringify({ stdio: true })], cwd, stderr: 'pipe' });
      const client = newClient();
      await client.connect(transport);
      try {
        const run = await callTool(client, 'execute', { code: script });
        expect(run.body, run.text).toMatchObject({ result: expected });
      } finally {
        await client.close();
      }
    }
  });

  it('createSpace refuses a rule naming no std function, with the closest name, and bad std and typecheck budget options', async () => {
    const base = { rootDir: closed, capabilities: [], isolation: 'in-process' } as const;
    await expect(createSpace({ ...base, policies: { rules: { 'std.http.requests': 'deny' } } })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { closest: 'std.http.request' },
    });
    await expect(createSpace({ ...base, std: { http: { allowHosts: ['http://127.0.0.1/'] } } })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { field: 'std.http.allowHosts' },
    });
    await expect(createSpace({ ...base, std: { fs: { root: 7 as never } } })).rejects.toMatchObject({ code: 'CONFIG_INVALID', data: { field: 'std.fs.root' } });
    for (const typecheckBudget of [{ timeoutMs: 0 }, { memoryMb: 8 }, { maxSourceBytes: -1 }, { timeout: 5 } as never]) {
      await expect(createSpace({ ...base, typecheckBudget })).rejects.toMatchObject({ code: 'CONFIG_INVALID', data: { field: 'typecheckBudget' } });
    }
  });

  it('refuses a bad std key with CONFIG_INVALID naming the field', async () => {
    const cases: [unknown, string][] = [
      [{ http: { allowHosts: '127.0.0.1' } }, 'std.http.allowHosts must be an array of host names'],
      [{ http: { methods: ['FETCH'] } }, 'std.http.methods must be an array of GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'],
      [{ fs: { write: 'no' } }, 'std.fs.write must be true or false'],
      [{ fs: { root: '' } }, 'std.fs.root must be a folder path'],
      [{ net: {} }, 'std.net is not a known key (known: http, fs)'],
      [{ http: { allow: [] } }, 'std.http.allow is not a known key'],
      [['http'], 'std must be an object'],
    ];
    for (const [std, message] of cases) {
      const { dir } = await makeProject({ 'agent-spaces.config.json': { std } });
      await expect(loadConfig({ cwd: dir })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining(message) });
    }
  });
});
