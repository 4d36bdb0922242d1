import { describe, expect, it } from 'vitest';
import { payloadBytes } from '../src/payload.js';

describe('payloadBytes', () => {
  it('grows with the size of strings, arrays, maps and binary data', () => {
    expect(payloadBytes('x'.repeat(1000), Infinity)).toBeGreaterThanOrEqual(1000);
    expect(payloadBytes(new Uint8Array(2048), Infinity)).toBeGreaterThanOrEqual(2048);
    expect(payloadBytes(new Map([['k', 'v'.repeat(500)]]), Infinity)).toBeGreaterThanOrEqual(500);
    expect(payloadBytes({ a: 1 }, Infinity)).toBeLessThan(payloadBytes({ a: 1, b: [1, 2, 3] }, Infinity));
  });

  it('counts a shared or cyclic object once', () => {
    const shared = { text: 'y'.repeat(1000) };
    const cyclic: Record<string, unknown> = { shared };
    cyclic.self = cyclic;
    expect(payloadBytes([shared, shared, cyclic], Infinity)).toBeLessThan(1100);
  });

  it('stops counting soon after the limit', () => {
    const huge = Array.from({ length: 100_000 }, () => 'z'.repeat(100));
    const measured = payloadBytes(huge, 1000);
    expect(measured).toBeGreaterThan(1000);
    expect(measured).toBeLessThan(200_000);
  });

  it('measures very deep values without overflowing the stack', () => {
    let deep: unknown = 'end';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(payloadBytes(deep, Infinity)).toBeGreaterThan(100_000);
  });
});
