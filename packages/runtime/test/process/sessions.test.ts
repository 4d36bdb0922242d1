import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProcessSandbox, type ProcessOptions, type ProcessSession, type RunLimits } from '../../src/index.js';
import { MODULES, createPort } from '../helpers.js';
import { expectCode, sandboxChildren, stillServes } from './helpers.js';

let sandbox: ProcessSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function open(options: ProcessOptions & { limits?: Partial<RunLimits> } = {}): ProcessSandbox {
  sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 1, ...options });
  return sandbox;
}

async function value(session: ProcessSession, code: string): Promise<unknown> {
  const outcome = await session.run(code, { port: createPort() });
  if (!outcome.ok) throw new Error(`run failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.value;
}

/** The pid of the one sandbox process, once it is idle (a new session process takes the pool's idle spare). */
async function idleSpare(): Promise<number> {
  await stillServes(sandbox!);
  await new Promise((resolve) => setTimeout(resolve, 100));
  const children = sandboxChildren();
  expect(children).toHaveLength(1);
  return children[0]!;
}

describe('sessions packed into sandbox processes', () => {
  it('hosts many sessions in far fewer processes, each with its own declarations', async () => {
    open({ sessionsPerProcess: 16 });
    const sessions = Array.from({ length: 40 }, (_, i) => sandbox!.createSession({ owner: `client-${i % 4}` }));
    await Promise.all(sessions.map((session, i) => value(session, `const mine = ${i};`)));
    expect(await Promise.all(sessions.map((session) => value(session, 'return mine;')))).toEqual(sessions.map((_, i) => i));
    // Three session processes (16 + 16 + 8) and the pool's one.
    expect(sandbox!.stats()).toEqual({ processes: 4, sessions: 40 });
    expect(sandboxChildren()).toHaveLength(4);
    await Promise.all(sessions.map((session) => session.close()));
    expect(sandbox!.stats().sessions).toBe(0);
    // The empty session processes are stopped, but one, kept warm for idleMs.
    await vi.waitFor(() => expect(sandbox!.stats().processes).toBe(2), { timeout: 5_000, interval: 50 });
  });

  it('places a session with its owner’s others, and reuses the slot a closed session freed', async () => {
    open({ sessionsPerProcess: 2 });
    // a's sessions go to the idle spare, b's to a new process.
    const pid = await idleSpare();
    const a1 = sandbox!.createSession({ owner: 'a' });
    const a2 = sandbox!.createSession({ owner: 'a' });
    const b1 = sandbox!.createSession({ owner: 'b' });
    for (const [session, name] of [[a1, 'a1'], [a2, 'a2'], [b1, 'b1']] as const) await value(session, `const name = '${name}';`);
    const { processes } = sandbox!.stats();
    await a2.close();
    // Both processes have room for one: b's new session goes with b1, and a's into the slot a2 left.
    const b2 = sandbox!.createSession({ owner: 'b' });
    const a3 = sandbox!.createSession({ owner: 'a' });
    expect(await value(b2, 'return typeof name;')).toBe('undefined');
    expect(await value(a3, 'const name = "a3";\nreturn name;')).toBe('a3');
    expect(sandbox!.stats()).toEqual({ processes, sessions: 4 });
    // Killing a's process ends a's sessions and no other.
    process.kill(pid, 'SIGKILL');
    await vi.waitFor(() => expect(sandbox!.stats().sessions).toBe(2), { timeout: 5_000, interval: 20 });
    for (const session of [a1, a3]) {
      const later = await session.run('return name;', { port: createPort() });
      expect(later).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED', data: { reason: 'SANDBOX_CRASHED', signal: 'SIGKILL' } } });
    }
    expect(await value(b1, 'return name;')).toBe('b1');
    expect(await value(b2, 'return typeof name;')).toBe('undefined');
  });

  it('ends exactly the sessions of a process that crashes, each with SESSION_CLOSED and the reason', async () => {
    open({ sessionsPerProcess: 2 });
    const pid = await idleSpare();
    // The first session process is the idle spare; the second is a new process.
    const a1 = sandbox!.createSession({ owner: 'a' });
    const a2 = sandbox!.createSession({ owner: 'a' });
    const b1 = sandbox!.createSession({ owner: 'b' });
    for (const [session, name] of [[a1, 'a1'], [a2, 'a2'], [b1, 'b1']] as const) await value(session, `const name = '${name}';`);
    const spinning = a1.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 5_000 } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(pid, 'SIGABRT');
    expect(await spinning).toMatchObject({ ok: false, error: { code: 'SANDBOX_CRASHED', data: { signal: 'SIGABRT', cause: 'memory' } } });
    for (const session of [a1, a2]) {
      const later = await session.run('return name;', { port: createPort() });
      expect(later).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED', data: { reason: 'SANDBOX_CRASHED', cause: 'memory' } } });
    }
    expect(await value(b1, 'return name;')).toBe('b1');
    expect(sandbox!.stats().sessions).toBe(1);
    // A new session of a's gets a process of its own again.
    expect(await value(sandbox!.createSession({ owner: 'a' }), 'return 1 + 1;')).toBe(2);
  });

  it('survives heap growth in one session (a V8 fatal error ends its process only)', async () => {
    open({ sessionsPerProcess: 1, limits: { memoryMb: 64 } });
    const hostile = sandbox!.createSession({ owner: 'a' });
    const other = sandbox!.createSession({ owner: 'b' });
    await value(other, 'const kept = 7;');
    const bomb = await hostile.run('const m = new Map(); for (let i = 0; ; i++) m.set(i, i);', { port: createPort(), limits: { timeoutMs: 20_000 } });
    expect(bomb.ok).toBe(false);
    // V8 aborts the process almost always; now and then isolated-vm's heap-limit callback wins the race.
    if (!bomb.ok && bomb.error.code === 'SANDBOX_CRASHED') {
      expect(await hostile.run('return 1;', { port: createPort() })).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED', data: { reason: 'SANDBOX_CRASHED' } } });
    } else {
      expectCode(bomb, 'MEMORY_LIMIT');
    }
    expect(await value(other, 'return kept;')).toBe(7);
  });

  it('runs sessions of one process side by side: a spinning session holds no other', async () => {
    open({ sessionsPerProcess: 2 });
    const busy = sandbox!.createSession();
    const calm = sandbox!.createSession();
    await value(busy, 'const lost = 1;');
    await value(calm, 'let count = 0;');
    expect(sandbox!.stats().processes).toBe(2);
    let spinning = true;
    const spin = busy.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 3_000 } }).finally(() => (spinning = false));
    await new Promise((resolve) => setTimeout(resolve, 200));
    for (let i = 0; i < 5; i++) await value(calm, `count += 1;`);
    expect(await value(calm, 'return count;')).toBe(5);
    expect(spinning).toBe(true);
    expectCode(await spin, 'TIMEOUT');
    // The spinning isolate was disposed in the child; its session starts over, and the process and its other session go on.
    expect(await value(busy, 'return typeof lost;')).toBe('undefined');
    expect(await value(calm, 'return count;')).toBe(5);
  });

  it('ends the run going on at close with SESSION_CLOSED and leaves the process to the others', async () => {
    open({ sessionsPerProcess: 2 });
    const closing = sandbox!.createSession();
    const staying = sandbox!.createSession();
    await value(staying, 'const kept = 3;');
    const hanging = closing.run(`import { never } from '@capabilities/math';\nawait never({});`, { port: createPort() });
    await new Promise((resolve) => setTimeout(resolve, 100));
    await closing.close();
    expectCode(await hanging, 'SESSION_CLOSED');
    expectCode(await closing.run('return 1;', { port: createPort() }), 'SESSION_CLOSED');
    expect(await value(staying, 'return kept;')).toBe(3);
    expect(sandbox!.stats().sessions).toBe(1);
  });

  it('refuses an owner that is not a string with CONFIG_INVALID naming the field', () => {
    open();
    for (const owner of [1, {}, null, true]) {
      expect(() => sandbox!.createSession({ owner: owner as never })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', data: { field: 'owner' } }));
    }
    expect(sandbox!.stats().sessions).toBe(0);
  });
});
