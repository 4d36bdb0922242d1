/** Rate-limit periods: the names a `rateLimit.period` may take and their length. */

/** Named periods of a rate limit, shortest first. */
export const RATE_PERIODS = ['second', 'minute', 'hour', 'day'] as const;

/** A rate limit's period: one of {@link RATE_PERIODS} or a number of milliseconds. */
export type RatePeriod = (typeof RATE_PERIODS)[number] | number;

const PERIOD_MS: Record<(typeof RATE_PERIODS)[number], number> = {
  second: 1_000,
  minute: 60_000,
  hour: 3_600_000,
  day: 86_400_000,
};

/** True for a period name or a positive, finite number of milliseconds. */
export function isRatePeriod(value: unknown): value is RatePeriod {
  if (typeof value === 'number') return value > 0 && Number.isFinite(value);
  return (RATE_PERIODS as readonly unknown[]).includes(value);
}

/** The length of `period` in milliseconds. */
export function ratePeriodMs(period: RatePeriod): number {
  return typeof period === 'number' ? period : PERIOD_MS[period];
}
