import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { createBridge, type Admission, type RateWindow } from '../src/index.js';
import { SharedCounters } from '../src/shared-entry.js';
import { startRedis, type RedisServer } from '../../../test/services/redis.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';
import { rateLimitContract } from './stores-contract.js';

let redis: RedisServer;
const opened: SharedCounters[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(opened.map((c) => c.close()));
  await redis?.close();
});

/** Counters on the test's Redis under `prefix` (a fresh one per test keeps tests apart). */
async function open(prefix: string): Promise<SharedCounters> {
  const counters = await SharedCounters.open(redis.url, { prefix });
  opened.push(counters);
  return counters;
}

/** Two replicas: two connections sharing one prefix. */
async function replicas(): Promise<[SharedCounters, SharedCounters]> {
  const prefix = `test-${randomUUID()}:`;
  return [await open(prefix), await open(prefix)];
}

/** Resolves `promise`, or rejects with `'hung'` when it takes over `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('hung')), ms)));
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

/** The `AgentSpacesError` `promise` rejects with (fails the test when it resolves or hangs past 2.5 s). */
async function rejection(promise: Promise<unknown>): Promise<AgentSpacesError> {
  const error = await within(promise, 2_500).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentSpacesError);
  return error as AgentSpacesError;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

rateLimitContract({ rateLimits: async () => (await open(`contract-${randomUUID()}:`)).rateLimits() });

describe('Redis rate-limit windows shared by replicas', () => {
  const perMinute: RateWindow = { id: 'api', key: 'api', requests: 5, periodMs: 60_000 };

  it('admits exactly the limit of concurrent calls spread over two replicas, telling the others how long to wait', async () => {
    const [a, b] = (await replicas()).map((c) => c.rateLimits());
    const now = Date.now();
    const answers = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).admit([perMinute], now + i)));
    const refused = answers.filter((x): x is Extract<Admission, { admitted: false }> => !x.admitted);
    expect(answers.filter((x) => x.admitted)).toHaveLength(5);
    expect(refused).toHaveLength(5);
    for (const r of refused) {
      expect(r.window).toEqual(perMinute);
      expect(r.waitMs).toBeGreaterThan(0);
      expect(r.waitMs).toBeLessThanOrEqual(60_000);
    }
  });

  it('counts a call refused by one of its windows in none of them, across replicas', async () => {
    const [a, b] = (await replicas()).map((c) => c.rateLimits());
    const wide: RateWindow = { id: 'mail', key: 'mail', requests: 3, periodMs: 60_000 };
    const narrow: RateWindow = { id: 'mail\0send', key: 'mail.send', requests: 1, periodMs: 60_000 };
    const now = Date.now();
    expect(await a.admit([wide, narrow], now)).toEqual({ admitted: true });
    for (const store of [a, b, a]) expect(await store.admit([wide, narrow], now + 1)).toMatchObject({ admitted: false, window: narrow, waitMs: 59_999 });
    // Three refused calls left the wide window with two places.
    expect(await b.admit([wide], now + 2)).toEqual({ admitted: true });
    expect(await a.admit([wide], now + 3)).toEqual({ admitted: true });
    expect(await b.admit([wide], now + 4)).toMatchObject({ admitted: false, window: wide, waitMs: 59_996 });
  });

  it('names the window that stays full longest when several are full', async () => {
    const [a, b] = (await replicas()).map((c) => c.rateLimits());
    const short: RateWindow = { id: 's', key: 's', requests: 1, periodMs: 1_000 };
    const long: RateWindow = { id: 'l', key: 'l', requests: 1, periodMs: 10_000 };
    const now = Date.now();
    expect(await a.admit([short, long], now)).toEqual({ admitted: true });
    expect(await b.admit([short, long], now + 100)).toEqual({ admitted: false, window: long, waitMs: 9_900 });
    expect(await b.admit([long, short], now + 100)).toEqual({ admitted: false, window: long, waitMs: 9_900 });
  });

  it('slides the window: a place frees once the oldest call is a period old, in real time', async () => {
    const [a, b] = (await replicas()).map((c) => c.rateLimits());
    // Long enough that a slow machine still makes the second call within the first one's period.
    const quick: RateWindow = { id: 'quick', key: 'quick', requests: 2, periodMs: 600 };
    const first = Date.now();
    expect(await a.admit([quick], first)).toEqual({ admitted: true });
    await sleep(150);
    expect(await b.admit([quick], Date.now())).toEqual({ admitted: true });
    const refused = await a.admit([quick], Date.now());
    expect(refused.admitted).toBe(false);
    if (refused.admitted) return;
    await sleep(refused.waitMs);
    expect(await b.admit([quick], Date.now())).toEqual({ admitted: true });
    // The second call is still in the window: the third place is taken again.
    expect((await a.admit([quick], Date.now())).admitted).toBe(false);
  });

  it('keeps the windows of different prefixes apart', async () => {
    const [one] = await replicas();
    const [other] = await replicas();
    const single: RateWindow = { id: 'x', key: 'x', requests: 1, periodMs: 60_000 };
    expect(await one.rateLimits().admit([single], Date.now())).toEqual({ admitted: true });
    expect(await other.rateLimits().admit([single], Date.now())).toEqual({ admitted: true });
    expect((await one.rateLimits().admit([single], Date.now())).admitted).toBe(false);
  });

  it('seeds a window only while Redis does not hold it, so replicas seeding the same history count it once', async () => {
    const [a, b] = (await replicas()).map((c) => c.rateLimits());
    const three: RateWindow = { id: 'seeded', key: 'seeded', requests: 3, periodMs: 60_000 };
    const now = Date.now();
    a.seed('seeded', [now - 2_000, now - 1_000]);
    b.seed('seeded', [now - 2_000, now - 1_000]);
    expect(await a.admit([three], now)).toEqual({ admitted: true });
    expect(await b.admit([three], now)).toEqual({ admitted: false, window: three, waitMs: 58_000 });
    // Seeding a window that counts calls already adds nothing.
    a.seed('seeded', [now - 500]);
    expect(await b.admit([three], now + 58_000)).toEqual({ admitted: true });
  });

  it('lets two bridges with Redis windows run exactly the limit of 10 concurrent calls', async () => {
    const [a, b] = await replicas();
    let ran = 0;
    const api = () => memoryCapability('api', [{ name: 'post', run: () => ++ran }], { rateLimit: { requests: 5, period: 'minute' } });
    const bridges = [createBridge({ capabilities: [api()], rateLimitStore: a.rateLimits() }), createBridge({ capabilities: [api()], rateLimitStore: b.rateLimits() })];
    const signal = new AbortController().signal;
    const outcomes = await Promise.all(Array.from({ length: 10 }, (_, i) => bridges[i % 2]!.call(msg('api', 'post', {}), signal)));
    expect(outcomes.filter((o) => o.ok)).toHaveLength(5);
    expect(outcomes.filter((o) => !o.ok).map((o) => errorOf(o).code)).toEqual(Array(5).fill('RATE_LIMITED'));
    expect(ran).toBe(5);
  });
});

