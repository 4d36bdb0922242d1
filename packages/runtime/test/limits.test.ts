import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, Sandbox, type RunLimits, type RunOutcome } from '../src/index.js';
import { resolveLimits } from '../src/limits.js';
import { MODULES, createPort } from './helpers.js';

/** Allowed lateness of the CPU limit, as the runtime promises (CPU time, which a loaded machine does not stretch). */
const SLACK_MS = 100;

const sandbox = new Sandbox({ modules: MODULES, limits: { memoryMb: 32 } });
afterAll(() => sandbox.close());

async function limited(code: string, limits: Partial<RunLimits>, signal?: AbortSignal): Promise<RunOutcome> {
  return sandbox.run(code, { port: createPort(), limits, ...(signal ? { signal } : {}) });
}

/** The next run on the same sandbox works. */
async function stillServes(): Promise<void> {
  const outcome = await sandbox.run(`import { add } from '@capabilities/math';\nreturn await add({ a: 1, b: 1 });`, { port: createPort() });
  expect(outcome).toMatchObject({ ok: true, value: 2 });
}

function expectCode(outcome: RunOutcome, code: string): void {
  expect(outcome.ok ? 'ok' : outcome.error.code).toBe(code);
}

/** The run ended with `code`, naming the limit of `limitMs` that fired (tests assert which limit fired, not when). */
function expectLimit(outcome: RunOutcome, code: 'TIMEOUT' | 'CPU_LIMIT', limitMs: number): void {
  expect(outcome.ok ? 'ok' : { code: outcome.error.code, data: outcome.error.data }).toEqual({ code, data: { limitMs } });
}

describe('wall-clock limit', () => {
  it('ends a synchronous infinite loop', async () => {
    const outcome = await limited('while (true) {}', { timeoutMs: 300 });
    expectLimit(outcome, 'TIMEOUT', 300);
    await stillServes();
  });

  it('ends a synchronous infinite loop with a limit shorter than the inline first stretch', async () => {
    const outcome = await limited('while (true) {}', { timeoutMs: 5 });
    expectLimit(outcome, 'TIMEOUT', 5);
    await stillServes();
  });

  it('ends an infinite loop inside an async continuation', async () => {
    const outcome = await limited(`import { math } from '@capabilities/math';\nawait math.sleep({ ms: 10 });\nwhile (true) {}`, { timeoutMs: 300 });
    expectLimit(outcome, 'TIMEOUT', 300);
    await stillServes();
  });

  it('ends a microtask loop', async () => {
    const outcome = await limited('for (;;) await null;', { timeoutMs: 300 });
    expectLimit(outcome, 'TIMEOUT', 300);
    await stillServes();
  });

  it('ends a promise that never settles', async () => {
    const outcome = await limited('await new Promise(() => {});', { timeoutMs: 200 });
    expectLimit(outcome, 'TIMEOUT', 200);
    await stillServes();
  });

  it('ends a host call that never answers, and aborts its signal', async () => {
    const port = createPort();
    const outcome = await sandbox.run(`import { math } from '@capabilities/math';\nawait math.sleep({ ms: 5000 });`, { port, limits: { timeoutMs: 200 } });
    expectLimit(outcome, 'TIMEOUT', 200);
    expect(port.signals[0]?.aborted).toBe(true);
    await stillServes();
  });
});

describe('CPU limit', () => {
  it('ends a run that burns more CPU time than allowed', async () => {
    const outcome = await limited('let n = 0;\nwhile (true) n++;', { cpuTimeMs: 200, timeoutMs: 10_000 });
    expectLimit(outcome, 'CPU_LIMIT', 200);
    expect(outcome.stats.cpuTimeMs).toBeGreaterThanOrEqual(200);
    expect(outcome.stats.cpuTimeMs).toBeLessThan(200 + SLACK_MS);
    await stillServes();
  });
});

describe('memory limit', () => {
  it('ends an allocation bomb with MEMORY_LIMIT', async () => {
    const outcome = await limited('const hog: number[][] = [];\nwhile (true) hog.push(new Array(10_000).fill(1));', {});
    expectCode(outcome, 'MEMORY_LIMIT');
    await stillServes();
  });

  it('reports a refused ArrayBuffer allocation as MEMORY_LIMIT', async () => {
    const outcome = await limited('const hog: ArrayBuffer[] = [];\nwhile (true) hog.push(new ArrayBuffer(4 * 1024 * 1024));', {});
    expectCode(outcome, 'MEMORY_LIMIT');
    await stillServes();
  });

  it('turns deep recursion into a catchable RangeError', async () => {
    const outcome = await limited('function down(n: number): number { return down(n + 1) + 1; }\nreturn down(0);', {});
    expect(outcome).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR', data: { name: 'RangeError' } } });
    await stillServes();
  });
});

