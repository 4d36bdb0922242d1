import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ProcessSandbox, warmSandboxProcesses, type ProcessOptions, type ProcessSession, type RunLimits } from '../../src/index.js';
import { MODULES, createPort } from '../helpers.js';
import { expectCode, sandboxChildren, stillServes } from './helpers.js';

// These tests count one sandbox's own processes: the host's warm processes (tested in warm-processes.e2e.test.ts) are off.
warmSandboxProcesses({ spare: 0 });

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

/**
 * Makes the pool's one process (`maxProcesses: 1`) run a plain run, so it is never handed to sessions and no spare
 * is started: every session process after this is a new child, which {@link opened} can tell apart.
 */
async function settlePool(): Promise<number> {
  await stillServes(sandbox!);
  const children = sandboxChildren();
  expect(children).toHaveLength(1);
  return children[0]!;
}

/** Creates a session of `owner` and declares `name` in it; `pid` is the process it started, if it needed a new one. */
async function opened(owner: string | undefined, name: string, processGroup?: string): Promise<{ session: ProcessSession; pid: number | undefined }> {
  const before = new Set(sandboxChildren());
  const session = sandbox!.createSession({ ...(owner === undefined ? {} : { owner }), ...(processGroup === undefined ? {} : { processGroup }) });
  await value(session, `const name = '${name}';`);
  const started = sandboxChildren().filter((pid) => !before.has(pid));
  expect(started.length).toBeLessThanOrEqual(1);
  return { session, pid: started[0] };
}

