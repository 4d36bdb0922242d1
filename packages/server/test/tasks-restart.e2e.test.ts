// MCP tasks across a restart of `agent-spaces mcp serve` (a real child process over Streamable HTTP with a bearer
// token): a task that completed keeps its result after the server is killed (SIGKILL) and started again on the same
// project, a task whose run was computing is `failed` (RUN_INTERRUPTED), one whose run waits for approval stays
// `input_required` (durable-restart.e2e.test.ts resumes such runs), and a server with another token finds none.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema, McpError, type Task } from '@modelcontextprotocol/sdk/types.js';
import { newClient, type ElicitAnswer } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';

const TOKEN = 'tasks-restart-token-0123456789';
const OTHER_TOKEN = 'tasks-restart-other-token-987';
const DELETE = "import { vault } from '@capabilities/vault';\nexport default await vault.deleteSecrets();";
const RUN = { timeout: 30_000, interval: 100 };

let project: TestProject;
const servers: HttpServe[] = [];
const clients: Client[] = [];

beforeAll(async () => {
  project = await createProject();
  await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.json'], server: { rateLimit: false } }));
}, 60_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  for (const server of servers) await server.stop();
  await project?.cleanup();
}, 60_000);

function serve(token: string): HttpServe {
  const server = new HttpServe(project.rootDir, { 'auth-token': token });
  servers.push(server);
  return server;
}

async function connect(server: HttpServe, token: string, elicit?: ElicitAnswer): Promise<Client> {
  const client = newClient(elicit);
  await client.connect(new StreamableHTTPClientTransport(new URL(await server.url()), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  return client;
}

async function execute(client: Client, code: string): Promise<Task> {
  const params = { name: 'execute', arguments: { code }, task: {} };
  return (await client.request({ method: 'tools/call', params }, CreateTaskResultSchema)).task;
}

async function until(client: Client, taskId: string, status: Task['status']): Promise<Task> {
  let task: Task | undefined;
  await expect.poll(async () => (task = await client.experimental.tasks.getTask(taskId)).status, RUN).toBe(status);
  return task!;
}

async function body(client: Client, taskId: string): Promise<{ isError: boolean; body: Record<string, unknown> }> {
  const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  const first = result.content[0];
  return { isError: result.isError === true, body: JSON.parse(first?.type === 'text' ? first.text : 'null') as Record<string, unknown> };
}

describe('tasks across a restart', () => {
  it('keep a result, fail a running task, and stay hidden from another token', async () => {
    const first = serve(TOKEN);
    const client = await connect(first, TOKEN);
    const done = await execute(client, 'export default "kept across restarts";');
    await until(client, done.taskId, 'completed');
    // A person who is asked and never answers: the run waits for approval until the server dies.
    const waiter = await connect(first, TOKEN, () => new Promise(() => undefined));
    const paused = await execute(waiter, DELETE);
    await until(waiter, paused.taskId, 'input_required');
    // A run that computes when the server dies.
    const running = await execute(client, 'const end = Date.now() + 20_000;\nwhile (Date.now() < end) {}\nexport default 1;');
    await until(client, running.taskId, 'working');

    const exited = new Promise((resolve) => first.child.once('exit', resolve));
    first.child.kill('SIGKILL');
    await exited;

    const second = serve(TOKEN);
    const again = await connect(second, TOKEN);
    expect((await again.experimental.tasks.getTask(done.taskId)).status).toBe('completed');
    expect(await body(again, done.taskId)).toEqual({ isError: false, body: expect.objectContaining({ result: 'kept across restarts' }) });
    await until(again, running.taskId, 'failed');
    expect(await again.experimental.tasks.getTask(running.taskId)).toMatchObject({ statusMessage: 'the server restarted while the task ran' });
    expect(await body(again, running.taskId)).toEqual({ isError: true, body: expect.objectContaining({ code: 'RUN_INTERRUPTED', data: { reason: 'restart' } }) });
    expect(await again.experimental.tasks.getTask(paused.taskId)).toMatchObject({ status: 'input_required' });
    expect((await again.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).toEqual(expect.arrayContaining([done.taskId, running.taskId, paused.taskId]));

    const other = serve(OTHER_TOKEN);
    const stranger = await connect(other, OTHER_TOKEN);
    const error = await stranger.experimental.tasks.getTask(done.taskId).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(McpError);
    expect((error as McpError).code).toBe(-32602);
    expect((await stranger.experimental.tasks.listTasks()).tasks).toEqual([]);
  }, 120_000);
});
