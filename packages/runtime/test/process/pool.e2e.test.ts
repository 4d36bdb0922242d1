import { afterEach, describe, expect, it } from 'vitest';
import { ProcessSandbox, type RunOutcome } from '../../src/index.js';
import { MODULES, createPort } from '../helpers.js';
import { expectCode, stillServes } from './helpers.js';

let sandbox: ProcessSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

const HANG = `import { never } from '@capabilities/math';\nawait never({});`;
const QUICK = `import { add } from '@capabilities/math';\nreturn await add({ a: 2, b: 3 });`;

/** Runs `code` for `owner` and records `name` in `ended` when the run is over. */
function runAs(owner: string | undefined, code: string, name: string, ended: string[], timeoutMs = 30_000): Promise<RunOutcome> {
  return sandbox!.run(code, { port: createPort(), limits: { timeoutMs }, ...(owner === undefined ? {} : { owner }) }).finally(() => ended.push(name));
}

describe('plain runs shared between owners', () => {
  it('an owner whose runs hang cannot take the whole pool: another owner’s run completes meanwhile', async () => {
    sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 4 });
    await stillServes(sandbox);
    const ended: string[] = [];
    const hung = [1, 2, 3, 4, 5].map((i) => runAs('a', HANG, `a${i}`, ended, 3_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await runAs('b', QUICK, 'b', ended)).toMatchObject({ ok: true, value: 5 });
    expect(ended).toEqual(['b']);
    for (const outcome of await Promise.all(hung)) expectCode(outcome, 'TIMEOUT');
  });

  it('runs without an owner count as one owner', async () => {
    sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 2 });
    await stillServes(sandbox);
    const ended: string[] = [];
    const hung = [1, 2].map((i) => runAs(undefined, HANG, `anonymous${i}`, ended, 3_000));
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await runAs('b', QUICK, 'b', ended)).toMatchObject({ ok: true, value: 5 });
    expect(ended).toEqual(['b']);
    for (const outcome of await Promise.all(hung)) expectCode(outcome, 'TIMEOUT');
  });

  it('gives a free process to the waiting owner that holds the fewest, not the one waiting longest', async () => {
    sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 3 });
    await stillServes(sandbox);
    const ended: string[] = [];
    // a holds its share (2 of 3) with hung runs; b holds the third with a run that sleeps, then both queue one more.
    const a1 = runAs('a', HANG, 'a1', ended, 3_000);
    const a2 = runAs('a', HANG, 'a2', ended, 3_000);
    const b1 = runAs('b', `import { sleep } from '@capabilities/math';\nreturn await sleep({ ms: 500 });`, 'b1', ended);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const a3 = runAs('a', QUICK, 'a3', ended);
    const b2 = runAs('b', QUICK, 'b2', ended);
    const outcomes = await Promise.all([a1, a2, b1, a3, b2]);
    expect(outcomes.map((outcome) => (outcome.ok ? 'ok' : outcome.error.code))).toEqual(['TIMEOUT', 'TIMEOUT', 'ok', 'ok', 'ok']);
    expect(ended.slice(0, 2)).toEqual(['b1', 'b2']);
    // a3 waited for a process of a's own hung runs (whichever timed out first; the other may end after a3).
    expect(ended.indexOf('a3')).toBeGreaterThan(Math.min(ended.indexOf('a1'), ended.indexOf('a2')));
  });

  it('lets one owner alone use all but one process, and keeps that one for another owner', async () => {
    sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 3 });
    await stillServes(sandbox);
    const ended: string[] = [];
    const sleep = `import { sleep } from '@capabilities/math';\nreturn await sleep({ ms: 600 });`;
    const a = [runAs('a', sleep, 'a1', ended), runAs('a', sleep, 'a2', ended)];
    await new Promise((resolve) => setTimeout(resolve, 100));
    a.push(runAs('a', QUICK, 'a3', ended));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await runAs('b', QUICK, 'b', ended)).toMatchObject({ ok: true });
    expect((await Promise.all(a)).map((outcome) => outcome.ok)).toEqual([true, true, true]);
    // a's quick run waited for one of its sleeping runs to end (the third process was kept back); b's did not wait.
    expect(ended[0]).toBe('b');
    expect(ended.indexOf('a3')).toBeGreaterThan(Math.min(ended.indexOf('a1'), ended.indexOf('a2')));
  });

  it('refuses an owner that is not a string with CONFIG_INVALID naming the field', async () => {
    sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 1 });
    for (const owner of [1, {}, null, ['a']]) {
      const outcome = await sandbox.run('return 1;', { port: createPort(), owner: owner as never });
      expect(outcome).toMatchObject({ ok: false, error: { code: 'CONFIG_INVALID', data: { field: 'owner' } } });
    }
    await stillServes(sandbox);
  });
});