describe('the shared fixed-window request counter (take)', () => {
  it('counts the requests of a key on both replicas in one window, then resets', async () => {
    const [a, b] = await replicas();
    const answers = await Promise.all(Array.from({ length: 8 }, (_, i) => (i % 2 === 0 ? a : b).take('session-1', 5, 1_000)));
    const refused = answers.filter((x) => x !== undefined);
    expect(answers.filter((x) => x === undefined)).toHaveLength(5);
    expect(refused).toHaveLength(3);
    for (const ms of refused) {
      expect(ms).toBeGreaterThan(0);
      expect(ms).toBeLessThanOrEqual(1_000);
    }
    // Another key has its own window.
    expect(await b.take('203.0.113.7', 5, 1_000)).toBeUndefined();
    await sleep(Math.max(...refused) + 20);
    expect(await a.take('session-1', 5, 1_000)).toBeUndefined();
  });

  it('keeps the window from the first request: later requests do not extend it', async () => {
    const [a] = await replicas();
    expect(await a.take('k', 1, 1_000)).toBeUndefined();
    await sleep(200);
    const wait = await a.take('k', 1, 1_000);
    expect(wait).toBeGreaterThan(0);
    expect(wait).toBeLessThanOrEqual(810);
  });
});

describe('Redis down', () => {
  it('refuses to open when no Redis answers, within the connect timeout', async () => {
    const error = await rejection(SharedCounters.open('redis://127.0.0.1:1', { connectTimeoutMs: 500 }));
    expect(error.code).toBe('STORE_UNAVAILABLE');
    expect(error.data).toEqual({ store: 'redis' });
    expect(error.message).toMatch(/^Redis is unavailable: /);
  });

  it('fails every kind of call fast with STORE_UNAVAILABLE, and works again once Redis is back', async () => {
    const [a, b] = await replicas();
    const store = a.rateLimits();
    const window: RateWindow = { id: 'down', key: 'down', requests: 100, periodMs: 60_000 };
    expect(await store.admit([window], Date.now())).toEqual({ admitted: true });
    const bridge = createBridge({
      capabilities: [memoryCapability('api', [{ name: 'post', run: () => 'posted' }], { rateLimit: { requests: 5, period: 'minute' } })],
      rateLimitStore: b.rateLimits(),
    });
    await redis.stop();
    try {
      const calls: [string, () => Promise<unknown>][] = [
        ['admit', () => store.admit([window], Date.now())],
        ['admit of two windows', () => store.admit([window, { ...window, id: 'other' }], Date.now())],
        ['admit on the other replica', () => b.rateLimits().admit([window], Date.now())],
        ['take', () => a.take('k', 5, 1_000)],
        ['take on the other replica', () => b.take('k', 5, 1_000)],
        ['ten admits at once', () => Promise.all(Array.from({ length: 10 }, () => store.admit([window], Date.now())))],
      ];
      for (const [name, call] of calls) {
        const error = await rejection(call());
        expect([name, error.code, error.data]).toEqual([name, 'STORE_UNAVAILABLE', { store: 'redis' }]);
        expect(error.message).toMatch(/^Redis is unavailable: /);
      }
      expect(() => store.seed('down', [Date.now()])).not.toThrow();
      const outcome = await within(bridge.call(msg('api', 'post', {}), new AbortController().signal), 2_500);
      expect(errorOf(outcome).code).toBe('STORE_UNAVAILABLE');
    } finally {
      await redis.start();
    }
    await waitUntil(async () => (await store.admit([window], Date.now()).catch(() => undefined)) !== undefined);
    // Redis came back empty: both replicas count in fresh windows again.
    expect(await b.rateLimits().admit([window], Date.now())).toEqual({ admitted: true });
    expect(await a.take('k', 1, 60_000)).toBeUndefined();
    expect(await b.take('k', 1, 60_000)).toBeGreaterThan(0);
    expect((await bridge.call(msg('api', 'post', {}), new AbortController().signal)).ok).toBe(true);
  });
});

/** Polls `ready` until it answers true, for up to 5 s. */
async function waitUntil(ready: () => Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error('timed out');
    await sleep(50);
  }
}