describe('sessions packed into sandbox processes', () => {
  it('hosts many sessions in far fewer processes, each with its own declarations', async () => {
    open({ sessionsPerProcess: 16 });
    const sessions = Array.from({ length: 40 }, (_, i) => sandbox!.createSession({ owner: `client-${i % 2}` }));
    await Promise.all(sessions.map((session, i) => value(session, `const mine = ${i};`)));
    expect(await Promise.all(sessions.map((session) => value(session, 'return mine;')))).toEqual(sessions.map((_, i) => i));
    // Two session processes for each owner's 20 sessions (16 + 4) and the pool's one.
    expect(sandbox!.stats()).toEqual({ processes: 5, sessions: 40 });
    expect(sandboxChildren()).toHaveLength(5);
    await Promise.all(sessions.map((session) => session.close()));
    expect(sandbox!.stats().sessions).toBe(0);
    // The empty session processes are stopped, but one, kept warm for idleMs.
    await vi.waitFor(() => expect(sandbox!.stats().processes).toBe(2), { timeout: 5_000, interval: 50 });
  });

  it('places a session with its owner’s others, and reuses the slot a closed session freed', async () => {
    open({ sessionsPerProcess: 2 });
    await settlePool();
    const a1 = await opened('a', 'a1');
    const a2 = await opened('a', 'a2');
    const b1 = await opened('b', 'b1');
    expect([a1.pid, a2.pid, b1.pid].map((pid) => pid !== undefined)).toEqual([true, false, true]);
    await a2.session.close();
    const b2 = await opened('b', 'b2');
    const a3 = await opened('a', 'a3');
    // b's second session goes with b1, and a's into the slot a2 left: no new process.
    expect([b2.pid, a3.pid]).toEqual([undefined, undefined]);
    expect(sandbox!.stats()).toEqual({ processes: 3, sessions: 4 });
    process.kill(a1.pid!, 'SIGKILL');
    await vi.waitFor(() => expect(sandbox!.stats().sessions).toBe(2), { timeout: 5_000, interval: 20 });
    for (const { session } of [a1, a3]) {
      const later = await session.run('return name;', { port: createPort() });
      expect(later).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED', data: { reason: 'SANDBOX_CRASHED', signal: 'SIGKILL' } } });
    }
    expect(await value(b1.session, 'return name;')).toBe('b1');
    expect(await value(b2.session, 'return name;')).toBe('b2');
  });

  it('ends exactly the sessions of a process that crashes, each with SESSION_CLOSED and the reason', async () => {
    open({ sessionsPerProcess: 2 });
    await settlePool();
    const a1 = await opened('a', 'a1');
    const a2 = await opened('a', 'a2');
    const b1 = await opened('b', 'b1');
    const spinning = a1.session.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 5_000 } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    process.kill(a1.pid!, 'SIGABRT');
    expect(await spinning).toMatchObject({ ok: false, error: { code: 'SANDBOX_CRASHED', data: { signal: 'SIGABRT', cause: 'memory' } } });
    for (const { session } of [a1, a2]) {
      const later = await session.run('return name;', { port: createPort() });
      expect(later).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED', data: { reason: 'SANDBOX_CRASHED', cause: 'memory' } } });
    }
    expect(await value(b1.session, 'return name;')).toBe('b1');
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

describe('one owner per session process', () => {
  it('never hosts sessions of two owners in one process, even with room; runs without an owner are one owner', async () => {
    open({ sessionsPerProcess: 32 });
    await settlePool();
    const placed = [await opened('a', 'a1'), await opened('b', 'b1'), await opened(undefined, 'n1'), await opened('a', 'a2'), await opened(undefined, 'n2')];
    expect(placed.map(({ pid }) => pid !== undefined)).toEqual([true, true, true, false, false]);
    const [a1, b1, n1, a2, n2] = placed;
    // Each crash ends its owner's sessions only.
    for (const [victim, lost, kept] of [
      [a1!, [a1!, a2!], [b1!, n1!, n2!]],
      [n1!, [n1!, n2!], [b1!]],
    ] as const) {
      process.kill(victim.pid!, 'SIGKILL');
      for (const { session } of lost) await vi.waitFor(async () => expectCode(await session.run('return 1;', { port: createPort() }), 'SESSION_CLOSED'));
      for (const { session } of kept) expect(await value(session, 'return name;')).toMatch(/^[bn]\d$/);
    }
    expect(sandbox!.stats().sessions).toBe(1);
  });

  it('packs the sessions of a processGroup\'s owners together and no other\'s; a crash ends the group\'s sessions only', async () => {
    open({ sessionsPerProcess: 32 });
    await settlePool();
    const placed = [await opened('alice-1', 'a1', 'alice'), await opened('alice-2', 'a2', 'alice'), await opened('bob-1', 'b1', 'bob'), await opened('alice', 'x1')];
    // alice-2 joins alice-1's process; bob's group and the owner named like alice's group get processes of their own.
    expect(placed.map(({ pid }) => pid !== undefined)).toEqual([true, false, true, true]);
    process.kill(placed[0]!.pid!, 'SIGKILL');
    for (const { session } of placed.slice(0, 2)) await vi.waitFor(async () => expectCode(await session.run('return 1;', { port: createPort() }), 'SESSION_CLOSED'));
    expect(await value(placed[2]!.session, 'return name;')).toBe('b1');
    expect(await value(placed[3]!.session, 'return name;')).toBe('x1');
    for (const processGroup of [1, {}, null, true]) {
      expect(() => sandbox!.createSession({ owner: 'a', processGroup: processGroup as never })).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID', data: { field: 'processGroup' } }),
      );
      // A group does not excuse a bad owner.
      expect(() => sandbox!.createSession({ owner: processGroup as never, processGroup: 'alice' })).toThrow(
        expect.objectContaining({ code: 'CONFIG_INVALID', data: { field: 'owner' } }),
      );
    }
  });

  it('never hands a session a process that ran a plain run: that process crashing ends no session', async () => {
    open({ sessionsPerProcess: 32 });
    const pooled = await settlePool();
    const session = await opened('a', 'kept');
    expect(session.pid).not.toBe(pooled);
    process.kill(pooled, 'SIGKILL');
    // Reaped, not only dead: the host has seen it go.
    await vi.waitFor(() => expect(existsSync(`/proc/${pooled}`)).toBe(false));
    expect(await value(session.session, 'return name;')).toBe('kept');
    await stillServes(sandbox!);
  });

  it('refuses a session past its owner’s share with TOO_MANY_SESSIONS, and other owners still get theirs', async () => {
    open({ sessionsPerProcess: 1, maxSessionProcesses: 4 });
    await settlePool();
    const mine = [await opened('a', 'a1'), await opened('a', 'a2')];
    expect(() => sandbox!.createSession({ owner: 'a' })).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_SESSIONS', data: { scope: 'process-share', limit: 2 } }),
    );
    expect((await opened('b', 'b1')).pid).toBeDefined();
    // a's closed session frees its process for a's next session, not for anyone else's.
    await mine[1]!.session.close();
    expect((await opened('a', 'a3')).pid).toBeUndefined();
    expect(await value(mine[0]!.session, 'return name;')).toBe('a1');
    expect(sandbox!.stats()).toEqual({ processes: 4, sessions: 3 });
  });

  it('refuses a new owner with TOO_MANY_SESSIONS when every process hosts others’ sessions, and stops an empty one for it', async () => {
    open({ sessionsPerProcess: 1, maxSessionProcesses: 3 });
    await settlePool();
    const [a, b, c] = [await opened('a', 'a1'), await opened('b', 'b1'), await opened('c', 'c1')];
    expect(() => sandbox!.createSession({ owner: 'd' })).toThrow(
      expect.objectContaining({ code: 'TOO_MANY_SESSIONS', data: { scope: 'processes', limit: 3 } }),
    );
    await b.session.close();
    // b's process is empty, kept warm for b: d gets a new process in its place, never b's.
    const d = await opened('d', 'd1');
    expect(d.pid).toBeDefined();
    await vi.waitFor(() => expect(sandboxChildren()).not.toContain(b.pid));
    expect(await Promise.all([a, c, d].map(({ session }) => value(session, 'return name;')))).toEqual(['a1', 'c1', 'd1']);
    expect(sandbox!.stats()).toEqual({ processes: 4, sessions: 3 });
  });
});
