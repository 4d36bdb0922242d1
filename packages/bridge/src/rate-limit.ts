import { setTimeout as delay } from 'node:timers/promises';
import { AgentSpacesError, LOCAL_PRINCIPAL, ratePeriodMs, type RateLimit } from '@agent-spaces/capabilities';
import { MemoryRateLimitStore, type RateLimitStore, type RateWindow } from './stores/rate-limit.js';
import type { AdmittedCall, HostCapability, PendingCall } from './types.js';

/** Options of {@link createRateLimiter}. */
export interface RateLimiterOptions {
  capabilities: readonly HostCapability[];
  /** By `'<capability>'` or `'<capability>.<function>'` (id or export name, generated or source name); replace `config.rateLimit`. */
  overrides?: Readonly<Record<string, RateLimit>>;
  /** How long a call may wait for a slot before failing with `RATE_LIMITED` (default 0: fail at once). */
  maxWaitMs?: number;
  /**
   * Calls admitted before this limiter existed (read back from the audit log), so limits hold across processes; a
   * call counts toward its principal's window of a `per: 'user'` limit (`local` when it names none).
   */
  history?: Iterable<AdmittedCall>;
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

/** A limit's window; one of a `per: 'user'` limit is a template, made per principal by {@link windowsOf}. */
type LimitWindow = RateWindow & { perUser?: true };

/** The windows of one function, and whether any is kept per principal. */
interface FunctionWindows {
  list: LimitWindow[];
  perUser: boolean;
}

/**
 * Creates the host's rate limiter; its windows live as long as it does (one per space: across runs and sessions).
 * A limit `per: 'user'` has one window per principal id (the window id suffixed with it). Returns undefined when no
 * capability has a limit.
 */
export function createRateLimiter(options: RateLimiterOptions): RateLimiter | undefined {
  const overrides = options.overrides ?? {};
  const maxWaitMs = options.maxWaitMs ?? 0;
  const store = options.store ?? new MemoryRateLimitStore();
  const windows = new Map<string, FunctionWindows>();
  for (const capability of options.capabilities) {
    const capabilityLimit = pick(overrides, [capability.id, capability.exportName]) ?? capability.config.rateLimit;
    const shared = capabilityLimit && window(capability.id, capability.id, capabilityLimit);
    for (const fn of capability.functions.values()) {
      const names = [capability.id, capability.exportName].flatMap((c) => [`${c}.${fn.name}`, `${c}.${fn.sourceName}`]);
      const fnLimit = pick(overrides, names);
      const list = [...(shared ? [shared] : []), ...(fnLimit ? [window(`${capability.id}\0${fn.name}`, `${capability.id}.${fn.name}`, fnLimit)] : [])];
      if (list.length > 0) windows.set(`${capability.id}\0${fn.name}`, { list, perUser: list.some((w) => w.perUser) });
    }
  }
  if (windows.size === 0) return undefined;
  const past = new Map<string, number[]>();
  for (const call of options.history ?? []) {
    const found = windows.get(`${call.capability}\0${call.function}`);
    for (const w of found ? windowsOf(found, call.principal) : []) (past.get(w.id) ?? past.set(w.id, []).get(w.id)!).push(call.at);
  }
  for (const [id, times] of past) store.seed(id, times);

  return {
    async acquire(call) {
      const found = windows.get(`${call.capability.id}\0${call.function.name}`);
      if (!found) return;
      const list = windowsOf(found, call.principal?.id);
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

/** The window of `limit`, named `id` in the store and `key` in errors. */
function window(id: string, key: string, limit: RateLimit): LimitWindow {
  return { id, key, requests: limit.requests, periodMs: ratePeriodMs(limit.period), ...(limit.per === 'user' ? { perUser: true as const } : {}) };
}

/** The windows a call of `principal` (an id; none: `local`) counts in: per-user ones get the id suffixed. */
function windowsOf({ list, perUser }: FunctionWindows, principal: string | undefined): RateWindow[] {
  if (!perUser) return list;
  const id = principal ?? LOCAL_PRINCIPAL.id;
  return list.map((w) => (w.perUser ? { id: `${w.id}\0user\0${id}`, key: `${w.key} (per user ${id})`, requests: w.requests, periodMs: w.periodMs } : w));
}

function pick(overrides: Readonly<Record<string, RateLimit>>, keys: string[]): RateLimit | undefined {
  for (const key of keys) if (Object.hasOwn(overrides, key)) return overrides[key];
  return undefined;
}