describe('call, payload and log limits', () => {
  it('ends the run at the call past maxCapabilityCalls, even when the agent catches', async () => {
    const outcome = await limited(
      `import { math } from '@capabilities/math';\nfor (let i = 0; i < 10; i++) { try { await math.add({ a: i, b: 0 }); } catch {} }\nreturn 'finished';`,
      { maxCapabilityCalls: 5 },
    );
    expectCode(outcome, 'MAX_CALLS');
    expect(outcome.stats.capabilityCalls).toBe(5);
    await stillServes();
  });

  it.each([
    ['a call loop that catches MAX_CALLS', `import { math } from '@capabilities/math';\nfor (;;) { try { await math.add({ a: 1, b: 1 }); } catch {} }`, { maxCapabilityCalls: 5 }, 'MAX_CALLS'],
    ['a log loop that catches LOG_LIMIT', `import { math } from '@capabilities/math';\nawait math.add({ a: 1, b: 1 });\nfor (;;) { try { console.log('x'.repeat(50)); } catch {} }`, { maxLogBytes: 100 }, 'LOG_LIMIT'],
  ] as const)('stops %s at once, not at the end of its budget', async (_name, code, limits, expected) => {
    // Budgets far above what the run may take: the run must end at the limit, and its isolate must stop computing.
    const outcome = await limited(code, { ...limits, timeoutMs: 20_000, cpuTimeMs: 20_000 });
    expectCode(outcome, expected);
    expect(outcome.stats.durationMs).toBeLessThan(5_000);
    await stillServes();
  });

  it('ends the run when a call sends params over maxPayloadBytes', async () => {
    const outcome = await limited(`import { math } from '@capabilities/math';\nawait math.echo({ value: 'x'.repeat(5000) });`, { maxPayloadBytes: 1000 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE', data: { direction: 'params' } } });
    await stillServes();
  });

  it('ends the run when a call result is over maxPayloadBytes', async () => {
    const port = { call: async () => ({ ok: true as const, value: 'y'.repeat(5000) }) };
    const outcome = await sandbox.run(`import { math } from '@capabilities/math';\nreturn (await math.add({})).length;`, { port, limits: { maxPayloadBytes: 1000 } });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE', data: { direction: 'result' } } });
    await stillServes();
  });

  it("ends the run when the run's result is over maxPayloadBytes", async () => {
    const outcome = await limited(`return 'z'.repeat(5000);`, { maxPayloadBytes: 1000 });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'PAYLOAD_TOO_LARGE', data: { direction: 'result' } } });
    await stillServes();
  });

  it('ends the run past maxLogBytes, keeping the lines before it', async () => {
    const outcome = await limited(`for (let i = 0; ; i++) console.log('line ' + i + ' ' + 'x'.repeat(20));`, { maxLogBytes: 100 });
    expectCode(outcome, 'LOG_LIMIT');
    expect(outcome.logs.length).toBe(3);
    expect(outcome.logs.reduce((n, l) => n + l.message.length, 0)).toBeLessThanOrEqual(100);
    await stillServes();
  });
});

describe('abort', () => {
  it('ends the run with ABORTED and aborts the signal given to host calls', async () => {
    const controller = new AbortController();
    const port = createPort();
    const pending = sandbox.run(`import { math } from '@capabilities/math';\nawait math.sleep({ ms: 10_000 });`, { port, signal: controller.signal });
    setTimeout(() => controller.abort(new Error('user cancelled')), 100);
    const outcome = await pending;
    expect(outcome).toMatchObject({ ok: false, error: { code: 'ABORTED', message: 'The run was aborted: user cancelled' } });
    // Ended before the call it waited for would have answered.
    expect(outcome.stats.durationMs).toBeLessThan(10_000);
    expect(port.signals[0]?.aborted).toBe(true);
    await stillServes();
  });

  it('ends a busy run when aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    // Without the abort, the CPU limit would end it after 20 s.
    const outcome = await limited('while (true) {}', { cpuTimeMs: 20_000, timeoutMs: 20_000 }, controller.signal);
    expectCode(outcome, 'ABORTED');
    await stillServes();
  });

  it('does not start a run whose signal is already aborted', async () => {
    const port = createPort();
    const outcome = await sandbox.run(`import { math } from '@capabilities/math';\nreturn await math.add({ a: 1, b: 2 });`, { port, signal: AbortSignal.abort() });
    expectCode(outcome, 'ABORTED');
    expect(port.calls).toEqual([]);
  });
});

