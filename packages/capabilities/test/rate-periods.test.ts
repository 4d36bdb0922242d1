import { describe, expect, it } from 'vitest';
import { RATE_PERIODS, isRatePeriod, ratePeriodMs } from '../src/index.js';

describe('rate periods', () => {
  it('gives each named period its length in ms, and a number as it is', () => {
    expect(RATE_PERIODS.map(ratePeriodMs)).toEqual([1_000, 60_000, 3_600_000, 86_400_000]);
    expect(ratePeriodMs(250)).toBe(250);
  });

  it('accepts a name or a positive finite number of ms', () => {
    for (const period of [...RATE_PERIODS, 1, 0.5, 60_000]) expect(isRatePeriod(period)).toBe(true);
  });

  it('refuses other names, zero, negative and non-finite numbers', () => {
    for (const period of ['week', 'Second', '', 0, -1, Number.NaN, Number.POSITIVE_INFINITY, '1000', null, undefined]) {
      expect(isRatePeriod(period)).toBe(false);
    }
  });
});
