// createSpace() runs agent code in sandbox processes by default: a script that kills V8 costs only its own run (and
// its session), never the host; `isolation: 'in-process'` is the opt-in for trusted code.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '@agent-spaces/capabilities';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;
let space: Space;

const echo = defineTool({
  name: 'echo',
  functions: { say: { description: 'Echoes', parameters: { text: { type: 'string' } }, handler: ({ text }) => text } },
});

beforeAll(async () => {
  project = await makeProject();
  space = await createSpace({ rootDir: project.dir, capabilities: [echo], typecheck: false, limits: { memoryMb: 32 } });
}, 60_000);

afterAll(async () => {
  await space?.close();
});

const BOMBS = {
  'Map growth': 'const m = new Map(); for (let i = 0; ; i++) m.set(i, i);',
  'Set growth': 'const s = new Set(); for (let i = 0; ; i++) s.add(i);',
  'object dictionary growth': 'const o = {}; for (let i = 0; ; i++) o["k" + i] = i;',
};

describe('the default isolation (sandbox processes)', () => {
  // V8 either aborts the sandbox process or, sometimes, reports the heap limit: either way only the run ends.
  it.each(Object.entries(BOMBS))('survives %s, and the next run works', async (_name, code) => {
    const run = await space.run(code);
    expect(run.ok).toBe(false);
    if (!run.ok) expect(['SANDBOX_CRASHED', 'MEMORY_LIMIT']).toContain(run.error.code);
    const next = await space.run(`import { echo } from '@capabilities/echo';\nreturn await echo.say({ text: 'still here' });`);
    expect(next).toMatchObject({ ok: true, result: 'still here' });
  }, 30_000);

  it('ends a session whose process died, with the reason, and leaves the space usable', async () => {
    const session = space.createSession();
    expect(await session.run('const kept = 1;')).toMatchObject({ ok: true });
    const crash = await session.run(BOMBS['Map growth']);
    expect(crash.ok).toBe(false);
    if (!crash.ok && crash.error.code === 'SANDBOX_CRASHED') {
      const after = await session.run('return kept;');
      expect(after).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED' } });
    }
    await session.close();
    expect(await space.run('return 3;')).toMatchObject({ ok: true, result: 3 });
  }, 30_000);

  it("refuses an isolation it does not know, naming the option", async () => {
    await expect(createSpace({ rootDir: project.dir, capabilities: [], isolation: 'thread' as never })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      data: { field: 'isolation' },
    });
  });
});
