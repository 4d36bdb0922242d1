import { randomBytes } from 'node:crypto';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { Redis } from 'ioredis';
import type { Admission, RateLimitStore, RateWindow } from './rate-limit.js';

/** Options of {@link SharedCounters.open}. */
export interface SharedCountersOptions {
  /**
   * How long connecting, and then any one command, may take before it fails with `STORE_UNAVAILABLE` (default 5000: a
   * busy replica's event loop can hold a reply back for seconds; a refused connection fails at once).
   */
  connectTimeoutMs?: number;
  /** Put before every key, so deployments (or tests) can share one Redis (default `agent-spaces:`). */
  prefix?: string;
}

/** Runs one Redis command, turning any failure into `STORE_UNAVAILABLE`. */
type Guard = <T>(command: () => Promise<T>) => Promise<T>;

/**
 * Admits a call in every window or none. KEYS: one sorted set per window. ARGV: now, the call's member, then per window
 * its requests, period and cutoff (now - period). Answers `{0}` when admitted, else `{window index, score of the call
 * whose expiry frees a place}` for the window full longest.
 */
const ADMIT_LUA = `
local now = tonumber(ARGV[1])
local limiting, waitMs, freedBy = 0, 0, nil
for i, key in ipairs(KEYS) do
  local requests, period = tonumber(ARGV[3 * i]), tonumber(ARGV[3 * i + 1])
  redis.call('ZREMRANGEBYSCORE', key, '-inf', ARGV[3 * i + 2])
  local count = redis.call('ZCARD', key)
  if count >= requests then
    local edge = redis.call('ZRANGE', key, count - requests, count - requests, 'WITHSCORES')
    local score = edge[2] or ARGV[1]
    local free = tonumber(score) + period - now
    if free > waitMs then limiting, waitMs, freedBy = i, free, score end
  end
end
if limiting > 0 then return {limiting, freedBy} end
for i, key in ipairs(KEYS) do
  redis.call('ZADD', key, ARGV[1], ARGV[2])
  redis.call('PEXPIRE', key, ARGV[3 * i + 1])
end
return {0}
`;

/** Seeds a window that Redis does not hold yet. KEYS[1]: its sorted set. ARGV: expiry, then score, member pairs. */
const SEED_LUA = `
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 2, #ARGV, 2 do redis.call('ZADD', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return 1
`;

/** Counts one request in a fixed window. KEYS[1]: its counter. ARGV: limit, window. Answers -1 or ms until reset. */
const TAKE_LUA = `
local count = redis.call('INCR', KEYS[1])
if redis.call('PTTL', KEYS[1]) < 0 then redis.call('PEXPIRE', KEYS[1], ARGV[2]) end
if count > tonumber(ARGV[1]) then return redis.call('PTTL', KEYS[1]) end
return -1
`;

/** How long seeded windows are kept when no call renews them: a day, the longest named rate period. */
const SEED_KEEP_MS = 86_400_000;

/** The scripts above, as commands of the connection (`scripts` of its options). */
interface Scripts {
  agentSpacesAdmit(keyCount: number, ...keysAndArgs: (string | number)[]): Promise<[number, string?]>;
  agentSpacesSeed(key: string, ...args: (string | number)[]): Promise<number>;
  agentSpacesTake(key: string, limit: number, windowMs: number): Promise<number>;
}

/** The scripts' commands on `redis`. */
function scripts(redis: Redis): Scripts {
  return redis as unknown as Scripts;
}

/**
 * Counters shared by every replica through one Redis server: the bridge's rate-limit windows
 * ({@link SharedCounters.rateLimits}) and the HTTP front door's request counter ({@link SharedCounters.take}).
 * A command while Redis is down or slow fails fast with `STORE_UNAVAILABLE` (`data.store: 'redis'`); the connection
 * comes back by itself once Redis answers again. Close it with {@link SharedCounters.close}.
 */
export class SharedCounters {
  readonly #redis: Redis;
  readonly #prefix: string;
  #lastError: Error | undefined;

