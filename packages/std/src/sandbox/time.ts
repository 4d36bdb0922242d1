import { describeType, StdError } from './errors.js';

/** A point in time: a `Date`, an ISO 8601 string, or milliseconds since the epoch. */
type TimeInput = Date | string | number;

/** An amount of time by unit; years and months count calendar months (in UTC), the rest fixed lengths. */
interface Duration {
  years?: number;
  months?: number;
  weeks?: number;
  days?: number;
  hours?: number;
  minutes?: number;
  seconds?: number;
  milliseconds?: number;
}

/** Units {@link diff} measures in. */
type TimeUnit = 'milliseconds' | 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks';

/** Options of {@link format}: `Intl.DateTimeFormat` options plus the locale. */
interface TimeFormatOptions extends Intl.DateTimeFormatOptions {
  /** BCP 47 locale (default `en-US`). */
  locale?: string;
}

const UNIT_MS: Record<TimeUnit, number> = {
  milliseconds: 1,
  seconds: 1000,
  minutes: 60_000,
  hours: 3_600_000,
  days: 86_400_000,
  weeks: 604_800_000,
};
const ISO_DATE_TIME =
  /^([+-]\d{6}|\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/i;
const ISO_DURATION = /^P(?:(\d+(?:[.,]\d+)?)Y)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)W)?(?:(\d+(?:[.,]\d+)?)D)?(?:T(?:(\d+(?:[.,]\d+)?)H)?(?:(\d+(?:[.,]\d+)?)M)?(?:(\d+(?:[.,]\d+)?)S)?)?$/i;
const DURATION_KEYS = ['years', 'months', 'weeks', 'days', 'hours', 'minutes', 'seconds'] as const;

/** The current time. */
function now(): Date {
  return new Date();
}

/**
 * Parses an ISO 8601 date or date-time (`2025-01-15`, `2025-01-15T10:30`, `2025-01-15T10:30:00.5+01:00`). Without an
 * offset the time is UTC. Anything else throws a `StdError` with code `INVALID_TIME`.
 */
function parse(text: string): Date {
  if (typeof text !== 'string') throw new StdError('INVALID_TIME', `time.parse expects a string, got ${describeType(text)}`);
  const m = ISO_DATE_TIME.exec(text.trim());
  if (!m) throw new StdError('INVALID_TIME', `"${text}" is not an ISO 8601 date or date-time (e.g. 2025-01-15T10:30:00Z)`);
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', offset = 'Z'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const [hour, minute, second] = [Number(h), Number(mi), Number(s)];
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month) || hour > 23 || minute > 59 || second > 59) {
    throw new StdError('INVALID_TIME', `"${text}" is not a real date or time`);
  }
  const ms = Number(fraction.padEnd(3, '0').slice(0, 3));
  const utc = new Date(0);
  utc.setUTCFullYear(year, month - 1, day);
  utc.setUTCHours(hour, minute, second, ms);
  return new Date(utc.getTime() - offsetMinutes(offset) * 60_000);
}

/**
 * Formats a time as ISO 8601. In UTC by default (`2025-01-15T09:30:00.000Z`); with `timeZone` (an IANA name such as
 * `Europe/Oslo`) as that zone's wall-clock time with its offset (`2025-01-15T10:30:00.000+01:00`).
 */
function toISO(input: TimeInput, options: { timeZone?: string } = {}): string {
  const date = toDate(input, 'time.toISO');
  if (options.timeZone === undefined) return date.toISOString();
  const parts = wallClock(date, options.timeZone);
  const wall = Date.UTC(parts.year, parts.month - 1, parts.day, parts.hour, parts.minute, parts.second, date.getUTCMilliseconds());
  const offset = Math.round((wall - date.getTime()) / 60_000);
  const sign = offset < 0 ? '-' : '+';
  const abs = Math.abs(offset);
  const year = parts.year >= 0 && parts.year <= 9999 ? pad(parts.year, 4) : (parts.year < 0 ? '-' : '+') + pad(Math.abs(parts.year), 6);
  return (
    `${year}-${pad(parts.month, 2)}-${pad(parts.day, 2)}T${pad(parts.hour, 2)}:${pad(parts.minute, 2)}:${pad(parts.second, 2)}` +
    `.${pad(date.getUTCMilliseconds(), 3)}${sign}${pad(Math.floor(abs / 60), 2)}:${pad(abs % 60, 2)}`
  );
}

/**
 * Formats a time for people with `Intl.DateTimeFormat` (default locale `en-US`, default time zone UTC), e.g.
 * `format(t, { timeZone: 'Asia/Tokyo', dateStyle: 'medium', timeStyle: 'short' })`.
 */
function format(input: TimeInput, options: TimeFormatOptions = {}): string {
  const date = toDate(input, 'time.format');
  const { locale = 'en-US', ...intl } = options;
  return formatter(locale, { timeZone: 'UTC', ...intl }).format(date);
}

