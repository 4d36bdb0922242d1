import { afterAll, describe, expect, it } from 'vitest';
import { Sandbox, type RunOutcome, type AgentSandbox, type SandboxSessionHandle } from '../src/index.js';
import { MODULES, createPort } from './helpers.js';

const sandbox = new Sandbox({ modules: MODULES, limits: { memoryMb: 32 } });
afterAll(() => sandbox.close());

async function value(session: SandboxSessionHandle, code: string): Promise<unknown> {
  const outcome = await session.run(code, { port: createPort() });
  if (!outcome.ok) throw new Error(`run failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.value;
}

describe('sessions', () => {
  it('keep top-level declarations from one run to the next', async () => {
    const session = sandbox.createSession();
    await value(session, `const base: number = 40;\nlet counter = 1;\nfunction twice(n: number) { return n * 2; }\nclass Box { constructor(public v: number) {} }\nconst { a, b: [c] } = { a: 1, b: [2] };`);
    expect(await value(session, 'counter += 1;\nreturn [base + counter, twice(3), new Box(7).v, a, c];')).toEqual([42, 6, 7, 1, 2]);
    expect(await value(session, 'return counter;')).toBe(2);
    await session.close();
  });

  it('keep what a failed run declared before it failed', async () => {
    const session = sandbox.createSession();
    const failed = await session.run(`const kept = 'yes';\nthrow new Error('midway');\nconst never = 1;`, { port: createPort() });
    expect(failed.ok).toBe(false);
    expect(await value(session, 'return [kept, typeof never];')).toEqual(['yes', 'undefined']);
    await session.close();
  });

  it('let a later run redeclare a name', async () => {
    const session = sandbox.createSession();
    await value(session, 'const x = 1;');
    expect(await value(session, 'const x = 2;\nreturn x;')).toBe(2);
    expect(await value(session, 'return x;')).toBe(2);
    await session.close();
  });

  it('do not see each other or plain runs', async () => {
    const one = sandbox.createSession();
    const two = sandbox.createSession();
    await value(one, `const secret = 'one';\nglobalThis.shared = 'one';`);
    expect(await value(two, 'return [typeof secret, typeof (globalThis as any).shared];')).toEqual(['undefined', 'undefined']);
    const plain = await sandbox.run('return [typeof secret, typeof (globalThis as any).shared];', { port: createPort() });
    expect(plain).toMatchObject({ ok: true, value: ['undefined', 'undefined'] });
    expect(one.id).not.toBe(two.id);
    await one.close();
    await two.close();
  });

  it('run one at a time, in order', async () => {
    const session = sandbox.createSession();
    const first = session.run(`import { math } from '@capabilities/math';\nawait math.sleep({ ms: 50 });\nconst order = ['first'];`, { port: createPort() });
    const second = session.run(`order.push('second');\nreturn order;`, { port: createPort() });
    expect((await first).ok).toBe(true);
    expect(await second).toMatchObject({ ok: true, value: ['first', 'second'] });
    await session.close();
  });

  it('refuse runs once closed', async () => {
    const session = sandbox.createSession();
    await value(session, 'const a = 1;');
    await session.close();
    const outcome = await session.run('return a;', { port: createPort() });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED' } });
  });

  it('end a run going on at close with SESSION_CLOSED', async () => {
    const session = sandbox.createSession();
    const pending = session.run(`import { math } from '@capabilities/math';\nawait math.never({});`, { port: createPort() });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await session.close();
    expect(await pending).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED' } });
  });

  it('never deliver a call of an ended run into a later run', async () => {
    const session = sandbox.createSession();
    const port = createPort();
    const timedOut = await session.run(
      `import { math } from '@capabilities/math';\nglobalThis.late = 'no';\nawait math.sleep({ ms: 150 });\nglobalThis.late = 'delivered';`,
      { port, limits: { timeoutMs: 50 } },
    );
    expect(timedOut).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await value(session, 'return late;')).toBe('no');
    await new Promise((resolve) => setTimeout(resolve, 250));
    expect(await value(session, 'return late;')).toBe('no');
    await session.close();
  });

  it('keep state when a run times out waiting, and start over when the isolate had to go', async () => {
    const session = sandbox.createSession();
    await value(session, 'const kept = 1;');
    const waiting: RunOutcome = await session.run('await new Promise(() => {});', { port: createPort(), limits: { timeoutMs: 50 } });
    expect(waiting).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await value(session, 'return kept;')).toBe(1);
    const busy = await session.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 50 } });
    expect(busy).toMatchObject({ ok: false, error: { code: 'TIMEOUT' } });
    expect(await value(session, 'return typeof kept;')).toBe('undefined');
    await session.close();
  });

  it('keep their state when the host stalls right after a run (a loaded machine), not mistaking it for a busy isolate', async () => {
    const session = sandbox.createSession();
    await value(session, 'const kept = 1;');
    // The probe of the isolate answers while the host's thread is held; its answer waits behind the probe's timer.
    const until = performance.now() + 400;
    while (performance.now() < until) {
      // stalled
    }
    expect(await value(session, 'return typeof kept;')).toBe('number');
    await session.close();
  });

  it('are counted by stats() until closed, with no process (the owner is ignored in-process)', async () => {
    const own = new Sandbox({ modules: MODULES });
    const host: AgentSandbox = own;
    const session = host.createSession({ owner: 'client-1' });
    expect(await value(session, 'return 1;')).toBe(1);
    expect(own.stats()).toEqual({ processes: 0, sessions: 1 });
    await session.close();
    expect(own.stats()).toEqual({ processes: 0, sessions: 0 });
    await own.close();
  });

  it('survive the memory limit with a fresh context', async () => {
    const session = sandbox.createSession();
    const bomb = await session.run('const hog: number[][] = [];\nwhile (true) hog.push(new Array(10_000).fill(1));', { port: createPort() });
    expect(bomb).toMatchObject({ ok: false, error: { code: 'MEMORY_LIMIT' } });
    expect(await value(session, 'return 1 + 1;')).toBe(2);
    await session.close();
  });
});