describe('agent code continuing on the host thread after a call', () => {
  it('ends a CPU-bound continuation at the CPU limit', async () => {
    const outcome = await limited(`import { math } from '@capabilities/math';\nawait math.add({ a: 1, b: 1 });\nlet n = 0;\nwhile (true) n++;`, {
      cpuTimeMs: 200,
      timeoutMs: 10_000,
    });
    expectLimit(outcome, 'CPU_LIMIT', 200);
    expect(outcome.stats.cpuTimeMs).toBeLessThan(200 + SLACK_MS);
    await stillServes();
  });

  it('ends an allocation bomb in a continuation with MEMORY_LIMIT', async () => {
    const outcome = await limited(
      `import { math } from '@capabilities/math';\nawait math.add({ a: 1, b: 1 });\nconst hog: number[][] = [];\nwhile (true) hog.push(new Array(10_000).fill(1));`,
      {},
    );
    expectCode(outcome, 'MEMORY_LIMIT');
    await stillServes();
  });

  it('ends a run that computes between calls when aborted', async () => {
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const code = `import { math } from '@capabilities/math';
      for (;;) { await math.add({ a: 1, b: 1 }); const end = Date.now() + 30; while (Date.now() < end) {} }`;
    // Without the abort, the wall clock would end it after 20 s.
    const outcome = await limited(code, { maxCapabilityCalls: 1_000_000, timeoutMs: 20_000, cpuTimeMs: 20_000 }, controller.signal);
    expectCode(outcome, 'ABORTED');
    await stillServes();
  });

  it("lets the host's timers run while a run makes many quick calls", async () => {
    let firedAt = Number.POSITIVE_INFINITY;
    setTimeout(() => (firedAt = performance.now()), 20);
    const code = `import { math } from '@capabilities/math';\nlet sum = 0;\nfor (let i = 0; i < 20_000; i++) sum = await math.add({ a: sum, b: 1 });\nreturn sum;`;
    const outcome = await limited(code, { maxCapabilityCalls: 20_000 });
    const endedAt = performance.now();
    expect(outcome).toMatchObject({ ok: true, value: 20_000 });
    expect(firedAt).toBeLessThan(endedAt);
  });

  it('keeps a rejection the agent handles only later', async () => {
    const first = await limited(
      `import { math } from '@capabilities/math';
       const failing = math.fail({ message: 'late' });
       await math.sleep({ ms: 20 });
       try { await failing; } catch (e) { return e.code; }`,
      {},
    );
    expect(first).toMatchObject({ ok: true, value: 'HANDLER_ERROR' });
    const inline = await limited(
      `import { math } from '@capabilities/math';
       await math.add({ a: 1, b: 1 });
       const slow = math.sleep({ ms: 20 });
       const failing = math.fail({ message: 'late' });
       await slow;
       try { await failing; } catch (e) { return e.code; }`,
      {},
    );
    expect(inline).toMatchObject({ ok: true, value: 'HANDLER_ERROR' });
  });
});

describe('resolveLimits', () => {
  it('layers partial limits over the defaults into a new object', () => {
    const limits = resolveLimits({ timeoutMs: 5 }, { cpuTimeMs: 6 });
    expect(limits).toEqual({ ...DEFAULT_LIMITS, timeoutMs: 5, cpuTimeMs: 6 });
    expect(limits).not.toBe(DEFAULT_LIMITS);
  });

  it('names the field of a bad or unknown limit', () => {
    expect(() => resolveLimits({ maxLogBytes: Number.NaN })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', data: { field: 'limits.maxLogBytes' } }));
    expect(() => resolveLimits({ bogus: 1 } as Partial<RunLimits>)).toThrow(expect.objectContaining({ data: { field: 'limits.bogus' } }));
  });
});
