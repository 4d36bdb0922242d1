import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, ProcessSandbox, warmSandboxProcesses, Sandbox, type AgentSandbox } from '../../src/index.js';
import { childEntry } from '../../src/process/parent/child-entry.js';
import { transpileAsync } from '../../src/script/transpile.js';
import { MODULES, createPort, proxyModule } from '../helpers.js';
import { expectCode, sandboxChildren, stillServes } from './helpers.js';

// These tests count one sandbox's own processes: the host's warm processes (tested in warm-processes.e2e.test.ts) are off.
warmSandboxProcesses({ spare: 0 });

let sandbox: ProcessSandbox | undefined;
afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

function open(options: Partial<ConstructorParameters<typeof ProcessSandbox>[0]> = {}): ProcessSandbox {
  sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 1, ...options });
  return sandbox;
}

async function onlyChild(): Promise<number> {
  await stillServes(sandbox!);
  const children = sandboxChildren();
  expect(children).toHaveLength(1);
  return children[0]!;
}

describe('runs in a sandbox process', () => {
  it('forwards calls to the port, streams console lines, and copies values like structured clone', async () => {
    const port = createPort();
    const lines: string[] = [];
    const outcome = await open().run(
      `import { echo } from '@capabilities/math';\nconsole.log('hello');\nconst back = await echo({ value: new Map([[1, new Date(0)]]) });\nreturn { back, big: 2n ** 70n, set: new Set(['a']) };`,
      { port, onLog: (entry) => lines.push(entry.message) },
    );
    expect(outcome).toMatchObject({ ok: true, value: { back: new Map([[1, new Date(0)]]), big: 2n ** 70n, set: new Set(['a']) } });
    expect(port.calls).toEqual([{ kind: 'call', capability: 'math', function: 'echo', params: { value: new Map([[1, new Date(0)]]) } }]);
    expect(lines).toEqual(['hello']);
    expect(outcome.logs.map((entry) => entry.message)).toEqual(['hello']);
    expect(outcome.stats.capabilityCalls).toBe(1);
  });

  it('reports syntax and import errors from the host’s transpiler', async () => {
    expectCode(await open().run('const = 1;', { port: createPort() }), 'SYNTAX_ERROR');
    expectCode(await sandbox!.run(`import fs from 'node:fs';\nreturn fs;`, { port: createPort() }), 'IMPORT_NOT_FOUND');
  });

  it('keeps a session’s declarations from run to run, apart from plain runs', async () => {
    const session = open({ maxProcesses: 2 }).createSession();
    expect(await session.run('const total = 40;', { port: createPort() })).toMatchObject({ ok: true });
    expect(await session.run('return total + 2;', { port: createPort() })).toMatchObject({ ok: true, value: 42 });
    expect(await sandbox!.run('return typeof total;', { port: createPort() })).toMatchObject({ ok: true, value: 'undefined' });
    await session.close();
    expectCode(await session.run('return 1;', { port: createPort() }), 'SESSION_CLOSED');
  });

  it('sees modules set after it started', async () => {
    open().setModules(new Map([...MODULES, ['@capabilities/extra', proxyModule('extra', 'extra', ['add'])]]));
    const outcome = await sandbox!.run(`import { extra } from '@capabilities/extra';\nreturn await extra.add({ a: 2, b: 2 });`, { port: createPort() });
    expect(outcome).toMatchObject({ ok: true, value: 4 });
  });

  it('gives the process none of the host’s environment', async () => {
    process.env.AGENT_SPACES_TEST_SECRET = 'hunter2';
    try {
      open();
      const pid = await onlyChild();
      expect(readFileSync(`/proc/${pid}/environ`, 'utf8')).not.toContain('AGENT_SPACES_TEST_SECRET');
    } finally {
      delete process.env.AGENT_SPACES_TEST_SECRET;
    }
  });
});

