import { setTimeout as delay } from 'node:timers/promises';
import { AgentSpacesError, ratePeriodMs, type RateLimit } from '@agent-spaces/capabilities';
import { MemoryRateLimitStore, type RateLimitStore, type RateWindow } from './stores/rate-limit.js';
import type { HostCapability, PendingCall } from './types.js';

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  capabilities: readonly HostCapability[];
  /** By `'<capability>'` or `'<capability>.<function>'` (id or export name, generated or source name); replace `config.rateLimit`. */
  overrides?: Readonly<Record<string, RateLimit>>;
  /** How long a call may wait for a slot before failing with `RATE_LIMITED` (default 0: fail at once). */
  maxWaitMs?: number;
  /** Calls admitted before this limiter existed (read back from the audit log), so limits hold across processes. */
  history?: Iterable<{ capability: string; function: string; at: number }>;
  /** Where admitted calls are counted (default: in memory, a {@link MemoryRateLimitStore}). */
  store?: RateLimitStore;
}

/** Admits calls under their capability's and function's rate limits. */
export interface RateLimiter {
  /**
   * Resolves once `call` fits every limit that applies to it (waiting up to `maxWaitMs`), counting it; otherwise
   * rejects with `RATE_LIMITED` and `data.retryAfterMs` (or `ABORTED` when the call's signal aborts while waiting).
   */
  acquire(call: PendingCall): Promise<void>;
}

/**
 * Creates the host's rate limiter; its windows live as long as it does (one per space: across runs and sessions).
 * Returns undefined when no capability has a limit.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter | undefined {
  const overrides = options.overrides ?? {};
  const maxWaitMs = options.maxWaitMs ?? 0;
  const store = options.store ?? new MemoryRateLimitStore();
  const windows = new Map<string, RateWindow[]>();
  for (const capability of options.capabilities) {
    const capabilityLimit = pick(overrides, [capability.id, capability.exportName]) ?? capability.config.rateLimit;
    const shared = capabilityLimit && window(capability.id, capability.id, capabilityLimit);
    for (const fn of capability.functions.values()) {
      const names = [capability.id, capability.exportName].flatMap((c) => [`${c}.${fn.name}`, `${c}.${fn.sourceName}`]);
      const fnLimit = pick(overrides, names);
      const list = [...(shared ? [shared] : []), ...(fnLimit ? [window(`${capability.id}\0${fn.name}`, `${capability.id}.${fn.name}`, fnLimit)] : [])];
      if (list.length > 0) windows.set(`${capability.id}\0${fn.name}`, list);
    }
  }
  if (windows.size === 0) return undefined;
  const past = new Map<string, number[]>();
  for (const call of options.history ?? []) {
    for (const w of windows.get(`${call.capability}\0${call.function}`) ?? []) (past.get(w.id) ?? past.set(w.id, []).get(w.id)!).push(call.at);
  }
  for (const [id, times] of past) store.seed(id, times);

  return {
    async acquire(call) {
      const list = windows.get(`${call.capability.id}\0${call.function.name}`);
      if (!list) return;
      const started = Date.now();
      for (;;) {
        const now = Date.now();
        const admission = await store.admit(list, now);
        if (admission.admitted) return;
        const { window: limiting, waitMs } = admission;
        if (now - started + waitMs > maxWaitMs) {
          throw new AgentSpacesError(
            'RATE_LIMITED',
            `${limiting.key} allows ${limiting.requests} call(s) per ${limiting.periodMs} ms; retry in ${waitMs} ms`,
            { retryAfterMs: waitMs, limit: { key: limiting.key, requests: limiting.requests, periodMs: limiting.periodMs } },
          );
        }
        await delay(waitMs, undefined, { signal: call.signal }).catch((cause: unknown) => {
          throw new AgentSpacesError('ABORTED', 'The run was aborted while the call waited for its rate limit', undefined, { cause });
        });
      }
    },
  };
}

function window(id: string, key: string, limit: RateLimit): RateWindow {
  return { id, key, requests: limit.requests, periodMs: ratePeriodMs(limit.period) };
}

function pick(overrides: Readonly<Record<string, RateLimit>>, keys: string[]): RateLimit | undefined {
  for (const key of keys) if (Object.hasOwn(overrides, key)) return overrides[key];
  return undefined;
}

