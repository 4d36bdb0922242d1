import { afterAll, describe, expect, it } from 'vitest';
import { ProcessSandbox } from '../../src/index.js';
import { MODULES, createPort } from '../helpers.js';
import { expectCode, stillServes } from './helpers.js';

// Four processes: the growth probes run side by side (each costs about a second of heap growth).
const sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 4 });
afterAll(() => sandbox.close());

const GROWTH = {
  Map: 'const m = new Map(); for (let i = 0; ; i++) m.set(i, i);',
  Set: 'const s = new Set(); for (let i = 0; ; i++) s.add(i);',
  'an object dictionary': 'const o: Record<string, number> = {}; for (let i = 0; ; i++) o["k" + i] = i;',
};

describe('a sandbox process that dies', () => {
  it('ends Map, Set and object-dictionary growth (a V8 fatal error) with SANDBOX_CRASHED, cause memory', async () => {
    const outcomes = await Promise.all(
      Object.values(GROWTH).map((code) => sandbox.run(code, { port: createPort(), limits: { memoryMb: 64, timeoutMs: 20_000 } })),
    );
    for (const outcome of outcomes) {
      // V8 aborts the process almost always; now and then isolated-vm's heap-limit callback wins the race.
      if (!outcome.ok && outcome.error.code === 'MEMORY_LIMIT') continue;
      expect(outcome).toMatchObject({ ok: false, error: { code: 'SANDBOX_CRASHED', data: { signal: 'SIGABRT', cause: 'memory' } } });
    }
    expect(outcomes.some((outcome) => !outcome.ok && outcome.error.code === 'SANDBOX_CRASHED')).toBe(true);
    await stillServes(sandbox);
  });

  it('ends array growth with MEMORY_LIMIT (isolated-vm catches it)', async () => {
    const outcome = await sandbox.run('const hog: number[][] = [];\nwhile (true) hog.push(new Array(10_000).fill(1));', {
      port: createPort(),
      limits: { memoryMb: 32 },
    });
    expectCode(outcome, 'MEMORY_LIMIT');
    await stillServes(sandbox);
  });

  it('ends string doubling and deep recursion with a catchable RangeError', async () => {
    const [doubling, recursion] = await Promise.all([
      sandbox.run('let s = "x";\nfor (;;) s = s + s;', { port: createPort() }),
      sandbox.run('function down(n: number): number { return down(n + 1) + 1; }\nreturn down(0);', { port: createPort() }),
    ]);
    expect(doubling).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR', data: { name: 'RangeError' } } });
    expect(recursion).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR', data: { name: 'RangeError' } } });
    await stillServes(sandbox);
  });

  it('ends only the runs of the process that died', async () => {
    const port = createPort();
    const slow = sandbox.run(`import { sleep } from '@capabilities/math';\nreturn await sleep({ ms: 1_500, value: 'slept' });`, { port });
    const crash = await sandbox.run(GROWTH.Map, { port: createPort(), limits: { memoryMb: 64, timeoutMs: 20_000 } });
    expectCode(crash, 'SANDBOX_CRASHED');
    expect(await slow).toMatchObject({ ok: true, value: 'slept' });
  });

  it('ends no session when a plain run crashes its process, of its owner or another', async () => {
    const [mine, theirs] = [sandbox.createSession({ owner: 'a' }), sandbox.createSession({ owner: 'b' })];
    for (const [session, kept] of [[mine, 'a'], [theirs, 'b']] as const) await session.run(`const kept = '${kept}';`, { port: createPort() });
    const crash = await sandbox.run(GROWTH.Map, { port: createPort(), owner: 'a', limits: { memoryMb: 64, timeoutMs: 20_000 } });
    expectCode(crash, 'SANDBOX_CRASHED');
    for (const [session, kept] of [[mine, 'a'], [theirs, 'b']] as const) {
      expect(await session.run('return kept;', { port: createPort() })).toMatchObject({ ok: true, value: kept });
    }
    await Promise.all([mine.close(), theirs.close()]);
  });
});
