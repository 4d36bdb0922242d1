// The server's MCP tasks on a real PostgreSQL database shared by two replicas (A and B, each its own ServerTasks and
// SharedDatabase): what one creates, settles or cancels, the other sees — for the same principal only; a dead
// replica's tasks are failed by a live one; the per-principal cap holds across both; an outage rejects at once.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { SharedDatabase } from '@agent-spaces/bridge/shared';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { PostgresTaskRecords } from '../src/tasks/postgres.js';
import { ServerTasks, type TaskOptions } from '../src/tasks/store.js';
import { startPostgres, type PostgresServer } from '../../../test/services/postgres.js';

const OK: CallToolResult = { content: [{ type: 'text', text: 'done' }] };
/** Not used: the records are in PostgreSQL. */
const NO_FOLDER = '/nonexistent/agent-spaces-tasks';

let postgres: PostgresServer;
const cleanups: (() => Promise<void>)[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
}, 60_000);

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup().catch(() => undefined);
});

afterAll(async () => postgres?.close());

interface Replicas {
  a: ServerTasks;
  b: ServerTasks;
  /** Replica ids `alive` answers false for. */
  dead: Set<string>;
  database: SharedDatabase;
}

/** Replicas `a` and `b` of one new database, each with its own connection pool. */
async function replicas(options: TaskOptions = {}): Promise<Replicas> {
  const url = await postgres.createDatabase();
  const dead = new Set<string>();
  const open = async (replica: string) => {
    const database = await SharedDatabase.open(url, { connectTimeoutMs: 2_000 });
    const tasks = await ServerTasks.open(NO_FOLDER, { ...options, records: new PostgresTaskRecords(database), owner: { replica, alive: async (r) => !dead.has(r) } });
    cleanups.push(async () => {
      await tasks.close();
      await database.close();
    });
    return { database, tasks };
  };
  const [a, b] = [await open('a'), await open('b')];
  return { a: a.tasks, b: b.tasks, dead, database: a.database };
}

/** The code of what `promise` rejects with (an AgentSpacesError's, or `data.code` of a JSON-RPC error). */
async function rejection(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof AgentSpacesError) return error.code;
    const data = (error as { data?: { code?: string } }).data;
    return data?.code ?? `code ${(error as { code?: unknown }).code}`;
  }
  return undefined;
}

/** Resolves with `signal`'s reason once it aborts (or at once, if it has); rejects after `ms`. */
function aborted(signal: AbortSignal, ms: number): Promise<unknown> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return resolve(signal.reason);
    const timer = setTimeout(() => reject(new Error(`not aborted within ${ms} ms`)), ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve(signal.reason);
    });
  });
}

