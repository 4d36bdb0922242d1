import { describe, expect, it } from 'vitest';
import { time } from '../../src/sandbox/time.js';
import { thrown } from '../helpers.js';

describe('time.parse and toISO', () => {
  it.each([
    ['2025-01-15', '2025-01-15T00:00:00.000Z'],
    ['2025-01-15T10:30', '2025-01-15T10:30:00.000Z'],
    ['2025-01-15T10:30:00Z', '2025-01-15T10:30:00.000Z'],
    ['2025-01-15T10:30:00.5+01:00', '2025-01-15T09:30:00.500Z'],
    ['2025-01-15t10:30:00,25-0530', '2025-01-15T16:00:00.250Z'],
    ['2024-02-29T23:59:59.999Z', '2024-02-29T23:59:59.999Z'],
  ])('parses %s as %s', (text, iso) => {
    expect(time.parse(text).toISOString()).toBe(iso);
    expect(time.toISO(text)).toBe(iso);
  });

  it.each(['2025-13-01', '2025-02-30', '2023-02-29', '2025-01-15T24:00', '15/01/2025', 'yesterday', '2025-01-15T10:30+25:00'])(
    'refuses %s with INVALID_TIME',
    (text) => {
      expect(thrown(() => time.parse(text)).code).toBe('INVALID_TIME');
    },
  );

  it('writes a time as local time with offset in an IANA time zone, across DST', () => {
    expect(time.toISO('2025-01-15T09:30:00Z', { timeZone: 'Europe/Oslo' })).toBe('2025-01-15T10:30:00.000+01:00');
    expect(time.toISO('2025-07-15T09:30:00Z', { timeZone: 'Europe/Oslo' })).toBe('2025-07-15T11:30:00.000+02:00');
    expect(time.toISO('2025-01-15T09:30:00.123Z', { timeZone: 'America/St_Johns' })).toBe('2025-01-15T06:00:00.123-03:30');
    expect(time.toISO('2025-01-15T09:30:00Z', { timeZone: 'UTC' })).toBe('2025-01-15T09:30:00.000+00:00');
    expect(time.parse(time.toISO(1_700_000_000_000, { timeZone: 'Asia/Kolkata' })).getTime()).toBe(1_700_000_000_000);
  });

  it('accepts Dates and epoch milliseconds and refuses anything else', () => {
    expect(time.toISO(new Date(0))).toBe('1970-01-01T00:00:00.000Z');
    expect(time.toISO(86_400_000)).toBe('1970-01-02T00:00:00.000Z');
    for (const bad of [NaN, new Date('nope'), null, {}]) expect(thrown(() => time.toISO(bad as number)).code).toBe('INVALID_TIME');
    expect(thrown(() => time.toISO(0, { timeZone: 'Mars/Olympus' })).code).toBe('INVALID_TIME');
  });

  it('returns the current time from now()', () => {
    const before = Date.now();
    const now = time.now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });
});

describe('time.format', () => {
  it('formats with Intl in the given zone and locale, UTC by default', () => {
    const t = '2025-01-15T09:30:00Z';
    expect(time.format(t, { dateStyle: 'medium', timeStyle: 'short' })).toBe('Jan 15, 2025, 9:30 AM');
    expect(time.format(t, { timeZone: 'Asia/Tokyo', hour: '2-digit', minute: '2-digit', hourCycle: 'h23' })).toBe('18:30');
    expect(time.format(t, { locale: 'de-DE', timeZone: 'Europe/Berlin', dateStyle: 'short', timeStyle: 'short' })).toBe('15.01.25, 10:30');
  });
});

describe('durations', () => {
  it('adds objects and ISO 8601 durations, clamping to the end of shorter months', () => {
    expect(time.add('2025-01-31', { months: 1 }).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(time.add('2024-02-29', { years: 1 }).toISOString()).toBe('2025-02-28T00:00:00.000Z');
    expect(time.add('2025-01-15T10:00:00Z', 'P1DT2H30M').toISOString()).toBe('2025-01-16T12:30:00.000Z');
    expect(time.add('2025-01-15', 'P2W').toISOString()).toBe('2025-01-29T00:00:00.000Z');
    expect(time.add('2025-03-01', { days: -1, milliseconds: 500 }).toISOString()).toBe('2025-02-28T00:00:00.500Z');
  });

  it('parses ISO 8601 durations with fractional seconds and refuses malformed ones', () => {
    expect(time.parseDuration('P1Y2M3DT4H5M6.5S')).toEqual({ years: 1, months: 2, days: 3, hours: 4, minutes: 5, seconds: 6, milliseconds: 500 });
    for (const bad of ['P', 'PT', '1D', 'P1H', 'P1.5Y']) expect(thrown(() => time.parseDuration(bad)).code).toMatch(/INVALID_(TIME|ARGUMENT)/);
    expect(thrown(() => time.add(0, { fortnights: 1 } as never)).code).toBe('INVALID_ARGUMENT');
    expect(thrown(() => time.add(0, { constructor: 1 } as never)).code).toBe('INVALID_ARGUMENT');
  });

  it('measures the difference in a unit', () => {
    expect(time.diff('2025-01-15T10:00:00Z', '2025-01-15T11:30:00Z', 'hours')).toBe(1.5);
    expect(time.diff('2025-01-22', '2025-01-15', 'weeks')).toBe(-1);
    expect(time.diff(0, 1500)).toBe(1500);
    expect(thrown(() => time.diff(0, 1, 'months' as never)).code).toBe('INVALID_ARGUMENT');
  });
});
