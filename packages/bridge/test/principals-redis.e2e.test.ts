// Per-user rate limits on the Redis store: two replicas count each principal in its own window (ids made per call).
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Principal } from '@agent-spaces/capabilities';
import { createBridge } from '../src/index.js';
import { SharedCounters } from '../src/shared-entry.js';
import { startRedis, type RedisServer } from '../../../test/services/redis.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

let redis: RedisServer;
const opened: SharedCounters[] = [];

beforeAll(async () => {
  redis = await startRedis();
});

afterAll(async () => {
  await Promise.all(opened.map((counters) => counters.close()));
  await redis?.close();
});

const never = new AbortController().signal;
const principal = (name: string): Principal => ({ id: `user:${name}`, subject: name, scopes: [], groups: [] });

it('two replicas share each principal\'s window of a per-user limit, and keep principals apart', async () => {
  const prefix = `principals-${randomUUID()}:`;
  const api = memoryCapability('api', [{ name: 'get', run: () => 'got' }]);
  const bridges = await Promise.all(
    [0, 1].map(async () => {
      const counters = await SharedCounters.open(redis.url, { prefix });
      opened.push(counters);
      return createBridge({ capabilities: [api], rateLimits: { api: { requests: 1, period: 'hour', per: 'user' } }, rateLimitStore: counters.rateLimits() });
    }),
  );
  const call = async (replica: number, who: Principal | undefined) => {
    const outcome = await bridges[replica]!.call(msg('api', 'get', {}), never, who ? { principal: who } : {});
    return outcome.ok ? 'ok' : errorOf(outcome).code;
  };
  expect(await call(0, principal('alice'))).toBe('ok');
  expect(await call(1, principal('alice'))).toBe('RATE_LIMITED');
  expect(await call(1, principal('bob'))).toBe('ok');
  expect(await call(0, principal('bob'))).toBe('RATE_LIMITED');
  expect(await call(0, undefined)).toBe('ok');
  expect(await call(1, undefined)).toBe('RATE_LIMITED');
});
