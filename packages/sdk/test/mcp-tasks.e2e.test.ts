import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { RunEvent, WireError } from '@agent-spaces/capabilities';
import type { BuildReport } from '@agent-spaces/compiler';
import type { RunResult, Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

/**
 * MCP tasks end to end: a project whose config names a real MCP server with a tool that runs only as a task
 * (test/fixtures/mcp-task-server.mjs, the SDK's `registerToolTask` over stdio) is built with the compiler, and agent
 * scripts call that tool in the sandbox through `createSpace`: the call runs as a task, its progress reaches the run's
 * `onEvent`, and aborting the run cancels the task upstream.
 */

const fixtureServer = fileURLToPath(new URL('../../../test/fixtures/mcp-task-server.mjs', import.meta.url));

let project: Project;
let report: BuildReport;
let space: Space;

/** The result of a run that must succeed; a failed run fails the test with its error. */
async function resultOf(run: PromiseLike<RunResult>): Promise<unknown> {
  const outcome = await run;
  if (!outcome.ok) throw new Error(`the run failed: ${outcome.error.code}: ${outcome.error.message}`);
  return outcome.result;
}

/** The error of a run that must fail. */
async function errorOf(run: PromiseLike<RunResult>): Promise<WireError> {
  const outcome = await run;
  if (outcome.ok) throw new Error(`the run succeeded with ${JSON.stringify(outcome.result)}`);
  return outcome.error;
}

/** The ids of the tasks the fixture saw cancelled by the client, asked through the space. */
async function cancelledTasks(): Promise<string[]> {
  const ids = await resultOf(space.run(`import { tasks } from '@capabilities/mcp-tasks'; return (await tasks.cancelledTasks()).taskIds;`));
  return ids as string[];
}

beforeAll(async () => {
  project = await makeProject({
    'agent-spaces.config.json': { capabilities: [], mcpServers: { tasks: { command: process.execPath, args: [fixtureServer] } } },
  });
  report = await project.build();
  space = await project.space();
}, 120_000);

describe('a tool that runs only as an MCP task', () => {
  it('is built like any other tool, and its meta records that it runs as a task', async () => {
    expect(report.capabilities.map((entry) => [entry.id, entry.status, entry.diagnostics])).toEqual([['mcp-tasks', 'built', []]]);
    const dts = await project.read('.agent-spaces/capabilities/mcp-tasks/index.d.ts');
    expect(dts).toMatch(/slowReport\(params: SlowReportParams\): Promise<SlowReportResult>;/);
    const meta = JSON.parse(await project.read('.agent-spaces/capabilities/mcp-tasks/meta.json')) as { functions: unknown[] };
    expect(meta.functions).toEqual(
      expect.arrayContaining([
        { name: 'slowReport', sourceName: 'slow_report', task: 'required' },
        { name: 'quickSum', sourceName: 'quick_sum', task: 'optional' },
        { name: 'cancelledTasks', sourceName: 'cancelled_tasks' },
      ]),
    );
  });

  it('is called as a task from agent code, and its progress and status messages reach the run as progress events', async () => {
    const events: RunEvent[] = [];
    const result = await resultOf(
      space.run(
        `import { tasks } from '@capabilities/mcp-tasks';
         const report = await tasks.slowReport({ topic: 'trains', steps: 2 });
         const sum = await tasks.quickSum({ a: 2, b: 40 });
         return { summary: report.summary, steps: report.steps, sum: sum.text };`,
        { onEvent: (event) => events.push(event) },
      ),
    );
    expect(result).toEqual({ summary: 'trains: 2 sources read', steps: 2, sum: '42' });
    const call = events.find((event) => event.type === 'capabilityCall' && event.function === 'slowReport');
    const progress = events.flatMap((event) => (event.type === 'progress' ? [event] : []));
    expect(new Set(progress.map((event) => [event.callId, event.capability, event.function].join(' ')))).toEqual(
      new Set([`${call?.type === 'capabilityCall' ? call.callId : '?'} mcp-tasks slowReport`]),
    );
    expect(progress.filter((event) => event.message === undefined).map((event) => [event.progress, event.total])).toEqual([
      [1, 2],
      [2, 2],
    ]);
    expect(progress.flatMap((event) => (event.message === undefined ? [] : [event.message]))).toEqual([
      'step 1 of 2: reading about trains',
      'step 2 of 2: reading about trains',
    ]);
  });

  it('gives agent code the typed error of a failed tool call when its task fails', async () => {
    const result = await resultOf(
      space.run(`
        import { tasks } from '@capabilities/mcp-tasks';
        try {
          await tasks.slowReport({ topic: 'moss', steps: 1, outcome: 'failed' });
          return 'no error';
        } catch (e) {
          if (!(e instanceof CapabilityError)) throw e;
          return { code: e.code, message: e.message };
        }
      `),
    );
    expect(result).toEqual({ code: 'HANDLER_ERROR', message: 'MCP tool "slow_report" of "tasks" failed: no sources on moss' });
  });

  it('is cancelled upstream (tasks/cancel) when the run is aborted', async () => {
    const before = await cancelledTasks();
    const controller = new AbortController();
    const run = space.run(`import { tasks } from '@capabilities/mcp-tasks'; await tasks.slowReport({ topic: 'rain', steps: 40 }); return 'done';`, {
      signal: controller.signal,
      onEvent: (event) => {
        if (event.type === 'progress') controller.abort();
      },
    });
    expect((await errorOf(run)).code).toBe('ABORTED');
    await expect.poll(async () => (await cancelledTasks()).length, { timeout: 10_000 }).toBe(before.length + 1);
  });
});
