import { afterAll, describe, expect, it } from 'vitest';
import { portSink } from '../../src/isolate/channel.js';
import { IsolateRunner, type RunRoutes } from '../../src/isolate/runner.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import { transpile } from '../../src/script/transpile.js';
import { MODULES, createPort } from '../helpers.js';

const runner = new IsolateRunner(DEFAULT_LIMITS.memoryMb, MODULES);
afterAll(() => runner.close());

function routes(): RunRoutes {
  return { calls: portSink(createPort()), signal: undefined, onLog: undefined };
}

describe('a prepared run (as a sandbox process gets it from its parent)', () => {
  it('runs the given script as is, in a plain run and in a session', async () => {
    const run = { script: transpile('return 2;'), limits: DEFAULT_LIMITS };
    expect(await runner.run(run, routes(), performance.now())).toMatchObject({ ok: true, value: 2 });
    const session = runner.createSession();
    try {
      expect(await session.run(async () => ({ run }), routes())).toMatchObject({ ok: true, value: 2 });
    } finally {
      await session.close();
    }
  });

  it('still cannot import what the modules lack: the isolate links the space’s modules only', async () => {
    const run = { script: transpile(`import { x } from '@capabilities/missing';\nreturn x;`), limits: DEFAULT_LIMITS };
    const outcome = await runner.run(run, routes(), performance.now());
    expect(outcome).toMatchObject({ ok: false, error: { code: 'IMPORT_NOT_FOUND', data: { specifier: '@capabilities/missing' } } });
  });

  it('keeps the session’s heap whatever memoryMb the run was prepared with', async () => {
    const small = new IsolateRunner(16, MODULES);
    const session = small.createSession();
    try {
      const run = { script: transpile('const hog: number[][] = [];\nwhile (true) hog.push(new Array(10_000).fill(1));'), limits: { ...DEFAULT_LIMITS, memoryMb: 512 } };
      expect(await session.run(async () => ({ run }), routes())).toMatchObject({ ok: false, error: { code: 'MEMORY_LIMIT', data: { limitMb: 16 } } });
    } finally {
      await small.close();
    }
  });
});
