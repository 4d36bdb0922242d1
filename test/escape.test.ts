/**
 * Isolation probes: agent code trying to reach the host, other runs, or the bridge's internals. Every probe must be
 * refused: the sandbox has no way out but capability calls, and those are validated on the host.
 */
import type { CallMessage, CallOutcome, HostPort } from '@agent-spaces/capabilities';
import { Sandbox, type RunOutcome } from '@agent-spaces/runtime';
import { afterAll, describe, expect, it } from 'vitest';

const MATH = [
  `import { call } from 'agent-spaces:bridge';`,
  `export const math = Object.freeze({ add: (params) => call("math", "add", params), fail: (params) => call("math", "fail", params) });`,
  `export const add = math.add;`,
].join('\n');

const SECRET = 'agent-spaces-escape-probe-secret-7f3a';
process.env.AGENT_SPACES_PROBE_SECRET = SECRET;

function createPort(): HostPort & { calls: CallMessage[] } {
  const calls: CallMessage[] = [];
  return {
    calls,
    async call(message): Promise<CallOutcome> {
      calls.push(message);
      if (message.function === 'fail') return { ok: false, error: { code: 'HANDLER_ERROR', message: 'failed on the host' } };
      const { a, b } = message.params as { a: number; b: number };
      return { ok: true, value: a + b };
    },
  };
}

const sandbox = new Sandbox({ modules: new Map([['@capabilities/math', MATH]]) });
afterAll(() => sandbox.close());

function run(code: string, port: HostPort = createPort()): Promise<RunOutcome> {
  return sandbox.run(code, { port, limits: { timeoutMs: 5_000 } });
}

/** The run succeeded and returned `expected`: the probe found nothing. */
async function expectValue(code: string, expected: unknown): Promise<void> {
  const outcome = await run(code);
  if (!outcome.ok) throw new Error(`probe failed to run: ${outcome.error.code}: ${outcome.error.message}`);
  expect(outcome.value).toEqual(expected);
}

/** The run failed with `code` (and, for script errors, the thrown error's `name`). */
async function expectFailure(code: string, errorCode: string, name?: string): Promise<void> {
  const outcome = await run(code);
  expect(outcome.ok ? 'ok' : outcome.error.code).toBe(errorCode);
  if (name && !outcome.ok) expect(outcome.error.data?.name).toBe(name);
}

const STANDARD_GLOBALS = new Set(
  ('Object Function Array Number parseFloat parseInt Infinity NaN undefined Boolean String Symbol Date Promise RegExp Error ' +
    'AggregateError EvalError RangeError ReferenceError SyntaxError TypeError URIError globalThis JSON Math Intl ArrayBuffer ' +
    'Uint8Array Int8Array Uint16Array Int16Array Uint32Array Int32Array Float32Array Float64Array Uint8ClampedArray ' +
    'BigUint64Array BigInt64Array DataView Map BigInt Set WeakMap WeakSet Proxy Reflect FinalizationRegistry WeakRef ' +
    'decodeURI decodeURIComponent encodeURI encodeURIComponent escape unescape eval isFinite isNaN ' +
    'console CapabilityError ApprovalDeniedError').split(' '),
);

describe('no Node.js inside the sandbox', () => {
  it('has no process', () => expectValue('return typeof process;', 'undefined'));
  it('has no require, module or exports', () => expectValue('return [typeof require, typeof module, typeof exports];', ['undefined', 'undefined', 'undefined']));
  it('has no fetch or other network objects', () =>
    expectValue('return [typeof fetch, typeof XMLHttpRequest, typeof WebSocket, typeof Request];', ['undefined', 'undefined', 'undefined', 'undefined']));
  it('has no timers', () =>
    expectValue('return [typeof setTimeout, typeof setInterval, typeof setImmediate, typeof queueMicrotask];', ['undefined', 'undefined', 'undefined', 'undefined']));
  it('has no high-resolution clock', () => expectValue('return [typeof performance, typeof SharedArrayBuffer, typeof Atomics];', ['undefined', 'undefined', 'undefined']));
  it('has no WebAssembly', () => expectValue('return typeof WebAssembly;', 'undefined'));
  it('has only standard globals plus console, CapabilityError and ApprovalDeniedError', async () => {
    const outcome = await run('return Object.getOwnPropertyNames(globalThis).concat(Object.getOwnPropertySymbols(globalThis).map(String));');
    expect(outcome.ok).toBe(true);
    const unexpected = (outcome.ok ? (outcome.value as string[]) : []).filter((name) => !STANDARD_GLOBALS.has(name));
    expect(unexpected).toEqual([]);
  });
  it('shows no host environment variables or secrets anywhere it can look', () =>
    expectValue(`const seen = JSON.stringify(Object.getOwnPropertyNames(globalThis).map((k) => { try { return String((globalThis as any)[k]); } catch { return ''; } }));
      return seen.includes('${SECRET.slice(0, 20)}') || seen.includes('/work/') || seen.includes('node:');`, false));
});

