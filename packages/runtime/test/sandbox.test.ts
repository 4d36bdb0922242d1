import type { CallMessage, CallOutcome } from '@agent-spaces/capabilities';
import { afterAll, describe, expect, it } from 'vitest';
import { Sandbox, type RunOutcome } from '../src/index.js';
import { MODULES, createPort } from './helpers.js';

const sandbox = new Sandbox({ modules: MODULES });
afterAll(() => sandbox.close());

async function run(code: string): Promise<RunOutcome> {
  return sandbox.run(code, { port: createPort() });
}

async function value(code: string): Promise<unknown> {
  const outcome = await run(code);
  if (!outcome.ok) throw new Error(`run failed: ${outcome.error.code} ${outcome.error.message}`);
  return outcome.value;
}

describe('TypeScript agent code', () => {
  it('runs annotations, interfaces, generics, enums and top-level await', async () => {
    const code = `
      import { math } from '@capabilities/math';
      interface Pair<T> { left: T; right: T }
      enum Color { Red = 'red', Green = 'green' }
      function pair<T>(left: T, right: T): Pair<T> { return { left, right }; }
      const sum: number = await math.add({ a: 2, b: 3 });
      export default { pair: pair<number>(sum, 1), color: Color.Green };`;
    expect(await value(code)).toEqual({ pair: { left: 5, right: 1 }, color: 'green' });
  });

  it('returns the value of a top-level return', async () => {
    expect(await value(`const xs: number[] = [1, 2, 3];\nif (xs.length > 5) return 'long';\nreturn xs.map((x) => x * 2);`)).toEqual([2, 4, 6]);
  });

  it('returns from inside top-level loops, switches and blocks', async () => {
    expect(await value(`for (const n of [1, 2, 3]) {\n  if (n === 2) return { found: n };\n}\nreturn null;`)).toEqual({ found: 2 });
    expect(await value(`switch ('b') {\n  case 'a': return 1;\n  case 'b': return 2;\n}`)).toBe(2);
  });

  it('returns undefined when the script returns nothing', async () => {
    const outcome = await run('const a = 1;');
    expect(outcome).toMatchObject({ ok: true, value: undefined });
  });

  it('supports classes, destructuring, spread, optional chaining and for await', async () => {
    const code = `
      class Counter { #n = 0; inc(): number { return ++this.#n; } }
      const c = new Counter(); c.inc();
      const { a, ...rest } = { a: 1, b: 2, c: 3 };
      async function* gen() { yield 1; yield 2; }
      let total = 0;
      for await (const v of gen()) total += v;
      return [c.inc(), a, rest, (undefined as any)?.x ?? 'none', total];`;
    expect(await value(code)).toEqual([2, 1, { b: 2, c: 3 }, 'none', 3]);
  });
});

describe('result fidelity', () => {
  it('keeps Map, Set, Date, typed arrays and nesting', async () => {
    const result = (await value(`return {
      map: new Map<string, number[]>([['a', [1, 2]]]),
      set: new Set(['x', 'y']),
      date: new Date('2024-05-01T10:00:00Z'),
      bytes: new Uint8Array([1, 2, 3]),
      nested: { deep: { deeper: [null, undefined, 1.5, -0] } },
      big: 12345678901234567890n,
    };`)) as Record<string, unknown>;
    expect(result.map).toEqual(new Map([['a', [1, 2]]]));
    expect(result.set).toEqual(new Set(['x', 'y']));
    expect(result.date).toBeInstanceOf(Date);
    expect((result.date as Date).toISOString()).toBe('2024-05-01T10:00:00.000Z');
    expect(result.bytes).toBeInstanceOf(Uint8Array);
    expect([...(result.bytes as Uint8Array)]).toEqual([1, 2, 3]);
    expect(result.nested).toEqual({ deep: { deeper: [null, undefined, 1.5, -0] } });
    expect(result.big).toBe(12345678901234567890n);
  });

  it('returns null, undefined and primitives as they are', async () => {
    expect(await value('return null;')).toBeNull();
    expect(await value('return undefined;')).toBeUndefined();
    expect(await value('return "text";')).toBe('text');
  });

  it('refuses a result that cannot be cloned', async () => {
    const outcome = await run('return { f: () => 1 };');
    expect(outcome).toMatchObject({ ok: false, error: { code: 'RESULT_NOT_CLONEABLE' } });
  });
});

