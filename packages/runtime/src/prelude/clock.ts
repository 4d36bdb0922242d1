/**
 * The sandbox's sources of nondeterminism, made replayable: `Math.random` is a generator seeded by the host (the
 * first run of a context seeds it; a session's later runs go on with its sequence), and `Date` reads the host's time
 * shifted to the run's recorded start, and to each replayed call's recorded return time as it is settled. A live
 * run's clock is the real one (the shift is 0); a replayed run sees the times and numbers the first one saw.
 */
import type { RunClock } from './contract.js';
import { applyFunction, defineProperty, freeze } from './intrinsics.js';


const RealDate = Date;
const realNow = Date.now;
let shiftMs = 0;
let state: [number, number, number, number] | undefined;

/** Starts a run's clock (and seeds `Math.random` when the context is new). */
export function startClock(clock: RunClock | undefined): void {
  if (clock === undefined) return;
  shiftMs = clock.startedAt - realNow();
  if (state !== undefined) return;
  state = [0x9e3779b9, 0x243f6a88, 0xb7e15162, clock.seed >>> 0];
  for (let i = 0; i < 12; i++) nextRandom();
}

/** Moves the clock to `at` (a replayed call's recorded return time). */
export function advanceClock(at: unknown): void {
  if (typeof at === 'number' && at === at) shiftMs = at - realNow();
}

/** sfc32: a small, fast generator with a 128-bit state, uniform in [0, 1). */
function nextRandom(): number {
  const s = state!;
  const t = (((s[0] + s[1]) | 0) + s[3]) | 0;
  s[3] = (s[3] + 1) | 0;
  s[0] = s[1] ^ (s[1] >>> 9);
  s[1] = (s[2] + (s[2] << 3)) | 0;
  s[2] = (s[2] << 21) | (s[2] >>> 11);
  s[2] = (s[2] + t) | 0;
  return (t >>> 0) / 4294967296;
}

const nativeRandom = Math.random;

function now(): number {
  return realNow() + shiftMs;
}

/** `Date` whose `now()`, `new Date()` and `Date()` read the run's clock; everything else is the real `Date`. */
function ClockDate(this: unknown, ...args: unknown[]): unknown {
  if (new.target === undefined) return applyFunction(RealDate.prototype.toString, new RealDate(now()), []);
  return Reflect.construct(RealDate, args.length === 0 ? [now()] : args, new.target);
}

/** Installs the clock's `Date` and `Math.random` on the context's globals. */
export function installClock(global: Record<string, unknown>): void {
  defineProperty(ClockDate, 'prototype', { value: RealDate.prototype, writable: false });
  defineProperty(ClockDate, 'now', { value: now, writable: true, configurable: true });
  defineProperty(ClockDate, 'parse', { value: RealDate.parse, writable: true, configurable: true });
  defineProperty(ClockDate, 'UTC', { value: RealDate.UTC, writable: true, configurable: true });
  defineProperty(RealDate.prototype, 'constructor', { value: ClockDate, writable: true, configurable: true });
  defineProperty(global, 'Date', { value: ClockDate, writable: true, configurable: true });
  const random = () => (state === undefined ? applyFunction(nativeRandom, Math, []) : nextRandom());
  defineProperty(Math, 'random', { value: freeze(random), writable: true, configurable: true });
}
