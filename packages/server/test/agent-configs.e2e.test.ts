// Seed 003's agent configs and assignment API on a real `mcp serve` child with the official SDK client: the action
// server is a real node:http server with an OpenAPI spec (the seed's email_mcp shape), built from `action_servers.json`.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdir, rm, symlink, writeFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';
import { ActionServerAssignments } from '../src/assignments/service.js';
import { parseServerConfig } from '../src/config.js';
import { callTool, newClient } from './support/client.js';
import { HttpServe } from './support/serve.js';

const TOKEN = 'seed-003-token-77a1';
const EMAILS = [{ from: 'ann@example.com', subject: 'Hi' }, { from: 'bo@example.com', subject: 'Lunch' }, { from: 'cy@example.com', subject: 'Report' }];
/** Seed 003's spec shape: POST actions with JSON bodies whose properties are described. */
const SPEC = {
  openapi: '3.0.3',
  info: { title: 'Email MCP', version: '1.0.0' },
  paths: {
    '/read-emails': {
      post: {
        operationId: 'read_emails',
        summary: 'Read emails',
        requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { limit: { type: 'integer', description: 'Most emails' } } } } } },
        responses: { 200: { description: 'ok', content: { 'application/json': { schema: { type: 'object', properties: { emails: { type: 'array' } } } } } } },
      },
    },
  },
};
/** What a run of an agent without the email server's capability fails with: its import does not typecheck. */
const LACKS = 'TYPE_ERROR';
const READ = "import { emailMcp } from '@capabilities/email-mcp';\nexport default (await emailMcp.readEmails({ limit: 2 })).emails?.length;";

let mail: Server;
let project: Project;
let serve: HttpServe;
let client: Client;
let base: string;

/** Starts the seed's email action server on 127.0.0.1. */
async function startMail(): Promise<string> {
  mail = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.url === '/openapi.json') return void res.end(JSON.stringify(SPEC));
      if (req.url === '/read-emails' && req.method === 'POST') return void res.end(JSON.stringify({ emails: EMAILS.slice(0, (JSON.parse(body || '{}') as { limit?: number }).limit ?? 10) }));
      res.statusCode = 404;
      res.end('{}');
    });
  });
  await new Promise<void>((done) => mail.listen(0, '127.0.0.1', done));
  return `http://127.0.0.1:${(mail.address() as AddressInfo).port}`;
}

const config = (assignment: unknown) => ({
  capabilities: ['action_servers.json'],
  spaces: [
    { id: 'bob', name: 'Bob', capabilities: [] },
    { id: 'frank', name: 'Frank', capabilities: [] },
  ],
  server: { rateLimit: { requests: 1000, windowSeconds: 60 }, ...(assignment ? { assignment } : {}) },
});

/** What agent `spaceId`'s next run gets from the email server: the count of emails, or the error code. */
async function readAs(spaceId: string): Promise<unknown> {
  const answer = await callTool(client, 'execute', { code: READ, spaceId });
  return answer.isError ? (answer.body as { code: string }).code : (answer.body as { result: unknown }).result;
}

/** A request to an assignment route of `serve`. */
async function api(path: string, init: { method?: string; body?: string; type?: string; token?: string | null } = {}, server = serve): Promise<{ status: number; body: { error?: { code: string; message: string; data?: unknown } } & Record<string, unknown> }> {
  const url = new URL(path, await server.url());
  const token = init.token === undefined ? TOKEN : init.token;
  const response = await fetch(url, {
    method: init.method ?? 'POST',
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), 'content-type': init.type ?? 'application/json' },
    ...(init.body !== undefined ? { body: init.body } : {}),
  });
  return { status: response.status, body: (await response.json()) as never };
}

