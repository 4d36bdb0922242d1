import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProgressUpdate } from '@agent-spaces/capabilities';
import { McpClientPool, createMcpExecutor } from '../src/index.js';

/**
 * MCP tasks through the pool and the executor, against a real server (the SDK's `registerToolTask` over stdio,
 * test/fixtures/mcp-task-server.mjs): a task-only tool runs as a task with its progress, a failed or server-cancelled
 * task is a typed error, and an abort or a timeout cancels the task upstream.
 */

const server = fileURLToPath(new URL('../../../test/fixtures/mcp-task-server.mjs', import.meta.url));
let pool: McpClientPool;

beforeAll(() => {
  pool = new McpClientPool({ tasks: { command: process.execPath, args: [server] } });
});
afterAll(() => pool.close());

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; data: Record<string, unknown> }> {
  const error: unknown = await promise.then(
    () => new Error('expected a rejection'),
    (e: unknown) => e,
  );
  return error as { code: string; message: string; data: Record<string, unknown> };
}

/** The ids of the tasks the fixture saw cancelled by the client. */
async function cancelledTasks(): Promise<string[]> {
  const result = await pool.callTool('tasks', 'cancelled_tasks');
  return (result.structuredContent as { taskIds: string[] }).taskIds;
}

const context = (progress: ProgressUpdate[], signal = new AbortController().signal) => ({
  capability: 'tasks',
  function: 'slowReport',
  signal,
  progress: (update: ProgressUpdate) => progress.push(update),
});

describe('a tool that runs only as a task', () => {
  it('is called as a task: its result, its progress notifications and its status messages as progress', async () => {
    const run = createMcpExecutor(pool, { server: 'tasks' });
    const progress: ProgressUpdate[] = [];
    const value = await run({ sourceName: 'slow_report', task: 'required' }, { topic: 'trains', steps: 2 }, context(progress));
    expect(value).toEqual({ topic: 'trains', steps: 2, summary: 'trains: 2 sources read' });
    expect(progress.filter((update) => update.message === undefined)).toEqual([
      { progress: 1, total: 2 },
      { progress: 2, total: 2 },
    ]);
    const said = progress.filter((update) => update.message !== undefined);
    expect(said.map((update) => update.message)).toEqual(['step 1 of 2: reading about trains', 'step 2 of 2: reading about trains']);
    expect(said[0]!.progress).toBeGreaterThanOrEqual(0);
  });

  it('is refused by the server when called without a task', async () => {
    const error = await failure(pool.callTool('tasks', 'slow_report', { topic: 'x' }));
    expect(error.code).toBe('HANDLER_ERROR');
  });

  it('turns a failed task into the error a failed tool call gives, with its content', async () => {
    const error = await failure(pool.callTool('tasks', 'slow_report', { topic: 'moss', steps: 1, outcome: 'failed' }, { task: true }));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.message).toBe('MCP tool "slow_report" of "tasks" failed: no sources on moss');
    expect(error.data).toMatchObject({ server: 'tasks', tool: 'slow_report', content: [{ type: 'text', text: 'no sources on moss' }] });
  });

  it('turns a task the server cancelled into HANDLER_ERROR with taskStatus cancelled', async () => {
    const error = await failure(pool.callTool('tasks', 'slow_report', { topic: 'fog', steps: 1, outcome: 'cancelled' }, { task: true }));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.message).toBe('MCP tool "slow_report" of "tasks": the server cancelled its task (the server shut the task down)');
    expect(error.data).toMatchObject({ server: 'tasks', tool: 'slow_report', taskStatus: 'cancelled', taskId: expect.any(String) });
  });

  it('is cancelled upstream (tasks/cancel) when the call is aborted, and rejects ABORTED at once', async () => {
    const controller = new AbortController();
    const before = await cancelledTasks();
    const progress: ProgressUpdate[] = [];
    const call = pool.callTool('tasks', 'slow_report', { topic: 'rain', steps: 40 }, {
      task: true,
      signal: controller.signal,
      onProgress: (update) => {
        progress.push(update);
        controller.abort();
      },
    });
    const error = await failure(call);
    expect(error.code).toBe('ABORTED');
    expect(progress.length).toBeGreaterThan(0);
    await expect.poll(async () => (await cancelledTasks()).length, { timeout: 5_000 }).toBe(before.length + 1);
  });

  it('is bounded as a whole by the call timeout, and then cancelled upstream', async () => {
    const before = await cancelledTasks();
    const error = await failure(pool.callTool('tasks', 'slow_report', { topic: 'snow', steps: 40, stepMs: 30 }, { task: true, timeoutMs: 300 }));
    expect(error.code).toBe('TIMEOUT');
    expect(error.data).toMatchObject({ server: 'tasks', timeoutMs: 300 });
    await expect.poll(async () => (await cancelledTasks()).length, { timeout: 5_000 }).toBe(before.length + 1);
  });
});

describe('a task created after its call was given up', () => {
  it('is cancelled upstream as soon as the server names it', async () => {
    const before = await cancelledTasks();
    const slow = { topic: 'hail', steps: 40, stepMs: 30, createDelayMs: 600 };
    const error = await failure(pool.callTool('tasks', 'slow_report', slow, { task: true, timeoutMs: 150 }));
    expect(error.code).toBe('TIMEOUT');
    await expect.poll(async () => (await cancelledTasks()).length, { timeout: 5_000 }).toBe(before.length + 1);
  });
});

describe('a tool that may run as a task', () => {
  it('is called with a plain tools/call', async () => {
    const run = createMcpExecutor(pool, { server: 'tasks' });
    const value = await run({ sourceName: 'quick_sum', task: 'optional' }, { a: 2, b: 40 }, context([]));
    expect(value).toEqual({ content: [{ type: 'text', text: '42' }], text: '42' });
  });
});