describe('console', () => {
  it('captures every level with an ISO timestamp, in order', async () => {
    const seen: string[] = [];
    const outcome = await sandbox.run(
      `console.log('a', 1); console.info('b'); console.warn('c'); console.error('d'); console.debug('e'); return 0;`,
      { port: createPort(), onLog: (entry) => seen.push(entry.level) },
    );
    expect(outcome.logs.map((l) => [l.level, l.message])).toEqual([
      ['log', 'a 1'],
      ['info', 'b'],
      ['warn', 'c'],
      ['error', 'd'],
      ['debug', 'e'],
    ]);
    expect(seen).toEqual(['log', 'info', 'warn', 'error', 'debug']);
    expect(Number.isNaN(Date.parse(outcome.logs[0]!.timestamp))).toBe(false);
  });

  it('formats values safely: cycles, Map, Set, Date, Error, getters, nesting', async () => {
    const outcome = await run(`
      const o: any = { name: 'x', list: [1, 'two'] }; o.self = o;
      console.log(o);
      console.log(new Map([['k', { v: 1 }]]), new Set([1]), new Date(0));
      console.log({ get secret() { throw new Error('getter ran'); } });
      console.log(new Error('boom').message, [undefined, null, 10n, Symbol('s')]);
      console.log(Object.create(null), new Uint8Array([7]), () => 1, class Foo {});
    `);
    expect(outcome.logs.map((l) => l.message)).toEqual([
      `{ name: "x", list: [ 1, "two" ], self: [Circular] }`,
      `Map(1) { "k" => { v: 1 } } Set(1) { 1 } 1970-01-01T00:00:00.000Z`,
      `{ secret: [Getter] }`,
      `boom [ undefined, null, 10n, Symbol(s) ]`,
      `[Object: null prototype] {} Uint8Array(1) [ 7 ] [Function: (anonymous)] [class Foo]`,
    ]);
  });

  it('prints an uncaught-style error with its stack', async () => {
    const outcome = await run(`console.error(new TypeError('bad input'));`);
    expect(outcome.logs[0]!.message.startsWith('TypeError: bad input\n    at ')).toBe(true);
  });
});

