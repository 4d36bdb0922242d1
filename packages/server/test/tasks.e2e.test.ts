// MCP tasks (2025-11-25) on `tools/call`, with the official SDK client over Streamable HTTP with bearer tokens: a task
// is created, polled, its result fetched, listed and cancelled — from the connection that made it and from a new one of
// the same token — and is never found with another token. Restarts: tasks-restart.e2e.test.ts; the store: tasks-store.test.ts.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  CallToolResultSchema,
  CreateTaskResultSchema,
  GetTaskResultSchema,
  McpError,
  type CallToolResult,
  type Task,
} from '@modelcontextprotocol/sdk/types.js';
import type { HandlerContext } from '@agent-spaces/capabilities';
import { startHttpServer, type HttpServerHandle } from '../src/http.js';
import { createServerLog } from '../src/log.js';
import { createCodeModeHost, type CodeModeHost } from '../src/server.js';
import { newClient, type ElicitAnswer } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const TOKEN = 'tasks-token-of-alice-0123456789';
const OTHER_TOKEN = 'tasks-token-of-bob-9876543210';
const SLOW = {
  name: 'slow',
  description: 'Slow work',
  functions: [{ name: 'hold', description: 'Answers when the test releases it or the call is aborted', parameters: { type: 'object', properties: {} }, returns: { type: 'string' } }],
  executor: { kind: 'runtime' },
};
const HOLD = "import { slow } from '@capabilities/slow';\nexport default await slow.hold();";
const DELETE = "import { vault } from '@capabilities/vault';\nexport default await vault.deleteSecrets();";
/** How long a poll waits for something a run does (a cold run typechecks and starts a sandbox first). */
const RUN = { timeout: 20_000, interval: 50 };

/** Every `slow.hold` call that reached its handler: its signal, and how to release it. */
const holds: { signal: AbortSignal; release: () => void }[] = [];
const logLines: string[] = [];
let project: TestProject;
let host: CodeModeHost;
const https: HttpServerHandle[] = [];
let url: string;
let otherUrl: string;
const clients: Client[] = [];

beforeAll(async () => {
  project = await createProject({ 'capabilities/slow.json': JSON.stringify(SLOW) });
  host = createCodeModeHost({
    spaces: [
      {
        id: 'work',
        name: 'Work',
        tools: [{ name: 'ask_trains', description: 'Asks an agent about trains', parameters: { type: 'object', properties: {} }, prompt: 'Which trains leave?' }],
      },
    ],
    space: {
      rootDir: project.rootDir,
      handlers: {
        ...project.handlers,
        slow: {
          hold: (_params: object, context: HandlerContext) =>
            new Promise<string>((resolve) => {
              holds.push({ signal: context.signal, release: () => resolve('released') });
              context.signal.addEventListener('abort', () => resolve('aborted'));
            }),
        },
      },
    },
    log: createServerLog({ format: 'json', write: (line) => logLines.push(line) }),
  });
  // Two front doors of one server, each with its own token: two principals of the same task store.
  for (const authToken of [TOKEN, OTHER_TOKEN]) https.push(await startHttpServer({ createServer: () => host.createServer(), port: 0, rateLimit: false, authToken }));
  [url, otherUrl] = https.map((h) => h.url) as [string, string];
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  for (const http of https) await http.close();
  await host?.close();
  await project?.cleanup();
});

async function connect(options: { token?: string; at?: string; elicit?: ElicitAnswer } = {}): Promise<Client> {
  const client = newClient(options.elicit);
  const headers = { Authorization: `Bearer ${options.token ?? TOKEN}` };
  await client.connect(new StreamableHTTPClientTransport(new URL(options.at ?? url), { requestInit: { headers } }));
  clients.push(client);
  return client;
}

/** `tools/call` of `name` as a task (`task` is the request's task metadata); resolves with the task created. */
async function callAsTask(client: Client, name: string, args: Record<string, unknown>, task: Record<string, unknown> = {}): Promise<Task> {
  const created = await client.request({ method: 'tools/call', params: { name, arguments: args, task } as never }, CreateTaskResultSchema);
  return created.task;
}

/** Polls `tasks/get` until the task has `status`. */
async function until(client: Client, taskId: string, status: Task['status']): Promise<Task> {
  let task: Task | undefined;
  await expect.poll(async () => (task = await client.experimental.tasks.getTask(taskId)).status, RUN).toBe(status);
  return task!;
}

/** The JSON body of a `tasks/result`. */
async function resultOf(client: Client, taskId: string): Promise<{ result: CallToolResult; body: Record<string, unknown> }> {
  const result = await client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema);
  const first = result.content[0];
  return { result, body: JSON.parse(first?.type === 'text' ? first.text : 'null') as Record<string, unknown> };
}