async function connect(server: HttpServe): Promise<Client> {
  const connected = newClient();
  await connected.connect(new StreamableHTTPClientTransport(new URL(await server.url()), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return connected;
}

beforeAll(async () => {
  base = await startMail();
  project = await makeProject({
    'action_servers.json': { servers: { email_mcp: { name: 'email_mcp', url: base, description: 'Email actions', auto_discover: true } } },
    'agent-spaces.config.json': config({ allow: true }),
    'locked.config.json': config(undefined),
    'agent_configs/bob.json': { agent_name: 'bob', action_server: 'email_mcp' },
    'agent_configs/broken.json': '{ "agent_name": ',
    'agent_configs/ghost.json': { agent_name: 'ghost', action_server: 'email_mcp' },
    'agent_configs/misnamed.json': { agent_name: 'bob', action_server: 'email_mcp' },
    'agent_configs/Bob.json': { agent_name: 'Bob', action_server: ['email_mcp', 'pager'] },
  });
  await symlink('/etc/hostname', project.path('agent_configs/evil.json'));
  const report = await project.build({ sources: ['action_servers.json'] });
  expect(report.capabilities).toMatchObject([{ id: 'email-mcp', status: 'built' }]);
  serve = new HttpServe(project.dir, { 'auth-token': TOKEN, headless: 'allow' });
  client = await connect(serve);
}, 90_000);

afterAll(async () => {
  await client?.close();
  await serve?.stop();
  await new Promise((done) => mail?.close(done));
});

describe('agent_configs/*.json', () => {
  it("gives the agent its action server's actions, and only that agent", async () => {
    expect(await readAs('bob')).toBe(2);
    expect(await readAs('frank')).toBe(LACKS);
    expect((await callTool(client, 'execute', { code: READ, spaceId: 'frank' })).text).toContain("'@capabilities/email-mcp'");
  });

  it('lists the servers and assignments, and names every bad file and field without taking down the others', async () => {
    const { body } = await callTool(client, 'get_action_servers');
    expect(body.servers).toEqual([{ name: 'email_mcp', description: 'Email actions', url: base, capability: 'email-mcp', built: true }]);
    expect(body.agents).toEqual([{ agent_name: 'bob', action_servers: ['email_mcp'] }]);
    const problems = (body.problems as Array<{ code: string; data: { file: string; key: string } }>).map((p) => [p.code, p.data.file, p.data.key]);
    expect(problems).toEqual(
      expect.arrayContaining([
        ['CONFIG_INVALID', 'agent_configs/broken.json', 'file'],
        ['CONFIG_INVALID', 'agent_configs/evil.json', 'file'],
        ['CONFIG_INVALID', 'agent_configs/ghost.json', 'agent_name'],
        ['CONFIG_INVALID', 'agent_configs/misnamed.json', 'agent_name'],
        ['CONFIG_INVALID', 'agent_configs/Bob.json', 'action_server[1]'],
      ]),
    );
    expect(problems).toHaveLength(5);
    expect(serve.stderr).toContain('agent config not applied: agent_configs/ghost.json: agent_name names no agent "ghost"');
  });
});

describe('the assignment API', () => {
  it('assigns over HTTP and removes over MCP, and the agent sees each on its next run without a restart', async () => {
    const assigned = await api('/agents/assign-action-server', { body: JSON.stringify({ agent_name: 'frank', action_server: 'email_mcp' }) });
    expect(assigned).toMatchObject({ status: 200, body: { ok: true, agent_name: 'frank', action_servers: ['email_mcp'] } });
    expect(JSON.parse(await project.read('agent_configs/frank.json'))).toEqual({ agent_name: 'frank', action_server: 'email_mcp' });
    expect(await readAs('frank')).toBe(2);

    expect((await callTool(client, 'remove_action_server', { agent_name: 'frank' })).body).toMatchObject({ success: true, action_servers: [] });
    await expect(project.read('agent_configs/frank.json')).rejects.toThrow();
    expect(await readAs('frank')).toBe(LACKS);
  });

  it('assigns over MCP and removes over HTTP', async () => {
    expect((await callTool(client, 'assign_action_server', { agent_name: 'Frank', action_server: 'email_mcp' })).body).toMatchObject({ success: true, agent_name: 'frank' });
    expect(await readAs('frank')).toBe(2);
    const removed = await api('/agents/remove-action-server', { body: JSON.stringify({ agent_name: 'frank', action_server: 'email_mcp' }) });
    expect(removed).toMatchObject({ status: 200, body: { ok: true, action_servers: [] } });
    expect(await readAs('frank')).toBe(LACKS);
    const listed = await api('/action-servers/available', { method: 'GET' });
    expect(listed).toMatchObject({ status: 200, body: { agents: [{ agent_name: 'bob' }] } });
  });

  it('serves a hand-edited or deleted agent config on the next run (hot reload)', async () => {
    await writeFile(project.path('agent_configs/frank.json'), JSON.stringify({ agent_name: 'frank', action_server: ['email_mcp'] }));
    await expect.poll(() => readAs('frank'), { timeout: 10_000, interval: 300 }).toBe(2);
    await rm(project.path('agent_configs/frank.json'));
    await expect.poll(() => readAs('frank'), { timeout: 10_000, interval: 300 }).toBe(LACKS);
  });

  it('refuses hostile requests with their codes and writes nothing', async () => {
    const cases: Array<[Parameters<typeof api>[1], number, string]> = [
      [{ body: JSON.stringify({ agent_name: '../../etc/passwd', action_server: 'email_mcp' }) }, 404, 'SPACE_NOT_FOUND'],
      [{ body: JSON.stringify({ agent_name: '../frank', action_server: 'email_mcp' }) }, 404, 'SPACE_NOT_FOUND'],
      [{ body: JSON.stringify({ agent_name: 'frank', action_server: 'pager' }) }, 400, 'INVALID_ARGUMENTS'],
      [{ body: JSON.stringify({ agent_name: 'frank', action_server: 'email_mcp', path: '/tmp/x' }) }, 400, 'INVALID_ARGUMENTS'],
      [{ body: JSON.stringify({ agent_name: 42, action_server: 'email_mcp' }) }, 400, 'INVALID_ARGUMENTS'],
      [{ body: JSON.stringify(['frank', 'email_mcp']) }, 400, 'INVALID_ARGUMENTS'],
      [{ body: '{ not json' }, 400, 'INVALID_ARGUMENTS'],
      [{ body: JSON.stringify({ agent_name: 'frank', action_server: 'x'.repeat(20_000) }) }, 413, 'PAYLOAD_TOO_LARGE'],
      [{ body: 'agent_name=frank&action_server=email_mcp', type: 'application/x-www-form-urlencoded' }, 415, 'INVALID_ARGUMENTS'],
      [{ body: JSON.stringify({ agent_name: 'frank', action_server: 'email_mcp' }), type: 'text/plain' }, 415, 'INVALID_ARGUMENTS'],
      [{ body: JSON.stringify({ agent_name: 'frank', action_server: 'email_mcp' }), token: null }, 401, 'UNAUTHORIZED'],
      [{ body: JSON.stringify({ agent_name: 'frank', action_server: 'email_mcp' }), token: 'wrong' }, 401, 'UNAUTHORIZED'],
      [{ method: 'GET' }, 405, 'INVALID_ARGUMENTS'],
    ];
    for (const [init, status, code] of cases) {
      const answer = await api('/agents/assign-action-server', init);
      expect([answer.status, answer.body.error?.code], JSON.stringify(init).slice(0, 120)).toEqual([status, code]);
    }
    expect((await api('/action-servers/available', { method: 'GET', token: null })).status).toBe(401);
    const traversal = await callTool(client, 'assign_action_server', { agent_name: '../../bob', action_server: 'email_mcp' });
    expect(traversal).toMatchObject({ isError: true, body: { code: 'SPACE_NOT_FOUND' } });
    expect((await readdir(project.path('agent_configs'))).sort()).toEqual(['Bob.json', 'bob.json', 'broken.json', 'evil.json', 'ghost.json', 'misnamed.json']);
    expect(await readAs('frank')).toBe(LACKS);
  });

  it('refuses to assign (FORBIDDEN) on a server that does not allow it, over HTTP and MCP, and still lists', async () => {
    const locked = new HttpServe(project.dir, { 'auth-token': TOKEN, config: 'locked.config.json' });
    const lockedClient = await connect(locked);
    try {
      const answer = await api('/agents/assign-action-server', { body: JSON.stringify({ agent_name: 'frank', action_server: 'email_mcp' }) }, locked);
      expect([answer.status, answer.body.error?.code]).toEqual([403, 'FORBIDDEN']);
      expect((await api('/agents/remove-action-server', { body: JSON.stringify({ agent_name: 'bob' }) }, locked)).status).toBe(403);
      expect(await callTool(lockedClient, 'remove_action_server', { agent_name: 'bob' })).toMatchObject({ isError: true, body: { code: 'FORBIDDEN' } });
      expect((await api('/action-servers/available', { method: 'GET' }, locked)).status).toBe(200);
      expect(await project.read('agent_configs/bob.json')).toContain('email_mcp');
    } finally {
      await lockedClient.close();
      await locked.stop();
    }
  }, 90_000);
});

describe('who may assign', () => {
  const principal = (groups: string[]) => ({ id: 'user:ann', scopes: [], groups });

  it('allows only the configured groups, and nobody without server.assignment.allow', () => {
    const byGroup = new ActionServerAssignments({ rootDir: project.dir, settings: { allow: true, groups: ['admins'] } });
    expect(() => byGroup.authorize(principal(['admins']))).not.toThrow();
    for (const groups of [[], ['users'], ['Admins'], ['admins-x']]) expect(() => byGroup.authorize(principal(groups))).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    for (const settings of [undefined, { allow: false }, { allow: false, groups: ['admins'] }]) {
      const off = new ActionServerAssignments({ rootDir: project.dir, ...(settings ? { settings } : {}) });
      expect(() => off.authorize(principal(['admins']))).toThrow(expect.objectContaining({ code: 'FORBIDDEN' }));
    }
  });

  it('reads server.assignment, and requires groups with server.auth', () => {
    const auth = { issuer: 'https://issuer.example.com', audience: 'https://mcp.example.com/mcp' };
    expect(parseServerConfig({ server: { assignment: { allow: true, groups: ['admins'] }, auth } }, 'c.json').server.assignment).toEqual({ allow: true, groups: ['admins'] });
    for (const [assignment, key] of [
      [{ allow: true }, 'server.assignment.groups'],
      [{ allow: 'yes' }, 'server.assignment.allow'],
      [{ allow: true, groups: 'admins' }, 'server.assignment.groups'],
      [{ allow: true, group: ['admins'] }, 'server.assignment.group'],
    ] as const) {
      expect(() => parseServerConfig({ server: { assignment, auth } }, 'c.json')).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', data: expect.objectContaining({ key }) }));
    }
  });
});
