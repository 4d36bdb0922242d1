import { describe, expect, it } from 'vitest';
import { isPlainObject, isRecord } from '../src/index.js';

class Point {
  x = 1;
}

describe('isRecord', () => {
  it('accepts any object that is not null or an array', () => {
    for (const value of [{}, { a: 1 }, Object.create(null), new Point(), new Map(), new Date(0)]) expect(isRecord(value)).toBe(true);
  });

  it('refuses null, arrays, functions and primitives', () => {
    for (const value of [null, undefined, [], [1], () => 1, 'x', 1, true, 1n]) expect(isRecord(value)).toBe(false);
  });
});

describe('isPlainObject', () => {
  it('accepts object literals, null-prototype objects and parsed JSON', () => {
    for (const value of [{}, { a: [1] }, Object.create(null), JSON.parse('{"a":1}')]) expect(isPlainObject(value)).toBe(true);
  });

  it('refuses class instances, built-ins, arrays and primitives', () => {
    for (const value of [new Point(), new Map(), new Date(0), new Error('x'), [], null, 'x', Object.create({})]) {
      expect(isPlainObject(value)).toBe(false);
    }
  });
});