describe('no way back to the host through the language', () => {
  it('has no top-level this to climb from', () => expectFailure(`return (this as any).constructor.constructor('return process')();`, 'SCRIPT_ERROR', 'TypeError'));
  it('finds no process through the Function constructor', () => expectFailure(`return Function('return process')();`, 'SCRIPT_ERROR', 'ReferenceError'));
  it('finds no process through a constructor chain', () => expectFailure(`return [].constructor.constructor('return process')();`, 'SCRIPT_ERROR', 'ReferenceError'));
  it('finds no process through globalThis.constructor', () =>
    expectFailure(`return (globalThis as any).constructor.constructor('return process')();`, 'SCRIPT_ERROR', 'ReferenceError'));
  it('finds no process through eval, direct or indirect', () =>
    expectValue(`return [eval('typeof process'), (0, eval)('typeof process'), typeof (0, eval)('this').process];`, ['undefined', 'undefined', 'undefined']));
  it('finds no host through the console functions', () => expectFailure(`return console.log.constructor('return process')();`, 'SCRIPT_ERROR', 'ReferenceError'));
  it('finds no host through capability functions', () =>
    expectFailure(`import { math } from '@capabilities/math';\nreturn (math.add as any).constructor('return process')();`, 'SCRIPT_ERROR', 'ReferenceError'));
  it('cannot import node built-ins', () => expectFailure(`import { execSync } from 'node:child_process';\nreturn execSync('id');`, 'IMPORT_NOT_FOUND'));
  it('cannot import() anything at run time', () =>
    expectValue(`return await (0, eval)('import("node:fs")').then(() => 'loaded', (e: Error) => e.message);`, 'Not supported'));
  it('gets host errors as sandbox objects with sandbox prototypes', () =>
    expectValue(`import { math } from '@capabilities/math';
      try { await math.fail({}); } catch (e: any) {
        let constructorResult: string;
        try { constructorResult = String(e.constructor.constructor('return typeof process')()); } catch { constructorResult = 'threw'; }
        return [Object.getPrototypeOf(Object.getPrototypeOf(e)) === Error.prototype, e instanceof Error, constructorResult, /\\/work\\/|node:/.test(String(e.stack))];
      }`, [true, true, 'undefined', false]));
  it('gets no host frames or functions from call sites, even inside a call', () =>
    expectValue(`import { math } from '@capabilities/math';
      const found: unknown[] = [];
      (Error as any).prepareStackTrace = (_e: unknown, sites: any[]) => sites;
      const params = { a: 1, get b() {
        for (const site of (new Error().stack as any)) {
          if (site.getFunction() !== undefined || site.getThis() !== undefined) found.push(site.getFunctionName());
          if (/^(node:|\\/)/.test(String(site.getFileName()))) found.push(site.getFileName());
        }
        return 2;
      } };
      await math.add(params);
      return found;`, []));
  it('cannot climb to prelude functions through callers', () =>
    expectValue(`const callerOf = new Function('return arguments.callee.caller');
      let seen: unknown = 'not called';
      console.log(new Proxy({}, { ownKeys() { seen = callerOf(); return []; } }));
      return seen;`, null));
  it('reads the stack of a failed call without host paths', () =>
    expectValue(`import { math } from '@capabilities/math';
      try { await math.add({ a: () => 1, b: 2 } as any); } catch (e: any) { return [e.code, /\\/work\\/|node:|isolated-vm/.test(e.stack + e.message)]; }`, ['INVALID_PARAMS', false]));
});