describe('capability calls', () => {
  it('sends calls to the port and returns their values', async () => {
    const port = createPort();
    const outcome = await sandbox.run(`import { add } from '@capabilities/math';\nreturn await add({ a: 40, b: 2 });`, { port });
    expect(outcome).toMatchObject({ ok: true, value: 42, stats: { capabilityCalls: 1 } });
    expect(port.calls).toEqual([{ kind: 'call', capability: 'math', function: 'add', params: { a: 40, b: 2 } }]);
  });

  it('rejects failed calls with a CapabilityError the agent can catch and branch on', async () => {
    const result = await value(`
      import { math } from '@capabilities/math';
      try { await math.fail({ message: 'nope' }); return 'no error'; }
      catch (e) {
        if (!(e instanceof CapabilityError)) return 'wrong class';
        return [e.name, e.code, e.capability, e.function, e.message, e.data, e instanceof Error];
      }`);
    expect(result).toEqual(['CapabilityError', 'HANDLER_ERROR', 'math', 'fail', 'nope', { reason: 'test' }, true]);
  });

  it('rejects denied approvals with an ApprovalDeniedError', async () => {
    const result = await value(`
      import { math } from '@capabilities/math';
      try { await math.deny({}); } catch (e) {
        return [e instanceof ApprovalDeniedError, e instanceof CapabilityError, e.name, e.code];
      }`);
    expect(result).toEqual([true, true, 'ApprovalDeniedError', 'APPROVAL_DENIED']);
  });

  it('ends with SCRIPT_ERROR keeping the code of an uncaught CapabilityError', async () => {
    const outcome = await run(`import { math } from '@capabilities/math';\nawait math.fail({ message: 'down' });`);
    expect(outcome).toMatchObject({
      ok: false,
      error: { code: 'SCRIPT_ERROR', capability: 'math', function: 'fail', data: { name: 'CapabilityError', code: 'HANDLER_ERROR', message: 'down' } },
    });
  });

  it('reports other uncaught errors with name, message and stack', async () => {
    const outcome = await run(`function deep() { throw new RangeError('out of range'); }\ndeep();`);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR', data: { name: 'RangeError', message: 'out of range' } } });
    expect(outcome.ok ? '' : String(outcome.error.data?.stack)).toContain('deep');
  });

  it('reports thrown non-errors', async () => {
    const outcome = await run(`throw 'plain string';`);
    expect(outcome).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR', data: { message: 'plain string' } } });
  });

  it('overlaps parallel calls on the host', async () => {
    let inFlight = 0;
    let most = 0;
    const port = {
      async call(message: CallMessage): Promise<CallOutcome> {
        most = Math.max(most, ++inFlight);
        await new Promise((resolve) => setTimeout(resolve, 100));
        inFlight--;
        return { ok: true, value: (message.params as { value: number }).value };
      },
    };
    const outcome = await sandbox.run(
      `import { math } from '@capabilities/math';\nreturn await Promise.all([1, 2, 3].map((value) => math.sleep({ ms: 100, value })));`,
      { port },
    );
    expect(outcome).toMatchObject({ ok: true, value: [1, 2, 3] });
    // All three were on the host at once.
    expect(most).toBe(3);
  });

  it('refuses params that cannot be cloned with INVALID_PARAMS', async () => {
    const result = await value(`
      import { math } from '@capabilities/math';
      try { await math.echo({ value: () => 1 }); } catch (e) { return e.code; }`);
    expect(result).toBe('INVALID_PARAMS');
  });

  it('rebuilds host results that cannot be copied as INVALID_RESULT', async () => {
    const port = { call: async () => ({ ok: true as const, value: { f: () => 1 } }) };
    const outcome = await sandbox.run(`import { math } from '@capabilities/math';\ntry { await math.add({}); } catch (e) { return e.code; }`, { port });
    expect(outcome).toMatchObject({ ok: true, value: 'INVALID_RESULT' });
  });

  it('turns a rejecting port into an INTERNAL call error', async () => {
    const port = { call: async () => Promise.reject(new Error('port broke')) };
    const outcome = await sandbox.run(`import { math } from '@capabilities/math';\ntry { await math.add({}); } catch (e) { return [e.code, e.message]; }`, { port });
    expect(outcome).toMatchObject({ ok: true, value: ['INTERNAL', 'The host port failed: port broke'] });
  });
});

