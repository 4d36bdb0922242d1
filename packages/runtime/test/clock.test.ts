import type { CallOutcome, HostPort } from '@agent-spaces/capabilities';
import { afterAll, describe, expect, it } from 'vitest';
import { ProcessSandbox, Sandbox, type AgentSandbox, type RunClock, type RunOutcome } from '../src/index.js';
import { MODULES, createPort } from './helpers.js';

const inProcess = new Sandbox({ modules: MODULES });
const processes = new ProcessSandbox({ modules: MODULES });
afterAll(() => Promise.all([inProcess.close(), processes.close()]));

const RANDOMS = `return [Math.random(), Math.random(), Math.random()];`;
const DAY = Date.parse('2001-02-03T04:05:06.000Z');

async function value(sandbox: AgentSandbox, code: string, clock?: RunClock, port: HostPort = createPort()): Promise<unknown> {
  const outcome: RunOutcome = await sandbox.run(code, { port, ...(clock ? { clock } : {}) });
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

/** A port whose every outcome says it returned at `at` (as a replayed call's does). */
function portAt(at: number): HostPort {
  return { call: async (): Promise<CallOutcome> => ({ ok: true, value: 'replayed', at }) };
}

describe.each([
  ['in-process', inProcess],
  ['in a sandbox process', processes],
] as const)('the run clock and random numbers (%s)', (_name, sandbox) => {
  it('gives the same Math.random sequence for the same seed, another for another seed, and a real one without', async () => {
    const first = await value(sandbox, RANDOMS, { seed: 42, startedAt: Date.now() });
    expect(await value(sandbox, RANDOMS, { seed: 42, startedAt: Date.now() })).toEqual(first);
    for (const seed of [0, 1, 43, 0xffffffff]) expect(await value(sandbox, RANDOMS, { seed, startedAt: Date.now() })).not.toEqual(first);
    const numbers = (await value(sandbox, `return Array.from({ length: 1000 }, () => Math.random());`, { seed: 7, startedAt: 0 })) as number[];
    expect(numbers.every((n) => n >= 0 && n < 1)).toBe(true);
    expect(new Set(numbers).size).toBe(1000);
    expect(await value(sandbox, RANDOMS)).not.toEqual(await value(sandbox, RANDOMS));
  });

  it("starts Date at the run's recorded start, in every way agent code reads it, and lets time pass from there", async () => {
    const [now, constructed, called, explicit] = (await value(
      sandbox,
      `return [Date.now(), new Date().getTime(), Date(), new Date(0).toISOString()];`,
      { seed: 1, startedAt: DAY },
    )) as [number, number, string, string];
    expect(now - DAY).toBeGreaterThanOrEqual(0);
    expect(now - DAY).toBeLessThan(5_000);
    expect(constructed - DAY).toBeLessThan(5_000);
    expect(called).toContain('2001');
    expect(explicit).toBe('1970-01-01T00:00:00.000Z');
    expect(await value(sandbox, `return new Date() instanceof Date && Date.prototype.constructor === Date && typeof Date.UTC(2000, 0);`, { seed: 1, startedAt: DAY })).toBe('number');
  });

  it("moves the clock to a settled call's recorded return time", async () => {
    const later = DAY + 86_400_000;
    const [before, after] = (await value(
      sandbox,
      `import { math } from '@capabilities/math';\nconst before = Date.now();\nawait math.echo({ value: 1 });\nreturn [before, Date.now()];`,
      { seed: 1, startedAt: DAY },
      portAt(later),
    )) as [number, number];
    expect(before - DAY).toBeLessThan(5_000);
    expect(after - later).toBeGreaterThanOrEqual(0);
    expect(after - later).toBeLessThan(5_000);
  });

  it('keeps the real clock for a run without one', async () => {
    const now = (await value(sandbox, `return Date.now();`)) as number;
    expect(Math.abs(now - Date.now())).toBeLessThan(5_000);
  });

  it("goes on with a session's sequence: its first run seeds it, later runs do not start it over", async () => {
    const session = sandbox.createSession();
    const runs: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const outcome = await session.run(RANDOMS, { port: createPort(), clock: { seed: 9, startedAt: Date.now() } });
      runs.push(outcome.ok ? outcome.value : outcome.error);
    }
    await session.close();
    const again = sandbox.createSession();
    const first = await again.run(RANDOMS, { port: createPort(), clock: { seed: 9, startedAt: Date.now() } });
    await again.close();
    expect(new Set(runs.map((r) => JSON.stringify(r))).size).toBe(3);
    expect(first.ok && first.value).toEqual(runs[0]);
  });
});
