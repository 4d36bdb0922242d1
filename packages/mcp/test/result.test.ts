import { describe, expect, it } from 'vitest';
import { toToolResult } from '../src/result.js';

const text = (value: string) => ({ type: 'text' as const, text: value });

describe('toToolResult', () => {
  it('takes data from structured content first, then from the JSON of the text', () => {
    expect(toToolResult({ content: [text('{"a":1}')], structuredContent: { b: 2 } }).data).toEqual({ b: 2 });
    expect(toToolResult({ content: [text(' [1, 2]')] }).data).toEqual([1, 2]);
    expect(toToolResult({ content: [text('{"a":')] })).not.toHaveProperty('data');
  });

  it('takes no data from text that is not one JSON object or array', () => {
    for (const value of ['42', '"quoted"', 'null', 'not found', '']) expect(toToolResult({ content: [text(value)] })).not.toHaveProperty('data');
  });

  it('gives several JSON text blocks as an array of their data, only when every block is one', () => {
    const items = toToolResult({ content: [text('{"id":1}'), { type: 'image', data: 'AA==', mimeType: 'image/png' }, text('{"id":2}')] });
    expect(items).toMatchObject({ text: '{"id":1}\n{"id":2}', data: [{ id: 1 }, { id: 2 }] });
    expect(toToolResult({ content: [text('{"id":1}'), text('and some prose')] })).not.toHaveProperty('data');
    // Blocks that join into one JSON value are that value.
    expect(toToolResult({ content: [text('{"a":'), text('1}')] }).data).toEqual({ a: 1 });
  });
});
