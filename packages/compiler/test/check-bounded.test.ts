import { describe, expect, it } from 'vitest';
import { isAgentSpacesError } from '@agent-spaces/capabilities';
import { createBoundedTypechecker } from '../src/check/index.js';
import { TOO_DEEP_CODE } from '../src/check/nesting.js';
import { declarations } from './check-declarations.js';
import { deepNesting, hugeSource, typeBombs } from '../../../test/fixtures/type-bombs.mjs';

const TYPE_BOMBS = typeBombs(30);

/** The error a check rejected with (fails the test when it resolved). */
async function failure(check: Promise<unknown>) {
  const outcome = await check.then(
    () => undefined,
    (error: unknown) => error,
  );
  if (!isAgentSpacesError(outcome)) throw new Error(`expected an AgentSpacesError, got ${String(outcome)}`);
  return { code: outcome.code, data: outcome.data };
}

const good = `import { trainSchedule } from '@capabilities/train-schedule';\nexport default (await trainSchedule.getSchedule()).length;`;
const bad = `const n: number = 'x';\nexport default n;`;

describe('bounded typechecker', () => {
  it('checks like the in-thread typechecker, sessions included', async () => {
    const checker = createBoundedTypechecker({ declarations });
    expect(await checker.check(good)).toEqual([]);
    expect((await checker.check(bad)).map((d) => [d.code, d.line, d.column])).toEqual([[2322, 1, 7]]);
    const session = checker.createSession('a');
    expect(await session.check('const kept = 41;')).toEqual([]);
    await session.remember('const kept = 41;');
    expect(await session.check('export default kept + 1;')).toEqual([]);
    expect((await session.check('const s: string = kept;')).map((d) => d.code)).toEqual([2322]);
  });

  it('refuses a script over the size budget before checking it', async () => {
    const checker = createBoundedTypechecker({ declarations, budget: { maxSourceBytes: 10_000 } });
    for (const bytes of [10_001, 100_000, 2_000_000]) {
      expect(await failure(checker.check(hugeSource(bytes)))).toEqual({ code: 'TYPECHECK_LIMIT', data: { budget: 'size', limit: 10_000 } });
    }
    expect(await checker.check(hugeSource(9_000))).toEqual([]);
  });

  it.each(Object.keys(TYPE_BOMBS) as (keyof typeof TYPE_BOMBS)[])(
    'stops the %s type bomb at its time budget while other owners and the event loop are served',
    async (name) => {
      const checker = createBoundedTypechecker({ declarations, budget: { timeoutMs: 1_000 } });
      await Promise.all([checker.check(good, 'warm-1'), checker.check(good, 'warm-2')]);
      let ticks = 0;
      const ticker = setInterval(() => ticks++, 20);
      const bomb = failure(checker.check(TYPE_BOMBS[name], 'attacker'));
      expect(await checker.check(bad, 'victim')).toHaveLength(1);
      expect(await bomb).toEqual({ code: 'TYPECHECK_LIMIT', data: { budget: 'time', limit: 1_000 } });
      clearInterval(ticker);
      expect(ticks).toBeGreaterThan(10);
      // The pool is whole again: the next check is answered.
      expect(await checker.check(good, 'attacker')).toEqual([]);
    },
  );

  it('stops a check past its heap budget', async () => {
    const checker = createBoundedTypechecker({ declarations, budget: { memoryMb: 64, timeoutMs: 60_000 } });
    expect(await failure(checker.check(TYPE_BOMBS['huge-union'], 'attacker'))).toEqual({
      code: 'TYPECHECK_LIMIT',
      data: { budget: 'memory', limit: 64 },
    });
    expect(await checker.check(good, 'attacker')).toEqual([]);
  });

  it('queues one owner behind another fairly: a light check never waits for a queue of bombs', async () => {
    const checker = createBoundedTypechecker({ declarations, budget: { timeoutMs: 1_500 } });
    await Promise.all([checker.check(good, 'warm-1'), checker.check(good, 'warm-2')]);
    const settled: string[] = [];
    const bombs = Object.values(TYPE_BOMBS).map((bomb, i) => failure(checker.check(bomb, 'attacker')).finally(() => settled.push(`bomb ${i}`)));
    expect(await checker.check(good, 'victim')).toEqual([]);
    settled.push('victim');
    const outcomes = await Promise.all(bombs);
    expect(outcomes.map((o) => o.code)).toEqual(['TYPECHECK_LIMIT', 'TYPECHECK_LIMIT', 'TYPECHECK_LIMIT']);
    // The attacker's three bombs were queued first; the victim was answered before the second even started.
    expect(settled.indexOf('victim')).toBeLessThan(settled.indexOf('bomb 1'));
  });

  it('refuses the checks of one owner past 32 waiting, at once, and serves the others and other owners', async () => {
    const checker = createBoundedTypechecker({ declarations });
    const floods = await Promise.allSettled(Array.from({ length: 40 }, () => checker.check(good, 'flood')));
    const refused = floods.filter((f) => f.status === 'rejected').map((f) => (f as PromiseRejectedResult).reason as { code: string; data: unknown });
    // One is running (or about to) when the others arrive: 32 wait, the rest are refused.
    expect(refused.length).toBeGreaterThanOrEqual(7);
    expect(refused.length).toBeLessThanOrEqual(8);
    for (const error of refused) expect(error).toMatchObject({ code: 'TYPECHECK_LIMIT', data: { budget: 'queue', limit: 32 } });
    for (const f of floods) if (f.status === 'fulfilled') expect(f.value).toEqual([]);
    expect(await checker.check(good, 'other')).toEqual([]);
  });

  it('a bomb in a batch fails alone: the owner’s other scripts of the batch are answered', async () => {
    const checker = createBoundedTypechecker({ declarations, budget: { timeoutMs: 1_500 } });
    const checks = [checker.check(good, 'a'), checker.check(TYPE_BOMBS['huge-union'], 'a'), checker.check(bad, 'a')];
    const [first, bomb, third] = await Promise.allSettled(checks);
    expect(first).toEqual({ status: 'fulfilled', value: [] });
    expect(bomb.status === 'rejected' && bomb.reason.code).toBe('TYPECHECK_LIMIT');
    expect(third.status === 'fulfilled' && third.value.map((d) => d.code)).toEqual([2322]);
  });

  it.each(Object.entries(deepNesting(20_000)))('reports %s nested too deep as a located diagnostic', async (_, code) => {
    const checker = createBoundedTypechecker({ declarations });
    const diagnostics = await checker.check(code);
    expect(diagnostics.length).toBeGreaterThan(0);
    const deep = diagnostics.find((d) => d.code === TOO_DEEP_CODE);
    // The parser copes with some kinds at this depth and reports its own error; either way the script is located.
    if (deep) expect(deep.line).toBeGreaterThanOrEqual(2);
    else expect(diagnostics[0]!.line).toBeGreaterThanOrEqual(1);
  });
});