describe('no reach into the bridge', () => {
  it('cannot import agent-spaces:bridge', () => expectFailure(`import { call } from 'agent-spaces:bridge';\nreturn call;`, 'IMPORT_NOT_FOUND'));
  it('finds no Callback, prelude API or bridge stash on the global object', () =>
    expectValue(`return Reflect.ownKeys(globalThis).filter((k) => /agent|host|bridge|prelude|callback/i.test(String(k))).map(String);`, []));
  it('cannot replace the functions of a capability module', () =>
    expectFailure(`import { math } from '@capabilities/math';\n(math as any).add = () => 'hacked';\nreturn 1;`, 'SCRIPT_ERROR', 'TypeError'));
  it('cannot replace or patch CapabilityError', () =>
    expectValue(`const tries: string[] = [];
      try { (globalThis as any).CapabilityError = class {}; } catch { tries.push('global'); }
      try { (CapabilityError.prototype as any).toString = () => 'x'; } catch { tries.push('prototype'); }
      try { (console as any).log = () => {}; } catch { tries.push('console'); }
      return tries;`, ['global', 'prototype', 'console']));
  it('cannot forge a message kind through prototype pollution', async () => {
    const port = createPort();
    const outcome = await run(
      `import { math } from '@capabilities/math';
      Object.defineProperty(Object.prototype, 'kind', { get() { return 'log'; }, set() {}, configurable: true });
      (Object.prototype as any).level = 'error';
      console.log('still a log');
      return await math.add({ a: 2, b: 3 });`,
      port,
    );
    expect(outcome).toMatchObject({ ok: true, value: 5, logs: [{ level: 'log', message: 'still a log' }] });
    expect(port.calls).toEqual([{ kind: 'call', capability: 'math', function: 'add', params: { a: 2, b: 3 } }]);
  });
  it('cannot change what the prelude sends by patching intrinsics', async () => {
    const port = createPort();
    const outcome = await run(
      `import { math } from '@capabilities/math';
      const shown = [{ a: [1, 2] }, new Map([[1, 2]])];
      const noop = () => { throw new Error('patched intrinsic used'); };
      for (const [target, key] of [[JSON, 'stringify'], [Array.prototype, 'join'], [Array.prototype, 'push'], [Object, 'keys'],
        [Map.prototype, 'set'], [Map.prototype, 'get'], [Function.prototype, 'call'], [Function.prototype, 'apply'],
        [Function.prototype, 'bind'], [Reflect, 'apply'], [Reflect, 'ownKeys'], [Object, 'freeze'], [String.prototype, 'slice']] as const) {
        (target as any)[key] = noop;
      }
      (globalThis as any).Promise = function () { throw new Error('patched Promise used'); };
      console.log(shown[0], shown[1]);
      return await math.add({ a: 20, b: 22 });`,
      port,
    );
    expect(outcome).toMatchObject({ ok: true, value: 42, logs: [{ message: '{ a: [ 1, 2 ] } Map(1) { 1 => 2 }' }] });
    expect(port.calls).toEqual([{ kind: 'call', capability: 'math', function: 'add', params: { a: 20, b: 22 } }]);
  });
});

describe('runs are isolated from each other', () => {
  it('does not let prototype pollution reach the next run', async () => {
    await run(`(Object.prototype as any).polluted = 'yes'; Array.prototype.map = () => ['hijacked'];`);
    await expectValue(`return [({} as any).polluted, [1, 2].map((x) => x * 2)];`, [undefined, [2, 4]]);
  });
  it("does not let a run read another run's globals", async () => {
    await run(`(globalThis as any).secretOfRunOne = 'leak'; var alsoSecret = 'leak';`);
    await expectValue(`return [typeof (globalThis as any).secretOfRunOne, typeof (globalThis as any).alsoSecret];`, ['undefined', 'undefined']);
  });
  it('does not let a run replace console or CapabilityError for the next run', async () => {
    await run(`Object.defineProperty(globalThis, 'shadow', { value: 1 }); try { (globalThis as any).console = null; } catch {}`);
    const outcome = await run(`console.log('works'); return [typeof (globalThis as any).shadow, typeof CapabilityError];`);
    expect(outcome).toMatchObject({ ok: true, value: ['undefined', 'function'], logs: [{ message: 'works' }] });
  });
});