describe('two replicas on one database', () => {
  it("finds, lists and gets a task created on A through B, for its principal only", async () => {
    const { a, b } = await replicas();
    const { taskId } = await a.create('token:alice', 'execute', 60_000);
    const other = await a.create('token:bob', 'execute', 60_000);
    const alice = b.view(() => 'token:alice');
    expect(await alice.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    expect((await alice.listTasks()).tasks.map((t) => t.taskId)).toEqual([taskId]);
    expect((await b.find('token:alice', taskId))?.replica).toBe('a');

    // Another principal, malformed ids, and the id of another principal's task name nothing.
    const bob = b.view(() => 'token:bob');
    expect(await bob.getTask(taskId)).toBeNull();
    expect((await bob.listTasks()).tasks.map((t) => t.taskId)).toEqual([other.taskId]);
    await bob.updateTaskStatus(taskId, 'cancelled');
    await bob.storeTaskResult(taskId, 'completed', OK);
    await expect(bob.getTaskResult(taskId)).rejects.toMatchObject({ code: -32602 });
    const hostile = ["' OR 1=1 --", `${taskId}' OR 'x'='x`, '../x', '', 'x'.repeat(100_000), taskId.toUpperCase(), `${taskId} `, '00000000-0000-4000-8000-000000000000', other.taskId];
    for (const id of hostile) {
      expect(await alice.getTask(id)).toBeNull();
      await expect(alice.getTaskResult(id)).rejects.toMatchObject({ code: -32602 });
      await alice.updateTaskStatus(id, 'cancelled');
    }
    for (const id of [42, null, undefined, { taskId }]) expect(await b.find('token:alice', id)).toBeUndefined();
    await expect(alice.listTasks("' OR 1=1 --")).rejects.toThrow(/Invalid cursor/);
    expect((await a.find('token:bob', other.taskId))?.task.status).toBe('working');
    expect((await a.find('token:alice', taskId))?.task.status).toBe('working');
  });

  it('settled on A, its result is read on B, a NUL character included; it expires ttl ms after it ended', async () => {
    const { a, b, database } = await replicas();
    const { taskId } = await a.create('local', 'execute', 60_000);
    const result: CallToolResult = { content: [{ type: 'text', text: 'nul \u0000 and \ud800 kept' }] };
    expect(await a.settle(taskId, 'completed', result)).toBe(true);
    expect(await b.settle(taskId, 'failed', OK)).toBe(false);
    const view = b.view(() => 'local');
    expect(await view.getTask(taskId)).toMatchObject({ status: 'completed' });
    expect(await view.getTaskResult(taskId)).toEqual(result);

    const brief = await a.create('local', 'execute', 1);
    await a.settle(brief.taskId, 'completed', OK);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await view.getTask(brief.taskId)).toBeNull();
    expect(await database.query('SELECT 1 FROM agent_spaces_tasks WHERE task_id = $1', [brief.taskId])).toEqual([]);
  });

  it("cancelled through B, A's run is aborted within a second; A's own end never aborts its run", async () => {
    const { a, b } = await replicas();
    const { taskId } = await a.create('local', 'execute', 60_000);
    const controller = new AbortController();
    a.track(taskId, controller);
    const started = Date.now();
    // What the SDK's tasks/cancel handler does.
    await b.view(() => 'local').updateTaskStatus(taskId, 'cancelled', 'Client cancelled task execution.');
    const reason = await aborted(controller.signal, 1_000);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(reason).toMatchObject({ code: 'ABORTED' });
    expect(await a.settle(taskId, 'completed', OK)).toBe(false);
    expect(await a.view(() => 'local').getTaskResult(taskId)).toMatchObject({ isError: true });

    const own = await a.create('local', 'execute', 60_000);
    const running = new AbortController();
    a.track(own.taskId, running);
    expect(await a.settle(own.taskId, 'completed', OK)).toBe(true);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(running.signal.aborted).toBe(false);
  });

  it("leaves a live replica's task alone at a sweep, and fails a dead replica's (whose run, if it lives on, stops)", async () => {
    const { a, b, dead } = await replicas();
    const { taskId } = await a.create('local', 'execute', 60_000);
    const controller = new AbortController();
    a.track(taskId, controller);
    await b.sweep();
    expect((await b.find('local', taskId))?.task.status).toBe('working');
    dead.add('a');
    await b.sweep();
    expect((await b.find('local', taskId))?.task).toMatchObject({ status: 'failed', statusMessage: 'the server restarted while the task ran' });
    expect(await aborted(controller.signal, 1_000)).toMatchObject({ code: 'ABORTED' });
    // B's own tasks are B's: its sweep leaves them.
    const mine = await b.create('local', 'execute', 60_000);
    await b.sweep();
    expect((await a.find('local', mine.taskId))?.task.status).toBe('working');
  });

  it('holds the per-principal cap across both replicas, also when they create at the same time', async () => {
    const { a, b } = await replicas({ limits: { maxPerPrincipal: 3 } });
    const attempts = await Promise.allSettled([a, b, a, b, a, b, a, b].map((tasks) => tasks.create('local', 'execute', 60_000)));
    expect(attempts.filter((attempt) => attempt.status === 'fulfilled')).toHaveLength(3);
    for (const attempt of attempts.filter((attempt) => attempt.status === 'rejected')) {
      expect((attempt.reason as AgentSpacesError).code).toBe('TOO_MANY_TASKS');
    }
    expect((await b.view(() => 'local').listTasks()).tasks).toHaveLength(3);
    // Another principal has its own count; an ended task makes room on either replica.
    expect((await b.create('token:other', 'execute', 60_000)).status).toBe('working');
    const [first] = (await a.view(() => 'local').listTasks()).tasks;
    await b.settle(first!.taskId, 'completed', OK);
    expect((await a.create('local', 'execute', 60_000)).status).toBe('working');
    expect(await a.find('local', first!.taskId)).toBeUndefined();
  });
});

describe('an outage', () => {
  it('rejects STORE_UNAVAILABLE at once while PostgreSQL is stopped, loses no acknowledged task, and works once it is back', async () => {
    const { a, b } = await replicas();
    const kept = await a.create('local', 'execute', 60_000);
    await postgres.stop();
    try {
      const started = Date.now();
      expect(await rejection(a.create('local', 'execute', 60_000))).toBe('STORE_UNAVAILABLE');
      await expect(b.view(() => 'local').getTask(kept.taskId)).rejects.toMatchObject({ code: -32603, data: { code: 'STORE_UNAVAILABLE', store: 'postgres' } });
      expect(await rejection(b.view(() => 'local').updateTaskStatus(kept.taskId, 'cancelled'))).toBe('STORE_UNAVAILABLE');
      expect(await rejection(a.settle(kept.taskId, 'completed', OK))).toBe('STORE_UNAVAILABLE');
      expect(Date.now() - started).toBeLessThan(5_000);
    } finally {
      await postgres.start();
    }
    const again = await a.create('local', 'execute', 60_000);
    const view = b.view(() => 'local');
    expect(await view.getTask(kept.taskId)).toMatchObject({ status: 'working' });
    expect((await view.listTasks()).tasks.map((t) => t.taskId)).toEqual([kept.taskId, again.taskId]);
    expect(await a.settle(kept.taskId, 'completed', OK)).toBe(true);
    expect(await view.getTaskResult(kept.taskId)).toEqual(OK);
  }, 30_000);
});
