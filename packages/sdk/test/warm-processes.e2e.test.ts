// The user's view of the host's warm sandbox processes: createSpace() starts a spare as it begins, a new space's first
// run goes to a process started before it (no fork on its path), and a space closed hands its process to the next
// space with nothing its agent code left in it.
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { defineTool } from '@agent-spaces/capabilities';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;
const spaces: Space[] = [];

const echo = defineTool({
  name: 'echo',
  functions: { say: { description: 'Echoes', parameters: { text: { type: 'string' } }, handler: ({ text }) => text } },
});

beforeAll(async () => {
  project = await makeProject();
}, 60_000);

afterAll(async () => {
  await Promise.all(spaces.map((space) => space.close()));
});

async function open(): Promise<Space> {
  const space = await createSpace({ rootDir: project.dir, capabilities: [echo], typecheck: false });
  spaces.push(space);
  return space;
}

/** Pids of this process's sandbox processes still running. */
function sandboxChildren(): number[] {
  const lines = execFileSync('ps', ['-o', 'pid=,stat=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' }).split('\n');
  return lines
    .map((line) => line.trim().split(/\s+/))
    .filter(([, stat, ...args]) => stat !== undefined && !stat.startsWith('Z') && args.join(' ').includes('process-child'))
    .map(([pid]) => Number(pid));
}

/** True when `space`'s next run runs in one of `pids`: killed during a spinning run, they end that run. */
async function runsIn(space: Space, pids: number[]): Promise<boolean> {
  const run = space.run('while (true) {}', { limits: { timeoutMs: 5_000 } });
  await new Promise((resolve) => setTimeout(resolve, 150));
  for (const pid of pids) process.kill(pid, 'SIGKILL');
  const outcome = await run;
  return !outcome.ok && outcome.error.code === 'SANDBOX_CRASHED';
}

describe("spaces on the host's warm sandbox processes", () => {
  it('runs a new space on a process started before it, and hands a closed space’s process on clean', async () => {
    const first = await open();
    await vi.waitFor(() => expect(sandboxChildren().length).toBeGreaterThanOrEqual(2), { timeout: 15_000, interval: 50 });
    const before = new Set(sandboxChildren());
    expect(await first.run('globalThis.leftover = 1; Object.prototype.polluted = 1; return 1;')).toMatchObject({ ok: true, result: 1 });
    await first.close();
    const second = await open();
    const seen = await second.run(
      `import { echo } from '@capabilities/echo';\nreturn [typeof globalThis.leftover, typeof ({}).polluted, await echo.say({ text: 'hi' })];`,
    );
    expect(seen).toMatchObject({ ok: true, result: ['undefined', 'undefined', 'hi'] });
    // The second space forked nothing on its way: its processes are those running before it was created.
    expect(sandboxChildren().filter((pid) => !before.has(pid))).toEqual([]);
    expect(await runsIn(second, [...before])).toBe(true);
  }, 60_000);
});
