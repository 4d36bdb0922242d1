// Runs that outlive `agent-spaces mcp serve`: a real server (child process, Streamable HTTP, bearer token) runs agent
// code as an MCP task; a call to a real MCP server (the counting fixture, over stdio) waits for approval; the server is
// killed with SIGKILL and started again on the same project; the approval is answered from outside (the CLI, the HTTP
// API), and the run resumes by replaying its ledger: the client reads the result through tasks/result on a new
// connection, and the fixture's call log shows every side effect ran exactly once.
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { afterAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, type Task } from '@modelcontextprotocol/sdk/types.js';
import { ApprovalService, FileApprovalStore } from '@agent-spaces/sdk';
import type { Project } from '../../../test/fixtures/project.js';
import { callTool, newClient } from './support/client.js';
import { calls, counterProject } from './support/counter.js';
import { HttpServe } from './support/serve.js';

const TOKEN = 'durable-restart-token-5e1f0c';
const TOOLS = [
  { name: 'bump', description: 'Bump a counter', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } },
  { name: 'send', description: 'Send a message', inputSchema: { type: 'object', properties: { to: { type: 'string' } }, required: ['to'] } },
];
const SCRIPT = `import { counter } from '@capabilities/mcp-counter';
const a = await counter.bump({ name: 'a' });
let sent: unknown;
try { sent = await counter.send({ to: 'bob' }); } catch (error) { sent = (error as { code: string }).code; }
const b = await counter.bump({ name: 'b' });
return { a, sent, b, random: Math.random() };`;
const POLL = { timeout: 60_000, interval: 100 };

const servers: HttpServe[] = [];
const clients: Client[] = [];
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  for (const server of servers) await server.stop();
}, 60_000);

/** A built project whose `mcp-counter` capability is the counting fixture, its `send` asking for approval. */
function sendAsks(policies: Record<string, unknown> = {}): Promise<Project> {
  return counterProject(TOOLS, { policies: { rules: { 'mcp-counter.send': 'ask' }, ...policies }, server: { rateLimit: false } });
}

function serve(project: Project, token = TOKEN): HttpServe {
  const server = new HttpServe(project.dir, { 'auth-token': token });
  servers.push(server);
  return server;
}

async function connect(server: HttpServe, token = TOKEN): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(await server.url()), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function killed(server: HttpServe): Promise<void> {
  const exited = new Promise((resolve) => server.child.once('exit', resolve));
  server.child.kill('SIGKILL');
  await exited;
}


/** Starts the script as a task on a first server and kills that server once the `send` call waits for approval. */
async function pausedThenKilled(project: Project): Promise<{ task: Task; approvalId: string }> {
  const first = serve(project);
  const client = await connect(first);
  const params = { name: 'execute', arguments: { code: SCRIPT }, task: {} };
  const { task } = await client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
  await expect.poll(async () => (await client.experimental.tasks.getTask(task.taskId)).status, POLL).toBe('input_required');
  const service = new ApprovalService({ approvals: new FileApprovalStore(project.path('.agent-spaces')) });
  const [pending] = await service.list();
  expect(pending).toMatchObject({ status: 'pending', request: { capability: 'mcp-counter', function: 'send', params: { to: 'bob' }, space: expect.any(String) } });
  await killed(first);
  expect(await calls(project)).toEqual(['bump {"name":"a"}']);
  return { task, approvalId: pending!.id };
}

/** The result of task `taskId`, read through tasks/result on a new connection to `server`. */
async function resultOnNewConnection(server: HttpServe, taskId: string): Promise<{ isError: boolean; body: Record<string, unknown> }> {
  const client = await connect(server);
  await expect.poll(async () => (await client.experimental.tasks.getTask(taskId)).status, POLL).toBe('completed');
  const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  const first = result.content[0];
  return { isError: result.isError === true, body: JSON.parse(first?.type === 'text' ? first.text : 'null') as Record<string, unknown> };
}

