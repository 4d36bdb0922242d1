// The host's warm sandbox processes, shared by every ProcessSandbox of the host: a sandbox's first run takes one
// started before it asked; a process passes to another sandbox only once its runs are over, with every isolate
// disposed, so nothing one sandbox's agent code left is seen by the next; the pool is bounded; a dead spare is replaced.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProcessSandbox, warmSandboxProcesses } from '../../src/index.js';
import { MODULES, createPort, proxyModule } from '../helpers.js';
import { sandboxChildren } from './helpers.js';

const opened: ProcessSandbox[] = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((sandbox) => sandbox.close()));
  // Each test starts with no process of the host's.
  warmSandboxProcesses({ spare: 0 });
  await vi.waitFor(() => expect(sandboxChildren()).toHaveLength(0), { timeout: 5_000, interval: 20 });
});

function open(modules: ReadonlyMap<string, string> = MODULES): ProcessSandbox {
  const sandbox = new ProcessSandbox({ modules, maxProcesses: 1 });
  opened.push(sandbox);
  return sandbox;
}

/** The one spare process of the host, once it is there. */
async function spare(): Promise<number> {
  warmSandboxProcesses({ spare: 1 });
  await vi.waitFor(() => expect(sandboxChildren()).toHaveLength(1), { timeout: 10_000, interval: 20 });
  return sandboxChildren()[0]!;
}

/** True when the next run of `sandbox` runs in process `pid`: killed during a spinning run, it ends the run. */
async function runsIn(sandbox: ProcessSandbox, pid: number): Promise<boolean> {
  const run = sandbox.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 5_000 } });
  await new Promise((resolve) => setTimeout(resolve, 100));
  process.kill(pid, 'SIGKILL');
  const outcome = await run;
  return !outcome.ok && outcome.error.code === 'SANDBOX_CRASHED';
}

const LEFTOVERS = {
  'a global': ['globalThis.leak = 42;', 'typeof globalThis.leak'],
  'a prototype': ['Object.prototype.leak = 42; Array.prototype.leak = 42;', 'typeof ({}).leak + typeof [].leak'],
  'a built-in replaced': ['JSON.stringify = () => "owned"; Math.max = () => 42;', 'JSON.stringify({ a: 1 }) + Math.max(1, 2)'],
  'a module export': [
    `import * as m from '@capabilities/math'; try { m.math.add = () => 42; } catch {} try { Object.defineProperty(m.math, 'leak', { value: 1 }); } catch {}`,
    `import { math } from '@capabilities/math'; return typeof math.leak + String(await math.add({ a: 1, b: 1 }));`,
  ],
  'work left running': ['void (async () => { for (;;) { globalThis.ticks = (globalThis.ticks ?? 0) + 1; await null; } })(); export default 1;', 'typeof globalThis.ticks'],
  'a pending promise chain': ['globalThis.later = new Promise(() => {}); Promise.resolve().then(() => { globalThis.leak = 1; });', 'typeof globalThis.later + typeof globalThis.leak'],
} as const;
const CLEAN: Record<keyof typeof LEFTOVERS, unknown> = {
  'a global': 'undefined',
  'a prototype': 'undefinedundefined',
  'a built-in replaced': '{"a":1}2',
  'a module export': 'undefined2',
  'work left running': 'undefined',
  'a pending promise chain': 'undefinedundefined',
};

describe("the host's warm sandbox processes", () => {
  it("give a sandbox's first run a process started before the sandbox asked", async () => {
    const pid = await spare();
    const sandbox = open();
    expect(await runsIn(sandbox, pid)).toBe(true);
    // Another spare took the claimed one's place.
    await vi.waitFor(() => expect(sandboxChildren().filter((each) => each !== pid).length).toBeGreaterThanOrEqual(1), { timeout: 10_000 });
  });

  it('replace a spare process that died', async () => {
    const pid = await spare();
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(() => expect(sandboxChildren().filter((each) => each !== pid)).toHaveLength(1), { timeout: 10_000, interval: 20 });
    const [next] = sandboxChildren();
    expect(await runsIn(open(), next!)).toBe(true);
  });

  it.each(Object.keys(LEFTOVERS) as (keyof typeof LEFTOVERS)[])('pass a process to the next sandbox without %s of the last one', async (variant) => {
    const pid = await spare();
    const [leave, observe] = LEFTOVERS[variant];
    const first = open();
    // Everything the first sandbox's run leaves behind, in its process.
    expect(await first.run(leave, { port: createPort() })).toMatchObject({ ok: true });
    await first.close();
    const second = open(new Map([...MODULES, ['@capabilities/other', proxyModule('other', 'other', ['add'])]]));
    const code = observe.startsWith('import') ? observe : `return ${observe};`;
    expect(await second.run(code, { port: createPort() })).toMatchObject({ ok: true, value: CLEAN[variant] });
    // It was the same process, unless what the first left made it unfit to pass on (then it was stopped).
    if (sandboxChildren().includes(pid)) expect(await runsIn(second, pid)).toBe(true);
    else expect(variant).toBe('work left running');
  });

  it('never give a session a process that ran another sandbox’s code', async () => {
    const pid = await spare();
    const first = open();
    expect(await first.run('return 1;', { port: createPort() })).toMatchObject({ ok: true });
    await first.close();
    const session = open().createSession();
    expect(await session.run('const kept = 1;', { port: createPort() })).toMatchObject({ ok: true });
    // The used process is still there, hosting no session: killing it costs the session nothing.
    process.kill(pid, 'SIGKILL');
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await session.run('return kept + 1;', { port: createPort() })).toMatchObject({ ok: true, value: 2 });
  });

  it('keep at most three times the spare count of processes given back, and none with spare: 0', async () => {
    await spare();
    const sandboxes = [1, 2, 3, 4, 5, 6].map(() => open());
    const code = `import { sleep } from '@capabilities/math';\nreturn await sleep({ ms: 300 });`;
    expect((await Promise.all(sandboxes.map((sandbox) => sandbox.run(code, { port: createPort() })))).map((outcome) => outcome.ok)).toEqual([
      true, true, true, true, true, true,
    ]);
    await Promise.all(opened.splice(0).map((sandbox) => sandbox.close()));
    await vi.waitFor(() => expect(sandboxChildren().length).toBeLessThanOrEqual(3), { timeout: 5_000, interval: 20 });
    warmSandboxProcesses({ spare: 0 });
    await vi.waitFor(() => expect(sandboxChildren()).toHaveLength(0), { timeout: 5_000, interval: 20 });
  });

  it.each([-1, 9, 1.5, Number.NaN])('refuse spare: %s with CONFIG_INVALID naming the field', (spare) => {
    expect(() => warmSandboxProcesses({ spare })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', data: { field: 'spare' } }));
  });
});
