// The durable task store of `mcp serve` on a real folder: bounds, expiry, principals, hostile ids, and the hooks a
// run resumed after a restart uses (keepRunning, byRun, settle).
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { ServerTasks } from '../src/tasks/store.js';

const OK: CallToolResult = { content: [{ type: 'text', text: 'done' }] };
let outDir: string;
let folder: string;

beforeEach(() => {
  outDir = mkdtempSync(join(tmpdir(), 'agent-spaces-tasks-'));
  folder = join(outDir, 'state', 'tasks');
});

afterEach(() => rmSync(outDir, { recursive: true, force: true }));

async function codeOf(run: () => unknown): Promise<string | undefined> {
  try {
    await run();
  } catch (error) {
    return error instanceof AgentSpacesError ? error.code : 'not an AgentSpacesError';
  }
  return undefined;
}

describe('the bounds', () => {
  it('drops the oldest ended task of a principal at its cap, and refuses TOO_MANY_TASKS when all still run', async () => {
    const tasks = new ServerTasks(outDir, { limits: { maxPerPrincipal: 3 } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await tasks.create('local', 'execute', 1000)).taskId);
    expect(await codeOf(() => tasks.create('local', 'execute', 1000))).toBe('TOO_MANY_TASKS');
    // Another principal has its own count.
    expect((await tasks.create('token:abc', 'execute', 1000)).status).toBe('working');
    await tasks.settle(ids[1]!, 'completed', OK);
    await tasks.settle(ids[0]!, 'completed', OK);
    const fourth = await tasks.create('local', 'execute', 1000);
    // ids[1] ended first: it is the one dropped.
    expect(await tasks.find('local', ids[1])).toBeUndefined();
    expect((await tasks.find('local', ids[0]))?.task.status).toBe('completed');
    expect((await tasks.find('local', fourth.taskId))?.task.status).toBe('working');
  });

  it('caps the ttl at 24 hours, defaults it to one hour, and refuses one that is not positive', async () => {
    const tasks = new ServerTasks(outDir);
    expect(tasks.ttl(undefined)).toBe(3_600_000);
    expect(tasks.ttl(Number.MAX_VALUE)).toBe(86_400_000);
    for (const bad of [-1, 0, Number.NaN, '60000', {}]) expect(await codeOf(() => tasks.ttl(bad))).toBe('INVALID_ARGUMENTS');
  });

  it('keeps a result over maxResultBytes as a PAYLOAD_TOO_LARGE error result', async () => {
    const tasks = new ServerTasks(outDir, { limits: { maxResultBytes: 1000 } });
    const { taskId } = await tasks.create('local', 'execute', 1000);
    await tasks.settle(taskId, 'completed', { content: [{ type: 'text', text: 'x'.repeat(5000) }] });
    const result = (await tasks.view(() => 'local').getTaskResult(taskId)) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(JSON.parse((result.content[0] as { text: string }).text)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', data: { limit: 1000 } });
  });

  it('removes a task ttl ms after it ended, on access and at start, but never one that runs', async () => {
    const tasks = new ServerTasks(outDir);
    const ended = await tasks.create('local', 'execute', 1);
    const later = await tasks.create('local', 'execute', 1);
    const running = await tasks.create('local', 'execute', 1);
    await tasks.settle(ended.taskId, 'completed', OK);
    await tasks.settle(later.taskId, 'completed', OK);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await tasks.find('local', ended.taskId)).toBeUndefined();
    expect(existsSync(join(folder, `${ended.taskId}.json`))).toBe(false);
    expect(existsSync(join(folder, `${ended.taskId}.result.json`))).toBe(false);
    expect((await tasks.find('local', running.taskId))?.task.status).toBe('working');
    await ServerTasks.open(outDir, { keepRunning: () => true });
    expect(readdirSync(folder).sort()).toEqual([`${running.taskId}.json`]);
  });
});