  private constructor(redis: Redis, prefix: string) {
    this.#redis = redis;
    this.#prefix = prefix;
    // An 'error' event without a listener would crash the process; the reason is kept for the next failing command.
    redis.on('error', (error: Error) => (this.#lastError = error));
    redis.on('close', () => (this.#lastError ??= new Error('the connection was lost')));
    redis.on('ready', () => (this.#lastError = undefined));
  }

  /**
   * Connects to the Redis server at `url` (`redis://host:port/db`); rejects with `STORE_UNAVAILABLE` when it does not
   * answer within `connectTimeoutMs`.
   */
  static async open(url: string, options: SharedCountersOptions = {}): Promise<SharedCounters> {
    const timeoutMs = options.connectTimeoutMs ?? 5_000;
    const { Redis } = await import('ioredis');
    const redis = new Redis(url, {
      lazyConnect: true,
      connectTimeout: timeoutMs,
      commandTimeout: timeoutMs,
      // A command while disconnected fails at once, and one cut off by a lost connection is not sent again: a
      // counter must not count a call twice.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempt) => Math.min(attempt * 50, 500),
      scripts: {
        agentSpacesAdmit: { lua: ADMIT_LUA },
        agentSpacesSeed: { lua: SEED_LUA, numberOfKeys: 1 },
        agentSpacesTake: { lua: TAKE_LUA, numberOfKeys: 1 },
      },
    });
    const counters = new SharedCounters(redis, options.prefix ?? 'agent-spaces:');
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs)));
    try {
      await Promise.race([redis.connect(), late]);
    } catch (error) {
      redis.disconnect();
      throw counters.#unavailable(error);
    } finally {
      clearTimeout(timer);
    }
    return counters;
  }

  /** The rate-limit store over these counters: windows shared by every replica using the same Redis and prefix. */
  rateLimits(): RedisRateLimitStore {
    return new RedisRateLimitStore(scripts(this.#redis), this.#prefix, (command) => this.#guard(command));
  }

  /**
   * Counts one request of `key` in its fixed window of `windowMs` (the window starts with its first request):
   * undefined while at most `limit` requests were counted in it, else the milliseconds until it resets.
   */
  async take(key: string, limit: number, windowMs: number): Promise<number | undefined> {
    const answer = await this.#guard(() => scripts(this.#redis).agentSpacesTake(`${this.#prefix}req:${key}`, limit, windowMs));
    return answer < 0 ? undefined : answer;
  }

  /** Closes the connection; later commands fail with `STORE_UNAVAILABLE`. */
  async close(): Promise<void> {
    await this.#redis.quit().catch(() => this.#redis.disconnect());
  }

  async #guard<T>(command: () => Promise<T>): Promise<T> {
    try {
      return await command();
    } catch (error) {
      throw this.#unavailable(error);
    }
  }

  #unavailable(error: unknown): AgentSpacesError {
    // While disconnected, the command's own error only says the offline queue is off: the connection's says why.
    const reason = this.#redis.status !== 'ready' && this.#lastError ? this.#lastError : error;
    const message = reason instanceof Error ? reason.message : String(reason);
    return new AgentSpacesError('STORE_UNAVAILABLE', `Redis is unavailable: ${message}`, { store: 'redis' }, { cause: error });
  }
}

/**
 * A {@link RateLimitStore} in Redis, made by {@link SharedCounters.rateLimits}: one sorted set of call times per window
 * (`<prefix>rl:<window id>`), admitted atomically over all of a call's windows by one script. Times are the callers'
 * `now` (not the Redis server's clock): replicas must share a clock, as those on one machine do.
 */
export class RedisRateLimitStore implements RateLimitStore {
  readonly #scripts: Scripts;
  readonly #prefix: string;
  readonly #guard: Guard;

  /**
   * Made by {@link SharedCounters.rateLimits}: `guard` runs each of the connection's `commands`. (No ioredis type in
   * its signature: the bridge's declarations reach agent code's typecheck, which must not see Node's types.)
   */
  constructor(commands: Scripts, prefix: string, guard: Guard) {
    this.#scripts = commands;
    this.#prefix = prefix;
    this.#guard = guard;
  }

  async admit(windows: readonly RateWindow[], now: number): Promise<Admission> {
    if (windows.length === 0) return { admitted: true };
    const keys = windows.map((w) => this.#key(w.id));
    const args = windows.flatMap((w) => [w.requests, w.periodMs, now - w.periodMs]);
    const member = `${now}:${randomBytes(8).toString('hex')}`;
    const [limiting, freedBy] = await this.#guard(() => this.#scripts.agentSpacesAdmit(keys.length, ...keys, now, member, ...args));
    if (limiting === 0) return { admitted: true };
    const window = windows[limiting - 1]!;
    return { admitted: false, window, waitMs: Number(freedBy) + window.periodMs - now };
  }

  /**
   * Counts calls admitted before the store existed in the window `id`, unless Redis holds that window already (another
   * replica seeded it or counts calls in it: the same calls must not count twice). Never throws: with Redis down, the
   * history is left out.
   */
  seed(id: string, times: readonly number[]): void {
    if (times.length === 0) return;
    const seen = new Map<number, number>();
    const pairs = times.flatMap((at) => {
      const nth = (seen.get(at) ?? 0) + 1;
      seen.set(at, nth);
      // The same call seeded by two replicas is one member.
      return [at, `seed:${at}:${nth}`];
    });
    this.#guard(() => this.#scripts.agentSpacesSeed(this.#key(id), SEED_KEEP_MS, ...pairs)).catch(() => undefined);
  }

  #key(id: string): string {
    return `${this.#prefix}rl:${id}`;
  }
}