describe('a run paused for approval when its server is killed', () => {
  it('completes once approved with `agent-spaces approvals approve` after the restart, each side effect once', async () => {
    const project = await sendAsks();
    const { task, approvalId } = await pausedThenKilled(project);
    const second = serve(project);
    await second.url();
    const listed = await project.cli(['approvals', 'list', '--json']);
    expect(listed.code).toBe(0);
    expect(JSON.stringify(listed.stdout)).toContain(approvalId);
    const approved = await project.cli(['approvals', 'approve', approvalId, '--by', 'alice']);
    expect(approved.code, approved.stderr).toBe(0);
    const { isError, body } = await resultOnNewConnection(second, task.taskId);
    expect(isError).toBe(false);
    expect(body.result).toMatchObject({ a: expect.anything(), sent: expect.anything(), b: expect.anything() });
    expect((body.result as { sent: unknown }).sent).not.toBe('APPROVAL_DENIED');
    expect(await calls(project)).toEqual(['bump {"name":"a"}', 'send {"to":"bob"}', 'bump {"name":"b"}']);
    // The approver's answer is on the call's audit line, with who and from where.
    const auditDir = project.path('.agent-spaces/audit');
    const logs = await Promise.all((await readdir(auditDir)).map((name) => readFile(`${auditDir}/${name}`, 'utf8')));
    const line = logs.join('').split('\n').filter(Boolean).map((text) => JSON.parse(text) as { function: string; outcome?: unknown; decision?: Record<string, unknown> })
      .find((entry) => entry.function === 'send' && entry.outcome);
    expect(line?.decision).toMatchObject({ kind: 'ask', approved: true, answeredBy: 'alice', answeredFrom: expect.stringMatching(/^cli on /) });
  }, 180_000);

  it('completes once approved through the HTTP API of the restarted server', async () => {
    const project = await sendAsks();
    const { task, approvalId } = await pausedThenKilled(project);
    const second = serve(project);
    const base = (await second.url()).replace(/\/mcp$/, '');
    const reply = await fetch(`${base}/approvals/${approvalId}/approve`, {
      method: 'POST',
      headers: { Authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ by: 'bob-the-approver' }),
    });
    expect(reply.status).toBe(200);
    expect(await reply.json()).toMatchObject({ id: approvalId, status: 'approved', answer: { by: 'bob-the-approver' } });
    const { isError } = await resultOnNewConnection(second, task.taskId);
    expect(isError).toBe(false);
    expect(await calls(project)).toEqual(['bump {"name":"a"}', 'send {"to":"bob"}', 'bump {"name":"b"}']);
  }, 180_000);

  it('completes with the call denied when denied after the restart: the denied call never runs', async () => {
    const project = await sendAsks();
    const { task, approvalId } = await pausedThenKilled(project);
    const second = serve(project);
    await second.url();
    const denied = await project.cli(['approvals', 'deny', approvalId, '--reason', 'not today']);
    expect(denied.code, denied.stderr).toBe(0);
    const { body } = await resultOnNewConnection(second, task.taskId);
    expect(body.result).toMatchObject({ sent: 'APPROVAL_DENIED' });
    expect(await calls(project)).toEqual(['bump {"name":"a"}', 'bump {"name":"b"}']);
  }, 180_000);

  it('completes with the call denied when its approval expired while the server was down', async () => {
    const project = await sendAsks({ approvalTimeoutMs: 3_000 });
    const { task, approvalId } = await pausedThenKilled(project);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    const second = serve(project);
    const { body } = await resultOnNewConnection(second, task.taskId);
    expect(body.result).toMatchObject({ sent: 'APPROVAL_DENIED' });
    expect(await calls(project)).toEqual(['bump {"name":"a"}', 'bump {"name":"b"}']);
    const late = await project.cli(['approvals', 'approve', approvalId]);
    expect(late.code).not.toBe(0);
  }, 180_000);

  it('ends REPLAY_DIVERGED, with no new side effect, when the script does not make the calls of its ledger', async () => {
    const project = await sendAsks();
    const { task, approvalId } = await pausedThenKilled(project);
    const runs = await readdir(project.path('.agent-spaces/state/runs'));
    const file = project.path(`.agent-spaces/state/runs/${runs.find((name) => name.endsWith('.json'))!}`);
    const kept = JSON.parse(await readFile(file, 'utf8')) as { replay: { calls: { params: string }[] } };
    kept.replay.calls[0]!.params = JSON.stringify({ name: 'tampered' });
    await writeFile(file, JSON.stringify(kept));
    const second = serve(project);
    await second.url();
    expect((await project.cli(['approvals', 'approve', approvalId])).code).toBe(0);
    const { isError, body } = await resultOnNewConnection(second, task.taskId);
    expect(isError).toBe(true);
    expect(body).toMatchObject({ code: 'REPLAY_DIVERGED' });
    expect(await calls(project)).toEqual(['bump {"name":"a"}']);
  }, 180_000);
});

describe('a second server on the same project', () => {
  it('leaves a run paused by a live server to that server: the approved call runs once', async () => {
    const project = await sendAsks();
    const first = serve(project);
    const client = await connect(first);
    const { task } = await client.request({ method: 'tools/call', params: { name: 'execute', arguments: { code: SCRIPT }, task: {} } }, CreateTaskResultSchema);
    await expect.poll(async () => (await client.experimental.tasks.getTask(task.taskId)).status, POLL).toBe('input_required');
    const second = serve(project);
    await second.url();
    const [pending] = await new ApprovalService({ approvals: new FileApprovalStore(project.path('.agent-spaces')) }).list();
    expect((await project.cli(['approvals', 'approve', pending!.id])).code).toBe(0);
    await expect.poll(async () => (await client.experimental.tasks.getTask(task.taskId)).status, POLL).toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(await calls(project)).toEqual(['bump {"name":"a"}', 'send {"to":"bob"}', 'bump {"name":"b"}']);
  }, 180_000);
});

describe('a session when its server is killed', () => {
  it('is restored on the next send_code: its variables are back, no side effect repeated', async () => {
    const project = await sendAsks();
    const first = serve(project);
    const client = await connect(first);
    const created = await callTool(client, 'create_session');
    const sessionId = (created.body as { sessionId: string }).sessionId;
    const ran = await callTool(client, 'send_code', {
      sessionId,
      code: `import { counter } from '@capabilities/mcp-counter';\nconst first = await counter.bump({ name: 's1' });\nconst seed = Math.random();\nreturn seed;`,
    });
    const seed = (ran.body as { result: number }).result;
    await killed(first);
    // Another principal (another token) holding the id gets SESSION_NOT_FOUND, and nothing is replayed for it.
    const stranger = serve(project, 'another-token-of-someone-else');
    const theirs = await callTool(await connect(stranger, 'another-token-of-someone-else'), 'send_code', { sessionId, code: 'return typeof first;' });
    expect(theirs).toMatchObject({ isError: true, body: { code: 'SESSION_NOT_FOUND' } });
    await killed(stranger);
    const second = serve(project);
    const again = await connect(second);
    const next = await callTool(again, 'send_code', { sessionId, code: `return [typeof first, seed, Math.random() === seed];` });
    expect(next.body).toMatchObject({ result: ['object', seed, false] });
    expect(await calls(project)).toEqual(['bump {"name":"s1"}']);
  }, 180_000);
});
