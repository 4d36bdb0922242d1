import { describe, expect, it } from 'vitest';
import type { ObjectSchema } from '@agent-spaces/capabilities';
import { compileParamsCheck, compileSchema, loadValidators, loadValidatorsCompiler, paramsCheck, snapshotParams } from '../src/validate.js';

const refused = (raw: unknown) => {
  const snapshot = snapshotParams(raw);
  if (snapshot.ok) throw new Error(`expected a refusal, got ${JSON.stringify(snapshot.value)}`);
  return snapshot.issue;
};
const copied = (raw: unknown) => {
  const snapshot = snapshotParams(raw);
  if (!snapshot.ok) throw new Error(`expected a copy, got ${JSON.stringify(snapshot.issue)}`);
  return snapshot.value as Record<string, unknown>;
};

describe('snapshotParams', () => {
  it('copies plain objects and arrays deeply, so later changes to the original do not reach the copy', () => {
    const raw = { a: 1, list: [{ b: 'x' }, null], nested: { deep: { c: true } }, none: Object.assign(Object.create(null) as object, { k: 2 }) };
    const copy = copied(raw);
    expect(copy).toEqual(raw);
    raw.list[0]!.b = 'changed';
    raw.nested.deep.c = false;
    expect(copy).toEqual({ a: 1, list: [{ b: 'x' }, null], nested: { deep: { c: true } }, none: { k: 2 } });
    expect(copy.list).not.toBe(raw.list);
  });

  it('runs a getter once and keeps the value it returned', () => {
    let reads = 0;
    const copy = copied({
      get path() {
        return reads++ === 0 ? '/tmp/x' : '/etc/passwd';
      },
    });
    expect(copy).toEqual({ path: '/tmp/x' });
    expect(reads).toBe(1);
  });

  it('keeps Dates, Maps and typed arrays as structured clones, and turns a nested class instance into checked plain data', () => {
    class Point {
      constructor(
        readonly x: number,
        readonly y: number,
      ) {}
    }
    const when = new Date(0);
    const copy = copied({ when, map: new Map([['k', 1]]), bytes: new Uint8Array([1, 2]), point: new Point(1, 2) });
    expect(copy.when).toEqual(when);
    expect(copy.when).not.toBe(when);
    expect(copy.map).toEqual(new Map([['k', 1]]));
    expect(copy.bytes).toEqual(new Uint8Array([1, 2]));
    expect(Object.getPrototypeOf(copy.point)).toBe(Object.prototype);
    expect(copy.point).toEqual({ x: 1, y: 2 });
  });

  it('keeps a member shared by two parents shared, so a wide DAG costs its size and not its paths', () => {
    let level: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 60; i++) level = { left: level, right: level };
    const copy = copied(level);
    expect(copy.left).toBe(copy.right);
  });

  it.each([
    ['a nested Proxy', { a: { b: new Proxy({}, {}) } }, '/a/b', 'must be plain data, not a Proxy'],
    ['a function', { list: [1, () => 2] }, '/list/1', 'must be plain data, not a function'],
    ['a symbol', { s: Symbol('x') }, '/s', 'must be plain data, not a symbol'],
    ['a __proto__ key in a nested class instance', { p: Object.defineProperty(new (class Box {})(), '__proto__', { value: 1, enumerable: true }) }, '/p/__proto__', 'the key "__proto__" is not allowed'],
    ['an uncloneable host object', { e: new WeakMap() }, '/e', 'must be plain data (DataCloneError)'],
    ['a key with / and ~ in the path', { 'a/b~c': { f: () => 1 } }, '/a~1b~0c/f', 'must be plain data, not a function'],
  ])('refuses %s, naming its path', (_, raw, path, message) => {
    expect(refused(raw)).toEqual({ path, message });
  });

  it('refuses a cycle and nesting deeper than 100 levels', () => {
    const cyclic: Record<string, unknown> = { a: {} };
    (cyclic.a as Record<string, unknown>).back = cyclic;
    expect(refused(cyclic)).toEqual({ path: '/a/back', message: 'must not contain itself' });
    let deep: unknown = 1;
    for (let i = 0; i < 102; i++) deep = [deep];
    expect(refused({ deep }).message).toBe('nests deeper than 100 levels');
  });
});

describe('compileParamsCheck', () => {
  it('compiles a schema once for every bridge of the process: equal schema text gives the same validator', async () => {
    const schema = () => ({ type: 'object' as const, properties: { n: { type: 'integer' as const } }, required: ['n'] });
    expect(await compileSchema(schema())).toBe(await compileSchema(schema()));
    const check = await compileParamsCheck(schema());
    expect(check({ n: 1 })).toBeUndefined();
    expect(check({})).toEqual([{ path: '/n', message: "must have required property 'n'" }]);
  });

  it('compiles two schemas with the same $id side by side (none stays registered)', async () => {
    const first = await compileParamsCheck({ $id: 'https://example.com/params', type: 'object', properties: { a: { type: 'string' } } });
    const second = await compileParamsCheck({ $id: 'https://example.com/params', type: 'object', properties: { a: { type: 'number' } } });
    expect(first({ a: 'x' })).toBeUndefined();
    expect(second({ a: 'x' })?.[0]?.path).toBe('/a');
  });
});

describe('validators compiled at build time', () => {
  const functions: { name: string; parameters: ObjectSchema }[] = [
    {
      name: 'getSchedule',
      parameters: {
        type: 'object',
        properties: { station: { type: 'string', maxLength: 5 }, date: { type: 'string', format: 'date' }, unit: { type: 'string', enum: ['km', 'mi'] } },
        required: ['station'],
        additionalProperties: false,
      },
    },
    {
      name: 'tuple',
      parameters: {
        $schema: 'https://json-schema.org/draft/2020-12/schema',
        type: 'object',
        properties: { pair: { type: 'array', prefixItems: [{ type: 'string' }, { type: 'number' }], items: false } },
      } as ObjectSchema,
    },
    { name: 'broken', parameters: { type: 'object', properties: { p: { type: 'string', pattern: '(' } } } },
  ];
  const inputs: unknown[] = [
    { station: 'Cent' },
    { station: 'Central' },
    { station: 'C', date: '2026-11-25', unit: 'km' },
    { station: 'C', date: 'tomorrow', unit: 'yd', extra: 1 },
    {},
    { pair: ['a', 1] },
    { pair: ['a', 1, 2] },
    { pair: [1, 'a'] },
  ];

  it('give the same answers and issues as the schemas compiled at run time, and leave out a schema ajv refuses', async () => {
    const validators = loadValidators((await loadValidatorsCompiler())(functions));
    expect([...validators.keys()].sort()).toEqual(['getSchedule', 'tuple']);
    for (const fn of functions.slice(0, 2)) {
      const built = paramsCheck(validators.get(fn.name)!);
      const compiled = await compileParamsCheck(fn.parameters);
      for (const input of inputs) expect(built(input)).toEqual(compiled(input));
    }
    expect(paramsCheck(validators.get('getSchedule')!)({ station: 'C', date: 'tomorrow' })).toEqual([{ path: '/date', message: 'must match format "date"' }]);
    await expect(compileSchema(functions[2]!.parameters)).rejects.toThrow();
  });

  it('is an empty module when no schema compiles, and a file that exports no functions gives no validators', async () => {
    expect((await loadValidatorsCompiler())([functions[2]!])).toBe('');
    expect(loadValidators('exports.x = 1;').size).toBe(0);
  });
});