/** Adds a duration (a {@link Duration} or an ISO 8601 duration such as `P1DT2H`; negative amounts subtract). */
function add(input: TimeInput, duration: Duration | string): Date {
  const date = toDate(input, 'time.add');
  const d = typeof duration === 'string' ? parseDuration(duration) : checkDuration(duration);
  const months = (d.years ?? 0) * 12 + (d.months ?? 0);
  const shifted = months === 0 ? date : addMonths(date, months);
  const ms =
    (d.weeks ?? 0) * UNIT_MS.weeks +
    (d.days ?? 0) * UNIT_MS.days +
    (d.hours ?? 0) * UNIT_MS.hours +
    (d.minutes ?? 0) * UNIT_MS.minutes +
    (d.seconds ?? 0) * UNIT_MS.seconds +
    (d.milliseconds ?? 0);
  return new Date(shifted.getTime() + ms);
}

/** `to - from` in `unit` (default milliseconds); fractional when the difference is not a whole number of units. */
function diff(from: TimeInput, to: TimeInput, unit: TimeUnit = 'milliseconds'): number {
  if (!Object.hasOwn(UNIT_MS, unit)) {
    throw new StdError('INVALID_ARGUMENT', `time.diff: unknown unit "${String(unit)}" (use ${Object.keys(UNIT_MS).join(', ')})`);
  }
  return (toDate(to, 'time.diff').getTime() - toDate(from, 'time.diff').getTime()) / UNIT_MS[unit];
}

/** Parses an ISO 8601 duration (`P1Y2M3DT4H5M6.5S`, `P2W`) into a {@link Duration}. */
function parseDuration(text: string): Duration {
  const m = typeof text === 'string' && text !== 'P' && !/T$/i.test(text) ? ISO_DURATION.exec(text.trim()) : null;
  if (!m) throw new StdError('INVALID_TIME', `"${String(text)}" is not an ISO 8601 duration (e.g. P1DT2H30M)`);
  const duration: Duration = {};
  DURATION_KEYS.forEach((key, index) => {
    const value = m[index + 1];
    if (value !== undefined) duration[key] = Number(value.replace(',', '.'));
  });
  if (duration.seconds !== undefined && !Number.isInteger(duration.seconds)) {
    duration.milliseconds = Math.round((duration.seconds % 1) * 1000);
    duration.seconds = Math.trunc(duration.seconds);
  }
  return checkDuration(duration);
}

/** Dates and times: ISO 8601 parsing and formatting, durations, and formatting in any time zone via `Intl`. */
export const time = Object.freeze({ now, parse, toISO, format, add, diff, parseDuration });

function toDate(input: TimeInput, where: string): Date {
  const date = typeof input === 'string' ? parse(input) : input instanceof Date || typeof input === 'number' ? new Date(input) : undefined;
  if (!date || Number.isNaN(date.getTime())) {
    throw new StdError('INVALID_TIME', `${where} expects a Date, an ISO 8601 string or epoch milliseconds, got ${describeType(input)}`);
  }
  return date;
}

function checkDuration(duration: Duration): Duration {
  if (typeof duration !== 'object' || duration === null) {
    throw new StdError('INVALID_ARGUMENT', `A duration must be an object or an ISO 8601 string, got ${describeType(duration)}`);
  }
  for (const [key, value] of Object.entries(duration)) {
    if (!Object.hasOwn(UNIT_MS, key) && key !== 'years' && key !== 'months') {
      throw new StdError('INVALID_ARGUMENT', `Unknown duration unit "${key}"`);
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) throw new StdError('INVALID_ARGUMENT', `Duration ${key} must be a finite number`);
    if ((key === 'years' || key === 'months') && !Number.isInteger(value)) {
      throw new StdError('INVALID_ARGUMENT', `Duration ${key} must be a whole number`);
    }
  }
  return duration;
}

function addMonths(date: Date, months: number): Date {
  const result = new Date(date.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  result.setUTCDate(Math.min(day, daysInMonth(result.getUTCFullYear(), result.getUTCMonth() + 1)));
  return result;
}

function daysInMonth(year: number, month: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month, 0);
  return date.getUTCDate();
}

function offsetMinutes(offset: string): number {
  if (offset.toUpperCase() === 'Z') return 0;
  const sign = offset.startsWith('-') ? -1 : 1;
  const digits = offset.slice(1).replace(':', '');
  const hours = Number(digits.slice(0, 2));
  const minutes = Number(digits.slice(2) || '0');
  if (hours > 23 || minutes > 59) throw new StdError('INVALID_TIME', `"${offset}" is not a UTC offset`);
  return sign * (hours * 60 + minutes);
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatter(locale: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${locale}\u0000${JSON.stringify(options)}`;
  let cached = formatters.get(key);
  if (!cached) {
    try {
      cached = new Intl.DateTimeFormat(locale, options);
    } catch (error) {
      throw new StdError('INVALID_TIME', `Cannot format times with ${JSON.stringify({ locale, ...options })}: ${(error as Error).message}`);
    }
    formatters.set(key, cached);
  }
  return cached;
}

function wallClock(date: Date, timeZone: string): Record<'year' | 'month' | 'day' | 'hour' | 'minute' | 'second', number> {
  const parts = formatter('en-US', {
    timeZone,
    hourCycle: 'h23',
    era: 'short',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  }).formatToParts(date);
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value);
  const era = parts.find((p) => p.type === 'era')?.value;
  const year = era === 'BC' ? 1 - get('year') : get('year');
  return { year, month: get('month'), day: get('day'), hour: get('hour'), minute: get('minute'), second: get('second') };
}

function pad(value: number, width: number): string {
  return String(value).padStart(width, '0');
}