describe("a plain run's first stretch", () => {
  it('runs inline, with its calls and console lines reaching the host once it is over', async () => {
    const port = createPort();
    const outcome = await sandbox.run(
      `import { math } from '@capabilities/math';
       console.log('one');
       const sum = math.add({ a: 1, b: 2 });
       console.log('two');
       return [await sum, await math.add({ a: 3, b: 4 })];`,
      { port },
    );
    expect(outcome).toMatchObject({ ok: true, value: [3, 7] });
    expect(port.calls.map((call) => call.params)).toEqual([{ a: 1, b: 2 }, { a: 3, b: 4 }]);
    expect(outcome.logs.map((line) => line.message)).toEqual(['one', 'two']);
  });

  it('starts over on the isolate thread when it computes long, with nothing the first try did repeated', async () => {
    const port = createPort();
    const seen: string[] = [];
    const before = Date.now();
    const outcome = await sandbox.run(
      `import { math } from '@capabilities/math';
       const started = Date.now();
       console.log('before');
       const sum = math.add({ a: 1, b: 2 });
       while (Date.now() < started + 40) {}
       console.log('after');
       return [started, await sum, await math.add({ a: 3, b: 4 })];`,
      { port, onLog: (line) => seen.push(line.message) },
    );
    expect(outcome).toMatchObject({ ok: true, value: [expect.any(Number), 3, 7] });
    // The top level that returned is the second try: the first was cut short after the inline stretch (10 ms).
    const [started] = (outcome as { value: number[] }).value;
    expect(started! - before).toBeGreaterThanOrEqual(10);
    expect(port.calls.map((call) => call.params)).toEqual([{ a: 1, b: 2 }, { a: 3, b: 4 }]);
    expect(outcome.logs.map((line) => line.message)).toEqual(['before', 'after']);
    expect(seen).toEqual(['before', 'after']);
    expect(outcome.stats.capabilityCalls).toBe(2);
  });

  it('keeps a rejection made there that the agent handles only later', async () => {
    expect(
      await value(`
        import { math } from '@capabilities/math';
        const early = Promise.reject(new Error('early'));
        await math.sleep({ ms: 20 });
        try { await early; } catch (e) { return e.message; }`),
    ).toBe('early');
  });
});

describe('Sandbox lifecycle', () => {
  it('sees new module sources after setModules', async () => {
    const own = new Sandbox({ modules: new Map([['@capabilities/v', 'export const v = 1;']]) });
    expect(await own.run(`import { v } from '@capabilities/v';\nreturn v;`, { port: createPort() })).toMatchObject({ value: 1 });
    own.setModules(new Map([['@capabilities/v', 'export const v = 2;']]));
    expect(await own.run(`import { v } from '@capabilities/v';\nreturn v;`, { port: createPort() })).toMatchObject({ value: 2 });
    await own.close();
  });

  it('refuses runs after close with SPACE_CLOSED', async () => {
    const own = new Sandbox({ modules: MODULES });
    await own.close();
    expect(await own.run('return 1;', { port: createPort() })).toMatchObject({ ok: false, error: { code: 'SPACE_CLOSED' } });
    expect(() => own.createSession()).toThrow(expect.objectContaining({ code: 'SPACE_CLOSED' }));
  });

  it('ends a run going on at close with SPACE_CLOSED', async () => {
    const own = new Sandbox({ modules: MODULES });
    const pending = own.run(`import { math } from '@capabilities/math';\nawait math.never({});`, { port: createPort() });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await own.close();
    expect(await pending).toMatchObject({ ok: false, error: { code: 'SPACE_CLOSED' } });
  });

  it('rejects modules that are not specifier-to-source maps with CONFIG_INVALID', () => {
    expect(() => new Sandbox({ modules: new Map([['@capabilities/x', 42 as unknown as string]]) })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', data: { field: 'modules.@capabilities/x' } }),
    );
    expect(() => new Sandbox({ modules: new Map([['agent-spaces:bridge', 'export const call = 1;']]) })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID' }),
    );
  });

  it('rejects bad limits with CONFIG_INVALID naming the field', async () => {
    expect(() => new Sandbox({ modules: MODULES, limits: { timeoutMs: -1 } })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', data: { field: 'limits.timeoutMs' } }),
    );
    const outcome = await sandbox.run('return 1;', { port: createPort(), limits: { memoryMb: 2 } });
    expect(outcome).toMatchObject({ ok: false, error: { code: 'CONFIG_INVALID', data: { field: 'limits.memoryMb' } } });
  });

  it('runs concurrent runs side by side, each in its own isolate', async () => {
    const outcomes = await Promise.all(
      [1, 2, 3].map((n) => sandbox.run(`import { math } from '@capabilities/math';\nreturn await math.sleep({ ms: 30, value: ${n} });`, { port: createPort() })),
    );
    expect(outcomes.map((o) => (o.ok ? o.value : o.error.code))).toEqual([1, 2, 3]);
  });
});
