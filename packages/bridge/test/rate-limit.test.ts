import { describe, expect, it } from 'vitest';
import { createBridge, type BridgeOptions } from '../src/index.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

const signal = new AbortController().signal;

function setup(options: Partial<BridgeOptions> = {}, period: number = 60_000) {
  const ran: string[] = [];
  const api = memoryCapability(
    'api',
    [
      { name: 'search', parameters: { type: 'object', properties: { q: { type: 'string' } }, required: ['q'] }, run: () => ran.push('search') },
      { name: 'post', run: () => ran.push('post') },
    ],
    { rateLimit: { requests: 3, period } },
  );
  const bridge = createBridge({ capabilities: [api], ...options });
  const call = (fn: string, params: Record<string, unknown> = { q: 'x' }, s = signal) => bridge.call(msg('api', fn, params), s, { runId: `run-${ran.length}` });
  return { bridge, ran, call };
}

describe('rate limits', () => {
  it('fails the call over the capability limit with RATE_LIMITED and retryAfterMs, without running it', async () => {
    const { call, ran } = setup();
    for (let i = 0; i < 3; i++) expect((await call('search')).ok).toBe(true);
    const error = errorOf(await call('post', {}));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.data?.retryAfterMs).toBeGreaterThan(0);
    expect(error.data?.retryAfterMs).toBeLessThanOrEqual(60_000);
    expect(error.data?.limit).toEqual({ key: 'api', requests: 3, periodMs: 60_000 });
    expect(ran).toEqual(['search', 'search', 'search']);
  });

  it('counts calls from every run and session of the space (one bridge) in one window', async () => {
    const { bridge, ran } = setup();
    const origins = [{ runId: 'a' }, { runId: 'b', sessionId: 's1' }, { runId: 'c', sessionId: 's2' }, { runId: 'd' }];
    const outcomes = [];
    for (const origin of origins) outcomes.push(await bridge.call(msg('api', 'post', {}), signal, origin));
    expect(outcomes.map((o) => (o.ok ? 'ok' : o.error.code))).toEqual(['ok', 'ok', 'ok', 'RATE_LIMITED']);
    expect(ran).toHaveLength(3);
  });

  it('waits for a free slot up to rateLimitMaxWaitMs, then runs the call', async () => {
    const { call, ran } = setup({ rateLimitMaxWaitMs: 5_000 }, 150);
    const outcomes = await Promise.all([1, 2, 3, 4, 5].map(() => call('post', {})));
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(ran).toHaveLength(5);
  });

  it('applies a per-function override on top of the capability limit', async () => {
    const { call } = setup({ rateLimits: { 'api.post': { requests: 1, period: 'minute' } } });
    expect((await call('post', {})).ok).toBe(true);
    expect(errorOf(await call('post', {})).data?.limit).toEqual({ key: 'api.post', requests: 1, periodMs: 60_000 });
    expect((await call('search')).ok).toBe(true);
    expect((await call('search')).ok).toBe(true);
    expect(errorOf(await call('search')).code).toBe('RATE_LIMITED');
  });

  it('lets config overrides replace the definition limit', async () => {
    const { call, ran } = setup({ rateLimits: { api: { requests: 1, period: 'hour' } } });
    expect((await call('search')).ok).toBe(true);
    expect(errorOf(await call('search')).code).toBe('RATE_LIMITED');
    expect(ran).toHaveLength(1);
  });

  it('does not count calls refused before they run (invalid params, denied)', async () => {
    const { call, ran } = setup({ rateLimits: { api: { requests: 1, period: 'hour' } } });
    for (let i = 0; i < 5; i++) expect(errorOf(await call('search', {})).code).toBe('INVALID_PARAMS');
    expect((await call('search')).ok).toBe(true);
    expect(ran).toEqual(['search']);
  });

  it('ends a waiting call with ABORTED when its run aborts', async () => {
    const { call, ran } = setup({ rateLimitMaxWaitMs: 120_000, rateLimits: { api: { requests: 1, period: 'minute' } } });
    expect((await call('post', {})).ok).toBe(true);
    const controller = new AbortController();
    const waiting = call('post', {}, controller.signal);
    setTimeout(() => controller.abort(), 20);
    expect(errorOf(await waiting).code).toBe('ABORTED');
    expect(ran).toHaveLength(1);
  });
});
