// Two users of one `mcp serve` (a real child process) behind an OAuth 2.1 issuer (a loopback test issuer on
// 127.0.0.1): each client is the official SDK client with its own bearer token. What one user owns is useless to the
// other (sessions, tasks, skills), a group rule applies to one of them only, an approval one asked for must be answered by the other, per-user
// rate limits count apart, and the audit log names each user.
import { readFile } from 'node:fs/promises';
import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalView } from '@agent-spaces/bridge';
import { makeProject, type Project } from '../../../test/fixtures/project.js';
import { startIssuer, type TestIssuer } from '../../../test/services/issuer.js';
import { freePort } from '../../../test/services/postgres.js';
import { callTool, newClient } from './support/client.js';
import { HttpServe } from './support/serve.js';

let issuer: TestIssuer;
let project: Project;
let serve: HttpServe;
let base: string;
const tokens = { alice: '', bob: '' };
const clients: Client[] = [];

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  issuer = await startIssuer({ audience: `${base}/mcp` });
  project = await makeProject({
    'agent-spaces.config.json': {
      capabilities: [],
      server: { auth: { issuer: issuer.url, audience: `${base}/mcp`, scopes: ['mcp'] } },
      policies: {
        approvers: { others: true },
        approvalTimeoutMs: 60_000,
        rules: {
          'std.crypto.hash': [
            { when: { data: { startsWith: 'approve' } }, then: 'ask' },
            { who: { groups: 'interns' }, then: 'deny' },
          ],
        },
        rateLimits: { 'std.crypto.randomUUID': { requests: 2, period: 'minute', per: 'user' } },
      },
    },
  });
  expect((await project.build()).totals.failed).toBe(0);
  serve = new HttpServe(project.dir, { port: String(port) });
  await serve.url();
  tokens.alice = await issuer.sign({ sub: 'alice', scope: 'mcp', groups: ['sales'] });
  tokens.bob = await issuer.sign({ sub: 'bob', scope: 'mcp', groups: ['interns'] });
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await serve?.stop();
  await issuer?.close();
});

