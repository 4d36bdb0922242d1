import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mergeShapes, observedFile, shapeOf } from '../src/index.js';

describe('shapeOf', () => {
  it('keeps types and field names, never a value', () => {
    const shape = shapeOf({ id: 'secret-id-123', count: 3, ratio: 0.5, ok: true, none: null, tags: ['a'], nested: { at: 'x' } });
    expect(shape).toEqual({
      type: 'object',
      properties: {
        id: { type: 'string' },
        count: { type: 'integer' },
        ratio: { type: 'number' },
        ok: { type: 'boolean' },
        none: { type: 'null' },
        tags: { type: 'array', items: { type: 'string' } },
        nested: { type: 'object', properties: { at: { type: 'string' } }, required: ['at'] },
      },
      required: ['id', 'count', 'ratio', 'ok', 'none', 'tags', 'nested'],
    });
    expect(JSON.stringify(shape)).not.toContain('secret-id-123');
  });

  it.each([
    ['many keys', Object.fromEntries(Array.from({ length: 41 }, (_, i) => [`k${i}`, i]))],
    ['a key that is data (a path)', { '/home/ada/.ssh/id_rsa': 1 }],
    ['a key that is data (a token)', { [`tok_${'x'.repeat(80)}`]: 1 }],
    ['a key with spaces', { 'two words': 1 }],
  ])('makes an object with %s a map, keeping none of its keys', (_, value) => {
    const shape = shapeOf(value);
    expect(shape).toEqual({ type: 'object', additionalProperties: { type: 'integer' } });
  });

  it('takes the shapes of the first 100 elements of a large array only', () => {
    const big = [...Array.from({ length: 100 }, () => 1), ...Array.from({ length: 100_000 }, () => 'later')];
    expect(shapeOf(big)).toEqual({ type: 'array', items: { type: 'integer' } });
  });

  it('stops at depth 6, and is unknown for what JSON has no type for', () => {
    let deep: unknown = 'leaf';
    for (let i = 0; i < 50; i++) deep = { d: deep };
    expect(JSON.stringify(shapeOf(deep)).match(/"properties"/g)).toHaveLength(6);
    expect(shapeOf(undefined)).toEqual({});
    expect(shapeOf([])).toEqual({ type: 'array' });
  });
});

describe('mergeShapes', () => {
  it('requires only the fields every result had, and widens integer to number', () => {
    const merged = mergeShapes(shapeOf({ a: 1, b: 'x' }), shapeOf({ a: 1.5, c: true }));
    expect(merged).toEqual({
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'string' }, c: { type: 'boolean' } },
      required: ['a'],
    });
  });

  it('keeps up to 4 alternatives, then gives up to unknown', () => {
    expect(mergeShapes(shapeOf('x'), shapeOf(1))).toEqual({ anyOf: [{ type: 'string' }, { type: 'integer' }] });
    const four = [shapeOf('x'), shapeOf(1), shapeOf(true), shapeOf(null)].reduce((a, b) => mergeShapes(a, b));
    expect(four.anyOf).toHaveLength(4);
    expect(mergeShapes(four, shapeOf([1]))).toEqual({});
    expect(mergeShapes({}, shapeOf('x'))).toEqual({});
  });
});

describe('observedFile', () => {
  it('names one file per capability in the observed folder of the output folder', () => {
    expect(observedFile('/out', 'mcp-x')).toBe(join('/out', 'observed', 'mcp-x.json'));
  });
});
