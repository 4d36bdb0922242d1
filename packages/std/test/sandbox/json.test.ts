import { describe, expect, it } from 'vitest';
import { json } from '../../src/sandbox/json.js';
import { thrown } from '../helpers.js';

describe('json.parse', () => {
  it('parses JSON like JSON.parse, with a reviver', () => {
    expect(json.parse('{"a":[1,2,{"b":null}],"c":"x"}')).toEqual({ a: [1, 2, { b: null }], c: 'x' });
    expect(json.parse<number[]>('[1,2]', (_k, v) => (typeof v === 'number' ? v * 10 : v))).toEqual([10, 20]);
  });

  it.each([
    ['{"a": 1,}', 1, 9, "trailing comma before '}'"],
    ['[1, 2,]', 1, 7, "trailing comma before ']'"],
    ['{\n  "a": 1\n  "b": 2\n}', 3, 3, "expected ',' or '}' after a property value"],
    ["{'a': 1}", 1, 2, 'expected a property name in double quotes'],
    ['{"a": \'x\'}', 1, 7, 'strings need double quotes'],
    ['{"a": tru}', 1, 7, 'unexpected character "t"'],
    ['"abc', 1, 5, 'unterminated string'],
    ['{"a": "x\\q"}', 1, 9, 'invalid escape \\q'],
    ['[1] 2', 1, 5, 'unexpected text after the JSON value'],
    ['', 1, 1, 'unexpected end of input, expected a value'],
    ['{"a" 1}', 1, 6, "expected ':' after the property name"],
  ])('reports %j at line %i, column %i: %s', (text, line, column, problem) => {
    const error = thrown(() => json.parse(text));
    expect(error.code).toBe('INVALID_JSON');
    expect(error.data).toMatchObject({ line, column });
    expect(error.message).toContain(`line ${line}, column ${column}: ${problem}`);
  });

  it('shows the offending line with a caret under the column', () => {
    const error = thrown(() => json.parse('{\n  "name": "x",\n  "age": ,\n}'));
    expect(error.message.split('\n').slice(1)).toEqual(['    "age": ,', '           ^']);
  });

  it('refuses input that is not a string', () => {
    expect(thrown(() => json.parse(42 as unknown as string)).code).toBe('INVALID_ARGUMENT');
  });

  it('keeps an own __proto__ key as data without changing the prototype', () => {
    const value = json.parse<Record<string, unknown>>('{"__proto__": {"polluted": true}}');
    expect(Object.hasOwn(value, '__proto__')).toBe(true);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('json.stringify', () => {
  it('writes compact or indented JSON, with sorted keys on request', () => {
    expect(json.stringify({ b: 1, a: [1, { d: 2, c: 3 }] })).toBe('{"b":1,"a":[1,{"d":2,"c":3}]}');
    expect(json.stringify({ b: 1, a: { d: 2, c: 3 } }, { sortKeys: true })).toBe('{"a":{"c":3,"d":2},"b":1}');
    expect(json.stringify({ a: [1] }, { indent: 2 })).toBe('{\n  "a": [\n    1\n  ]\n}');
  });

  it('fails with INVALID_ARGUMENT on circular structures, BigInts and values JSON cannot hold', () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    for (const value of [circular, { n: 10n }, undefined, () => 1, Symbol('s')]) {
      expect(thrown(() => json.stringify(value)).code).toBe('INVALID_ARGUMENT');
    }
    expect(thrown(() => json.stringify(circular)).message).toContain('circular');
  });
});