/** A new MCP client of `user` (protocol 2025-11-25) that declares no elicitation: its person is never asked. */
async function clientOf(user: keyof typeof tokens): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${tokens[user]}` } } }));
  clients.push(client);
  return client;
}

/** Agent code calling `std.<fn>(args)`, answering the value or the error's `{ code, message }`. */
function stdCode(call: string): string {
  return `import { crypto } from '@agent-spaces/std';\ntry { return await crypto.${call}; } catch (error) { const { code, message } = error as { code: string; message: string }; return { code, message }; }`;
}

async function execute(client: Client, code: string): Promise<unknown> {
  const answer = await callTool(client, 'execute', { code });
  return answer.body.result ?? answer.body;
}

/** A raw request to the approvals API as `user`. */
function api(user: keyof typeof tokens, method: string, path: string): Promise<{ status: number; body: { approvals?: ApprovalView[]; error?: { code: string }; status?: string; answer?: { by: string } } }> {
  return new Promise((resolve, reject) => {
    const url = new URL(path, base);
    const req = request(url, { method, headers: { authorization: `Bearer ${tokens[user]}`, ...(method === 'POST' ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      let data = '';
      res.on('data', (chunk: Buffer) => (data += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(data) as never }));
    });
    req.on('error', reject);
    req.end(method === 'POST' ? '{}' : undefined);
  });
}

async function auditLines(): Promise<Record<string, unknown>[]> {
  const text = await readFile(project.path('.agent-spaces/audit/default.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe('two users of one server', () => {
  it('a group rule applies to the intern only', async () => {
    const [alice, bob] = [await clientOf('alice'), await clientOf('bob')];
    expect(await execute(alice, stdCode("hash('sha256', 'x')"))).toMatch(/^[0-9a-f]{64}$/);
    expect(await execute(bob, stdCode("hash('sha256', 'x')"))).toMatchObject({ code: 'POLICY_DENIED' });
  });

  it("per-user rate limits count apart: alice's spent budget leaves bob's whole", async () => {
    const [alice, bob] = [await clientOf('alice'), await clientOf('bob')];
    const uuid = /^[0-9a-f-]{36}$/;
    expect(await execute(alice, stdCode('randomUUID()'))).toMatch(uuid);
    expect(await execute(alice, stdCode('randomUUID()'))).toMatch(uuid);
    expect(await execute(alice, stdCode('randomUUID()'))).toMatchObject({ code: 'RATE_LIMITED' });
    expect(await execute(bob, stdCode('randomUUID()'))).toMatch(uuid);
    expect(await execute(bob, stdCode('randomUUID()'))).toMatch(uuid);
    expect(await execute(bob, stdCode('randomUUID()'))).toMatchObject({ code: 'RATE_LIMITED' });
  });

  it('an approval alice asked for cannot be answered by alice, and is by bob; only they see it', async () => {
    const alice = await clientOf('alice');
    const run = execute(alice, stdCode("hash('sha256', 'approve the report')"));
    const view = await vi.waitFor(
      async () => {
        const found = (await api('bob', 'GET', '/approvals')).body.approvals?.find((v) => (v.request.params as { data?: string }).data === 'approve the report');
        if (!found) throw new Error('not pending yet');
        return found;
      },
      { timeout: 30_000, interval: 100 },
    );
    expect(view.request).toMatchObject({ requestedBy: { id: 'user:alice' }, approvers: { others: true } });
    const own = await api('alice', 'POST', `/approvals/${view.id}/approve`);
    expect(own.status).toBe(403);
    expect(own.body.error?.code).toBe('APPROVER_NOT_ALLOWED');
    const approved = await api('bob', 'POST', `/approvals/${view.id}/approve`);
    expect(approved.status).toBe(200);
    expect(approved.body).toMatchObject({ status: 'approved', answer: { by: 'user:bob' } });
    expect(await run).toMatch(/^[0-9a-f]{64}$/);
  });

  it("alice's session and private skill are useless to bob, even with their ids and names", async () => {
    const [alice, bob] = [await clientOf('alice'), await clientOf('bob')];
    const session = (await callTool(alice, 'create_session', {})).body as { sessionId: string };
    expect((await callTool(alice, 'send_code', { sessionId: session.sessionId, code: 'const kept = 41; return kept + 1;' })).body.result).toBe(42);
    for (const [tool, args] of [
      ['send_code', { sessionId: session.sessionId, code: 'return kept;' }],
      ['get_session_info', { sessionId: session.sessionId }],
      ['get_session_history', { sessionId: session.sessionId }],
      ['close_session', { sessionId: session.sessionId }],
    ] as const) {
      const answer = await callTool(bob, tool, args);
      expect(answer.isError, tool).toBe(true);
      expect(answer.body.code, tool).toBe('SESSION_NOT_FOUND');
    }
    expect((await callTool(alice, 'send_code', { sessionId: session.sessionId, code: 'return kept;' })).body.result).toBe(41);

    const code = '/** Doubles a number. */\nexport async function twice(params: { n: number }): Promise<number> {\n  return params.n * 2;\n}\n';
    expect((await callTool(alice, 'save_skill', { name: 'twice', code })).isError).toBe(false);
    const useIt = "import { skills } from '@capabilities/skills';\nreturn await skills.twice({ n: 21 });";
    expect(await execute(alice, useIt)).toBe(42);
    expect((await callTool(bob, 'list_skills')).body.skills.map((s: { name: string }) => s.name)).not.toContain('twice');
    expect((await callTool(bob, 'execute', { code: useIt })).body).toMatchObject({ code: 'TYPE_ERROR' });
    const untyped = "import { skills } from '@capabilities/skills';\nconst all = skills as Record<string, unknown>;\nreturn [Object.keys(all), typeof all.twice];";
    expect(await execute(bob, untyped)).toEqual([[], 'undefined']);
    expect(await execute(alice, untyped)).toEqual([['twice'], 'function']);
    expect((await callTool(bob, 'delete_skill', { name: 'twice' })).body).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect(await execute(alice, useIt)).toBe(42);
  });

  it("alice's task is useless to bob, and hers on every connection", async () => {
    const [alice, bob] = [await clientOf('alice'), await clientOf('bob')];
    const created = await alice.request({ method: 'tools/call', params: { name: 'execute', arguments: { code: 'export default "alice task";' }, task: {} } as never }, CreateTaskResultSchema);
    const { taskId } = created.task;
    await expect.poll(async () => (await alice.experimental.tasks.getTask(taskId)).status, { timeout: 30_000 }).toBe('completed');
    const refused = async (promise: Promise<unknown>) => ((await promise.then(() => undefined, (error: unknown) => error)) as { code?: number } | undefined)?.code;
    expect(await refused(bob.experimental.tasks.getTask(taskId))).toBe(-32602);
    expect(await refused(bob.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).toBe(-32602);
    expect(await refused(bob.experimental.tasks.cancelTask(taskId))).toBe(-32602);
    expect((await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(taskId);
    expect((await (await clientOf('alice')).experimental.tasks.getTask(taskId)).status).toBe('completed');
  });

  it('the audit log names the user of each call', async () => {
    const lines = (await auditLines()).filter((line) => 'outcome' in line);
    const who = (data: string) => lines.filter((l) => (l.params as { data?: string }).data === data).map((l) => (l.principal as { id: string } | undefined)?.id);
    expect(who('x').sort()).toEqual(['user:alice', 'user:bob']);
    const uuids = lines.filter((l) => l.function === 'crypto.randomUUID').map((l) => (l.principal as { id: string }).id);
    expect(uuids.filter((id) => id === 'user:alice')).toHaveLength(3);
    expect(uuids.filter((id) => id === 'user:bob')).toHaveLength(3);
    expect(lines.find((l) => (l.params as { data?: string }).data === 'approve the report')).toMatchObject({
      principal: { id: 'user:alice', subject: 'alice', groups: ['sales'] },
      decision: { kind: 'ask', approved: true, answeredBy: 'user:bob' },
    });
  });
});
