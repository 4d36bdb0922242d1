// The A2A task store of `mcp serve`: scoped per principal and bounded, so a client sending messages cannot grow the
// server's memory, and never reads another principal's tasks.
import { TaskState, type Task } from '@a2a-js/sdk';
import { ServerCallContext } from '@a2a-js/sdk/server';
import { describe, expect, it } from 'vitest';
import { BoundedTaskStore } from '../src/modes/a2a-store.js';

const as = (userName: string) => new ServerCallContext({ user: { isAuthenticated: true, userName } });
const task = (id: string, state: TaskState): Task => ({ id, contextId: 'c', status: { state, message: undefined, timestamp: undefined }, artifacts: [], history: [], metadata: {} });

describe('BoundedTaskStore', () => {
  it('keeps at most its cap per principal, dropping the oldest ended tasks and never a running one', async () => {
    const store = new BoundedTaskStore(10);
    const alice = as('user:alice');
    await store.save(task('running-1', TaskState.TASK_STATE_WORKING), alice);
    for (const [i, state] of Array.from({ length: 30 }, (_, i) => [i, [TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED][i % 3]!] as const)) {
      await store.save(task(`done-${i}`, state), alice);
    }
    await store.save(task('running-2', TaskState.TASK_STATE_SUBMITTED), alice);
    const kept = await Promise.all(['running-1', 'running-2', 'done-0', 'done-21', 'done-22', 'done-29'].map(async (id) => (await store.load(id, alice)) !== undefined));
    expect(kept).toEqual([true, true, false, false, true, true]);
    const listed = await store.list({ pageSize: 100 } as never, alice);
    expect(listed.tasks.length).toBe(10);
  });

  it("never gives one principal another's task, and bounds each apart", async () => {
    const store = new BoundedTaskStore(5);
    for (let i = 0; i < 8; i++) await store.save(task(`a-${i}`, TaskState.TASK_STATE_COMPLETED), as('user:alice'));
    await store.save(task('b-0', TaskState.TASK_STATE_COMPLETED), as('user:bob'));
    expect(await store.load('a-7', as('user:bob'))).toBeUndefined();
    expect(await store.load('b-0', as('user:alice'))).toBeUndefined();
    expect((await store.load('a-7', as('user:alice')))?.id).toBe('a-7');
    expect((await store.list({ pageSize: 100 } as never, as('user:alice'))).tasks.map((t) => t.id)).toEqual(expect.arrayContaining(['a-3', 'a-7']));
    expect((await store.list({ pageSize: 100 } as never, as('user:alice'))).tasks).toHaveLength(5);
    expect((await store.list({ pageSize: 100 } as never, as('user:bob'))).tasks).toHaveLength(1);
  });
});
