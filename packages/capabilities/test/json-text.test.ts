import { describe, expect, it } from 'vitest';
import { checkJsonParams, escapePointer, isAgentSpacesError, jsonProblem, jsonText } from '../src/index.js';

describe('jsonText', () => {
  it('keeps Map, Set, bigint, typed arrays and undefined', () => {
    const value = { m: new Map([['k', 1n]]), s: new Set([1]), t: new Uint8Array([1, 2]), u: undefined, d: new Date(0), list: [undefined] };
    expect(JSON.parse(jsonText(value))).toEqual({
      m: { $map: [['k', '1']] },
      s: { $set: [1] },
      t: [1, 2],
      u: null,
      d: '1970-01-01T00:00:00.000Z',
      list: [null],
    });
  });

  it('writes a cycle as a pointer to the object it returns to, through objects, arrays, Maps and Sets', () => {
    const root: Record<string, unknown> = { name: 'root' };
    const child: Record<string, unknown> = { up: root };
    root.child = child;
    root.list = [root, child];
    root.map = new Map<unknown, unknown>([['self', root]]);
    root.set = new Set([child]);
    child.me = child;
    const back = JSON.parse(jsonText(root));
    expect(back.child).toEqual({ up: { $circular: '' }, me: { $circular: '/child' } });
    expect(back.list).toEqual([{ $circular: '' }, { $repeat: '/child' }]);
    expect(back.map).toEqual({ $map: [['self', { $circular: '' }]] });
    expect(back.set).toEqual({ $set: [{ $repeat: '/child' }] });
  });

  it('writes a shared part once, so sharing cannot make the text grow exponentially', () => {
    let value: unknown[] = [];
    for (let i = 0; i < 64; i++) value = [value, value];
    const text = jsonText(value);
    expect(text.length).toBeLessThan(10_000);
    expect(text).toContain('"$repeat":"/0"');
  });

  it.each([
    ['\u001b[1A', '\\u001b[1A'],
    ['\u009b2J', '\\u009b2J'],
    ['\u202eevil', '\\u202eevil'],
    ['a\u2028b', 'a\\u2028b'],
    ['zero\u200bwidth', 'zero\\u200bwidth'],
    ['\ufeffbom', '\\ufeffbom'],
    ['\u007f', '\\u007f'],
  ])('writes %j as escapes, the same JSON', (text, escaped) => {
    const written = jsonText({ [text]: text });
    expect(written).toBe(`{"${escaped}":"${escaped}"}`);
    expect(JSON.parse(written)).toEqual({ [text]: text });
  });
});

describe('jsonProblem', () => {
  it.each([
    ['/id', { id: 7n }, 'a bigint'],
    ['/a/1/b', { a: [1, { b: NaN }] }, 'NaN'],
    ['/n', { n: -Infinity }, '-Infinity'],
    ['/m', { m: new Map() }, 'a Map'],
    ['/s', { s: new Set() }, 'a Set'],
    ['/a~1b', { 'a/b': new Uint8Array(1) }, 'binary data'],
  ])('finds what JSON cannot carry at %s', (path, params, what) => {
    expect(jsonProblem(params)).toEqual({ path, message: `is ${what}, which JSON cannot carry` });
  });

  it('accepts JSON data, dates and shared parts', () => {
    const shared = { x: 1 };
    expect(jsonProblem({ a: 'x', b: [1, true, null, { c: shared, d: shared }], e: new Date(0) })).toBeUndefined();
  });
});

describe('checkJsonParams', () => {
  it('throws INVALID_PARAMS naming the function and the field, with the problem as data', () => {
    let thrown: unknown;
    try {
      checkJsonParams({ filter: { 'a/b': [1, 2n] } }, 'crm.find');
    } catch (error) {
      thrown = error;
    }
    expect(isAgentSpacesError(thrown)).toBe(true);
    expect(thrown).toMatchObject({
      code: 'INVALID_PARAMS',
      message: 'Invalid params for crm.find: params/filter/a~1b/1 is a bigint, which JSON cannot carry',
      data: { errors: [{ path: '/filter/a~1b/1', message: 'is a bigint, which JSON cannot carry' }] },
    });
  });

  it('lets JSON data through', () => {
    expect(() => checkJsonParams({ a: [1, 'x', null, { b: true }] }, 'crm.find')).not.toThrow();
  });
});

describe('escapePointer', () => {
  it.each([
    ['plain', 'plain'],
    ['a/b', 'a~1b'],
    ['a~b', 'a~0b'],
    ['~1', '~01'],
    ['/~/', '~1~0~1'],
    ['', ''],
  ])('writes %j as %j', (segment, escaped) => {
    expect(escapePointer(segment)).toBe(escaped);
  });
});