/** The JSON-RPC error a promise rejects with. */
async function rpcError(promise: Promise<unknown>): Promise<McpError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(McpError);
  return error as McpError;
}

describe('what the server declares', () => {
  it('offers tasks (list, cancel, tools/call) and marks execute, send_code and prompt tools taskSupport optional', async () => {
    const client = await connect();
    expect(client.getServerCapabilities()?.tasks).toEqual({ list: {}, cancel: {}, requests: { tools: { call: {} } } });
    const { tools } = await client.listTools();
    const support = Object.fromEntries(tools.map((t) => [t.name, t.execution?.taskSupport]));
    expect(support).toMatchObject({ execute: 'optional', send_code: 'optional', ask_trains: 'optional' });
    expect(support.search_capabilities).toBeUndefined();
    expect(support.create_session).toBeUndefined();
  });
});

describe('a tools/call with a task', () => {
  it('answers at once with a working task, which completes with the run result that tasks/result gives', async () => {
    const client = await connect();
    const task = await callAsTask(client, 'execute', { code: 'export default 6 * 7;' });
    expect(task).toMatchObject({ status: 'working', ttl: 3_600_000, pollInterval: 500 });
    expect(task.taskId).toMatch(/^[0-9a-f-]{36}$/);
    await until(client, task.taskId, 'completed');
    const { result, body } = await resultOf(client, task.taskId);
    expect(result.isError).toBeFalsy();
    expect(body).toMatchObject({ result: 42, logs: [] });
    expect(result._meta?.['io.modelcontextprotocol/related-task']).toEqual({ taskId: task.taskId });
    expect(logLines.map((l) => JSON.parse(l) as Record<string, unknown>)).toContainEqual(
      expect.objectContaining({ event: 'tool.called', tool: 'execute', task: task.taskId, ok: true }),
    );
  });

  it('keeps a failing run as a completed task with an error result', async () => {
    const client = await connect();
    const task = await callAsTask(client, 'execute', { code: 'throw new Error("nope");' });
    await until(client, task.taskId, 'completed');
    const { result, body } = await resultOf(client, task.taskId);
    expect(result.isError).toBe(true);
    expect(body.code).toBe('SCRIPT_ERROR');
  });

  it('runs send_code in its session as a task', async () => {
    const client = await connect();
    const created = (await client.callTool({ name: 'create_session', arguments: {} })) as CallToolResult;
    const { sessionId } = JSON.parse((created.content[0] as { text: string }).text) as { sessionId: string };
    const task = await callAsTask(client, 'send_code', { sessionId, code: 'const x = 5;\nreturn x * 2;' });
    await until(client, task.taskId, 'completed');
    expect((await resultOf(client, task.taskId)).body).toMatchObject({ sessionId, result: 10 });
  });

  it('is found, listed and its result fetched from a new connection of the same token', async () => {
    const first = await connect();
    const task = await callAsTask(first, 'execute', { code: 'export default "from the first connection";' });
    await until(first, task.taskId, 'completed');
    await first.close();
    const second = await connect();
    expect((await second.experimental.tasks.getTask(task.taskId)).status).toBe('completed');
    expect((await resultOf(second, task.taskId)).body.result).toBe('from the first connection');
    const listed = await second.experimental.tasks.listTasks();
    expect(listed.tasks.map((t) => t.taskId)).toContain(task.taskId);
  });

  it('is neither found, listed, fetched nor cancelled with another token', async () => {
    const alice = await connect();
    const task = await callAsTask(alice, 'execute', { code: HOLD });
    const bob = await connect({ token: OTHER_TOKEN, at: otherUrl });
    expect((await rpcError(bob.experimental.tasks.getTask(task.taskId))).code).toBe(-32602);
    expect((await rpcError(bob.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema))).code).toBe(-32602);
    expect((await rpcError(bob.experimental.tasks.cancelTask(task.taskId))).code).toBe(-32602);
    expect((await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(task.taskId);
    // Bob's tasks are his own: Alice does not see them either.
    const his = await callAsTask(bob, 'execute', { code: 'export default 1;' });
    expect((await alice.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(his.taskId);
    await alice.experimental.tasks.cancelTask(task.taskId);
    expect((await alice.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
  });
});

describe('tasks/cancel', () => {
  it('aborts the run (its capability call sees its signal abort) and leaves the task cancelled', async () => {
    const client = await connect();
    const before = holds.length;
    const task = await callAsTask(client, 'execute', { code: HOLD });
    await expect.poll(() => holds.length, RUN).toBe(before + 1);
    const hold = holds.at(-1)!;
    const cancelled = await client.experimental.tasks.cancelTask(task.taskId);
    expect(cancelled.status).toBe('cancelled');
    await expect.poll(() => hold.signal.aborted, RUN).toBe(true);
    const { result, body } = await resultOf(client, task.taskId);
    expect(result.isError).toBe(true);
    expect(body.code).toBe('ABORTED');
    // The run's own end does not change a task that ended.
    await expect
      .poll(() => logLines.some((l) => l.includes(task.taskId) && l.includes('"cancelled":true')), RUN)
      .toBe(true);
    expect((await client.experimental.tasks.getTask(task.taskId)).status).toBe('cancelled');
    expect((await rpcError(client.experimental.tasks.cancelTask(task.taskId))).code).toBe(-32602);
  });
});

describe('approvals in a task', () => {
  it('keeps the task input_required, naming the approval, until the person answers', async () => {
    const asked: ((approve: boolean) => void)[] = [];
    const client = await connect({
      elicit: () => new Promise((resolve) => asked.push((approve) => resolve({ action: 'accept', content: { approve } }))),
    });
    const task = await callAsTask(client, 'execute', { code: DELETE });
    const waiting = await until(client, task.taskId, 'input_required');
    expect(waiting.statusMessage).toMatch(/^waiting for approval \S+ \(vault\.deleteSecrets\)$/);
    expect(asked).toHaveLength(1);
    asked[0]!(true);
    await until(client, task.taskId, 'completed');
    expect((await resultOf(client, task.taskId)).body.result).toEqual({ deleted: 3 });
  });
});

describe('hostile task requests', () => {
  it('finds no task for ids that are paths, huge or not strings, and reads no file outside the folder', async () => {
    const client = await connect();
    // A file shaped like a task record just outside the tasks folder: a path id must not reach it.
    const state = join(project.rootDir, '.agent-spaces', 'state');
    mkdirSync(state, { recursive: true });
    writeFileSync(join(state, 'x.json'), JSON.stringify({ task: { taskId: '../x', status: 'completed' }, principal: 'local' }));
    for (const taskId of ['../x', '../../x', '../state/x', '/etc/passwd', 'x'.repeat(100_000), '']) {
      expect((await rpcError(client.experimental.tasks.getTask(taskId))).code).toBe(-32602);
      expect((await rpcError(client.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).code).toBe(-32602);
      expect((await rpcError(client.experimental.tasks.cancelTask(taskId))).code).toBe(-32602);
    }
    // Not a string: the SDK's schema check refuses it (-32603, its answer to any malformed request) before any lookup.
    for (const taskId of [42, null, { id: 'x' }, ['x']]) {
      const error = await rpcError(client.request({ method: 'tasks/get', params: { taskId } } as never, GetTaskResultSchema));
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/taskId[\s\S]*expected string|expected string[\s\S]*taskId/);
    }
    expect((await rpcError(client.experimental.tasks.listTasks('../x'))).code).toBe(-32602);
  });

  it('refuses a ttl that is not a positive number and cuts a huge one to 24 hours', async () => {
    const client = await connect();
    for (const ttl of [-5, 0, -1e308]) {
      const error = await rpcError(callAsTask(client, 'execute', { code: 'export default 1;' }, { ttl }));
      expect(error.code).toBe(-32602);
      expect(error.data).toMatchObject({ code: 'INVALID_ARGUMENTS', field: 'task.ttl' });
    }
    // Not a number: the SDK's schema check refuses it, naming the field, before a task is made.
    for (const ttl of ['1000', null, { ms: 5 }]) {
      const error = await rpcError(callAsTask(client, 'execute', { code: 'export default 1;' }, { ttl }));
      expect(error.code).toBe(-32603);
      expect(error.message).toMatch(/ttl[\s\S]*expected number|expected number[\s\S]*ttl/);
    }
    expect((await callAsTask(client, 'execute', { code: 'export default 1;' }, { ttl: 1e300 })).ttl).toBe(86_400_000);
    expect((await callAsTask(client, 'execute', { code: 'export default 1;' }, { ttl: 1500.5 })).ttl).toBe(1501);
  });

  it('answers -32601 for a tool without task support and -32602 for an unknown tool', async () => {
    const client = await connect();
    expect((await rpcError(callAsTask(client, 'search_capabilities', { query: 'trains' }))).code).toBe(-32601);
    expect((await rpcError(callAsTask(client, 'no_such_tool', {}))).code).toBe(-32602);
  });
});

describe('without a task', () => {
  it('answers tools/call as before, with the result itself', async () => {
    const client = await connect();
    const result = (await client.callTool({ name: 'execute', arguments: { code: 'export default 7;' } })) as CallToolResult;
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ result: 7 });
  });
});