describe('principals and hostile ids', () => {
  it("finds, lists and answers a task for its principal only; another principal's view finds nothing", async () => {
    const tasks = new ServerTasks(outDir);
    const { taskId } = await tasks.create('token:alice', 'execute', 60_000);
    const alice = tasks.view(() => 'token:alice');
    const bob = tasks.view(() => 'token:bob');
    expect(await alice.getTask(taskId)).toMatchObject({ taskId, status: 'working' });
    expect(await bob.getTask(taskId)).toBeNull();
    expect((await bob.listTasks()).tasks).toEqual([]);
    await bob.updateTaskStatus(taskId, 'cancelled');
    await bob.storeTaskResult(taskId, 'completed', OK);
    expect((await alice.getTask(taskId))?.status).toBe('working');
    await expect(bob.getTaskResult(taskId)).rejects.toMatchObject({ code: -32602 });
  });

  it('never reads a file for an id that is not a task id', async () => {
    const tasks = new ServerTasks(outDir);
    const view = tasks.view(() => 'local');
    const record = { task: { taskId: '../x', status: 'completed', createdAt: '' }, principal: 'local', tool: 't', runIds: [], process: { pid: 1 } };
    writeFileSync(join(outDir, 'state', 'x.json'), JSON.stringify(record));
    writeFileSync(join(outDir, 'state', 'x.result.json'), JSON.stringify(OK));
    for (const id of ['../x', '../../state/x', `${folder}/../x`, 'x'.repeat(1_000_000), '', 'A1B2C3D4-0000-4000-8000-000000000000']) {
      expect(await view.getTask(id)).toBeNull();
      await expect(view.getTaskResult(id)).rejects.toMatchObject({ code: -32602 });
    }
    for (const id of [42, null, undefined, { taskId: 'x' }]) expect(await tasks.find('local', id)).toBeUndefined();
    await expect(view.listTasks('../x')).rejects.toThrow(/Invalid cursor/);
  });

  it('pages tasks/list with an opaque cursor', async () => {
    const tasks = new ServerTasks(outDir, { limits: { pageSize: 2 } });
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await tasks.create('local', 'execute', 60_000)).taskId);
    const view = tasks.view(() => 'local');
    const first = await view.listTasks();
    expect(first.tasks).toHaveLength(2);
    const second = await view.listTasks(first.nextCursor);
    expect([...first.tasks, ...second.tasks].map((t) => t.taskId).sort()).toEqual([...ids].sort());
    expect(second.nextCursor).toBeUndefined();
  });
});

describe('a restart', () => {
  it('fails every task a dead process was running, unless keepRunning keeps it for its resumed run to settle', async () => {
    const before = new ServerTasks(outDir);
    const lost = await before.create('local', 'execute', 60_000);
    const kept = await before.create('local', 'execute', 60_000);
    await before.noteRun(kept.taskId, 'run-7');
    await before.setStatus(kept.taskId, 'input_required', 'waiting for approval a1 (vault.deleteSecrets)');

    const after = new ServerTasks(outDir, { keepRunning: (record) => record.runIds.includes('run-7') });
    expect((await after.find('local', lost.taskId))?.task).toMatchObject({ status: 'failed', statusMessage: 'the server restarted while the task ran' });
    expect((await after.find('local', kept.taskId))?.task.status).toBe('input_required');
    const resumed = await after.byRun('run-7');
    expect(resumed?.task.taskId).toBe(kept.taskId);
    expect(await after.settle(kept.taskId, 'completed', OK)).toBe(true);
    expect(await after.settle(kept.taskId, 'failed', OK)).toBe(false);
    expect((await after.find('local', kept.taskId))?.task.status).toBe('completed');
    expect(await after.byRun('run-unknown')).toBeUndefined();
    // The sweep leaves the tasks of a live runner alone: this process's own, once it took them over.
    await after.sweep();
    const again = await after.create('local', 'execute', 60_000);
    await after.sweep();
    expect((await after.find('local', again.taskId))?.task.status).toBe('working');
  });
});