describe('supervision', () => {
  it('kills a process that does not end its run by the time limit and ends the run with TIMEOUT', async () => {
    open();
    const pid = await onlyChild();
    const run = sandbox!.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 300 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(pid, 'SIGSTOP');
    const outcome = await run;
    expect(outcome).toMatchObject({ ok: false, error: { code: 'TIMEOUT', data: { limitMs: 300 } } });
    await stillServes(sandbox!);
    expect(sandboxChildren()).not.toContain(pid);
  });

  it('ends the run of a process killed from outside with SANDBOX_CRASHED, cause crash, and replaces it', async () => {
    open();
    const pid = await onlyChild();
    const run = sandbox!.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 5_000 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(pid, 'SIGKILL');
    expect(await run).toMatchObject({ ok: false, error: { code: 'SANDBOX_CRASHED', data: { signal: 'SIGKILL', cause: 'crash' } } });
    await stillServes(sandbox!);
  });

  it('spawns processes for concurrent runs and retires the idle ones beyond the warm spare', async () => {
    await stillServes(open({ maxProcesses: 3, idleMs: 100 }));
    const code = `import { sleep } from '@capabilities/math';\nreturn await sleep({ ms: 800 });`;
    const runs = [1, 2, 3].map(() => sandbox!.run(code, { port: createPort() }));
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sandboxChildren()).toHaveLength(3);
    expect((await Promise.all(runs)).map((outcome) => outcome.ok)).toEqual([true, true, true]);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(sandboxChildren()).toHaveLength(1);
    await stillServes(sandbox!);
  });

  it('ends a session whose process dies: its run gets SANDBOX_CRASHED, later runs SESSION_CLOSED with the reason', async () => {
    // The pool's one process ran a plain run, so the session gets a new process of its own.
    open();
    const pooled = await onlyChild();
    const session = sandbox!.createSession();
    expect(await session.run('const kept = 41;', { port: createPort() })).toMatchObject({ ok: true });
    const [pid] = sandboxChildren().filter((each) => each !== pooled);
    const run = session.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 5_000 } });
    await new Promise((resolve) => setTimeout(resolve, 50));
    process.kill(pid!, 'SIGABRT');
    expect(await run).toMatchObject({ ok: false, error: { code: 'SANDBOX_CRASHED', data: { signal: 'SIGABRT', cause: 'memory' } } });
    const later = await session.run('return kept + 1;', { port: createPort() });
    expect(later).toMatchObject({ ok: false, error: { code: 'SESSION_CLOSED', data: { reason: 'SANDBOX_CRASHED', cause: 'memory' } } });
    await stillServes(sandbox!);
  });

  it('recycles a process whose RSS passed the ceiling between runs', async () => {
    open({ maxRssMb: 1 });
    const first = await onlyChild();
    const second = await onlyChild();
    expect(second).not.toBe(first);
  });

  it('a sandbox process exits when its parent dies', async () => {
    // A plain-JS parent that forks the child entry the way SupervisedChild does, starts a run that spins, and is killed.
    const limits = { ...DEFAULT_LIMITS, timeoutMs: 60_000 };
    const prepared = async (code: string): Promise<string> => JSON.stringify({ script: await transpileAsync(code), limits });
    const parentCode = [
      `const c = require('node:child_process').fork(process.argv[1], [], { serialization: 'advanced', execArgv: ['--no-node-snapshot'], stdio: ['ignore', 'ignore', 'ignore', 'ipc'] });`,
      `c.send({ kind: 'init', modules: new Map(), memoryMb: ${limits.memoryMb}, warmUp: ${await prepared('export default 0;')} });`,
      `c.once('message', () => { c.send({ kind: 'run', runId: 1, run: ${await prepared('while (true) {}')} }); console.log(c.pid); });`,
    ].join('\n');
    const parent = spawn(process.execPath, ['-e', parentCode, await childEntry()], { stdio: ['ignore', 'pipe', 'inherit'] });
    const pid = Number(await new Promise<string>((resolve) => parent.stdout.once('data', (chunk: Buffer) => resolve(chunk.toString()))));
    try {
      expect(alive(pid)).toBe(true);
      await new Promise((resolve) => setTimeout(resolve, 100));
      parent.kill('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, 500));
      expect(alive(pid)).toBe(false);
    } finally {
      parent.kill('SIGKILL');
      if (alive(pid)) process.kill(pid, 'SIGKILL');
    }
  });

  it('close() ends runs going on with SPACE_CLOSED and leaves no process behind', async () => {
    open({ maxProcesses: 3 });
    const session = sandbox!.createSession();
    expect(await session.run('const a = 1;', { port: createPort() })).toMatchObject({ ok: true });
    const running = sandbox!.run('while (true) {}', { port: createPort(), limits: { timeoutMs: 5_000 } });
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(sandboxChildren().length).toBeGreaterThanOrEqual(2);
    await sandbox!.close();
    expectCode(await running, 'SPACE_CLOSED');
    expectCode(await sandbox!.run('return 1;', { port: createPort() }), 'SPACE_CLOSED');
    expectCode(await session.run('return a;', { port: createPort() }), 'SESSION_CLOSED');
    expect(sandboxChildren()).toEqual([]);
  });
});

describe('either isolation', () => {
  it('lets the SDK pick either isolation through AgentSandbox', async () => {
    const hosts: AgentSandbox[] = [new Sandbox({ modules: MODULES }), open()];
    for (const host of hosts) await stillServes(host);
    await hosts[0]!.close();
  });
});

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').split(' ')[2]!.startsWith('Z');
  } catch {
    return false;
  }
}

describe('bad options', () => {
  it.each([
    ['maxProcesses', 0],
    ['maxRssMb', -1],
    ['idleMs', 1.5],
    ['sessionsPerProcess', 0],
    ['maxSessionProcesses', 0],
  ] as const)('refuses %s: %j with CONFIG_INVALID naming the field', (field, value) => {
    expect(() => new ProcessSandbox({ modules: MODULES, [field]: value })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', data: { field } }));
  });

  it("ends a run whose limits are bad with CONFIG_INVALID, and the next run works", async () => {
    const outcome = await open().run('return 1;', { port: createPort(), limits: { timeoutMs: -5 } });
    expectCode(outcome, 'CONFIG_INVALID');
    await stillServes(sandbox!);
  });
});
