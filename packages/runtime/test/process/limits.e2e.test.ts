import { afterAll, describe, expect, it } from 'vitest';
import { ProcessSandbox, type RunLimits, type RunOutcome } from '../../src/index.js';
import { MODULES, createPort } from '../helpers.js';
import { expectCode, stillServes } from './helpers.js';

const sandbox = new ProcessSandbox({ modules: MODULES });
afterAll(() => sandbox.close());

function limited(code: string, limits: Partial<RunLimits>, signal?: AbortSignal): Promise<RunOutcome> {
  return sandbox.run(code, { port: createPort(), limits, ...(signal ? { signal } : {}) });
}

describe('limits in a sandbox process', () => {
  it('ends while (true) at the top level with TIMEOUT', async () => {
    const outcome = await limited('while (true) {}', { timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', data: { limitMs: 300 } } });
    await stillServes(sandbox);
  });

  it('ends while (true) after an awaited call with TIMEOUT', async () => {
    const outcome = await limited(`import { add } from '@capabilities/math';\nawait add({ a: 1, b: 2 });\nwhile (true) {}`, { timeoutMs: 300 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', data: { limitMs: 300 } } });
    await stillServes(sandbox);
  });

  it('ends a loop that catches the MAX_CALLS error of every call', async () => {
    const outcome = await limited(`import { add } from '@capabilities/math';\nfor (;;) { try { await add({ a: 1, b: 2 }); } catch {} }`, {
      maxCapabilityCalls: 50,
      timeoutMs: 2_000,
    });
    expectCode(outcome, 'MAX_CALLS');
    expect(outcome.stats.capabilityCalls).toBe(50);
    await stillServes(sandbox);
  });

  it('ends a 50 MB console line with LOG_LIMIT, without sending it to the host', async () => {
    const lines: string[] = [];
    const outcome = await sandbox.run(`console.log('x'.repeat(50 * 1024 * 1024));`, { port: createPort(), onLog: (entry) => lines.push(entry.message) });
    expectCode(outcome, 'LOG_LIMIT');
    expect(lines).toEqual([]);
    await stillServes(sandbox);
  });

  it('ends a run at once when its signal aborts, even while it spins', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(new Error('stop')), 200);
    // Without the abort, the wall clock would end it after 5 s.
    const outcome = await limited('while (true) {}', { timeoutMs: 5_000 }, controller.signal);
    expectCode(outcome, 'ABORTED');
    await stillServes(sandbox);
  });
});

describe('leftovers', () => {
  // One process: the next run must use the very process the leftovers were queued in.
  const single = new ProcessSandbox({ modules: MODULES, maxProcesses: 1 });
  afterAll(() => single.close());

  it('a promise chain that spins after the result neither delays nor hangs the next runs', async () => {
    const code = `Promise.resolve().then(() => null).then(() => { for (;;) {} });\nreturn 1;`;
    const outcome = await single.run(code, { port: createPort(), limits: { timeoutMs: 2_000 } });
    expect(outcome).toMatchObject({ ok: true, value: 1 });
    for (let i = 0; i < 3; i++) {
      // Within its 1 s limit, so neither held up for long by the leftover nor hung by it.
      const next = await single.run('return 2;', { port: createPort(), limits: { timeoutMs: 1_000 } });
      expect(next).toMatchObject({ ok: true, value: 2 });
    }
  });

  it('a chain that spins once a call answers after the result never runs, and the next run works', async () => {
    const code = `import { add } from '@capabilities/math';\nawait add({ a: 1, b: 2 });\nadd({ a: 1, b: 2 }).then(() => { for (;;) {} });\nreturn 1;`;
    const outcome = await single.run(code, { port: createPort(), limits: { timeoutMs: 300 } });
    expect(outcome).toMatchObject({ ok: true, value: 1 });
    await stillServes(single);
  });
});

describe('fairness', () => {
  it('a second run completes while the first one spins', async () => {
    await stillServes(sandbox);
    let spinning = true;
    const first = limited('while (true) {}', { timeoutMs: 3_000 }).finally(() => (spinning = false));
    await new Promise((resolve) => setTimeout(resolve, 300));
    const second = await sandbox.run(`import { add } from '@capabilities/math';\nreturn await add({ a: 2, b: 3 });`, { port: createPort() });
    expect(second).toMatchObject({ ok: true, value: 5 });
    // Done while the first still spins (bench/isolation.mjs measures how long a second run or client waits).
    expect(spinning).toBe(true);
    expectCode(await first, 'TIMEOUT');
  });
});
