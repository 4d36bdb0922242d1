import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { sessionTag, type ServerLog } from './log.js';

/** When {@link HttpClients} decides that a client has gone. */
export interface ClientLifecycle {
  /** How long a client whose standalone SSE stream closed may take to open another, in ms. */
  disconnectGraceMs: number;
  /** How long a client that never opened a standalone SSE stream may stay silent, in ms. */
  idleMs: number;
  /** How long a client may stay unused — no request with its session id after its `initialize` — in ms. */
  unusedMs: number;
  /** Most unused clients of one address: one more frees the address's oldest that is past {@link unusedGraceMs}. */
  maxUnusedPerAddress: number;
  /**
   * How long a client that just initialized is never freed for its address's cap (the server's cap still holds): time
   * for a client that joins during another process's flood of `initialize` to send its next request.
   */
  unusedGraceMs: number;
  /** Most unused clients of all addresses together: one more frees the oldest. */
  maxUnused: number;
}

/**
 * Defaults of {@link ClientLifecycle}: a grace of 3 s (the official SDK client retries a dropped stream after 1 s), an
 * idle time of 30 min; an unused client lives 30 s, at most 128 of one address (past its first 2 s) and 1,024 in all
 * (≈ 20 KiB each).
 */
export const DEFAULT_LIFECYCLE: ClientLifecycle = {
  disconnectGraceMs: 3_000,
  idleMs: 30 * 60_000,
  unusedMs: 30_000,
  maxUnusedPerAddress: 128,
  unusedGraceMs: 2_000,
  maxUnused: 1_024,
};

/** One client (MCP session) over HTTP and what tells whether it is still there. */
interface Tracked {
  readonly transport: StreamableHTTPServerTransport;
  /** The address it initialized from. */
  readonly address: string;
  /** The id of the principal that initialized it: the only one its session id answers. */
  readonly owner: string;
  /** When it initialized (`performance.now()`). */
  readonly since: number;
  /** Whether it sent a request with its session id yet; until then it is one of its address's unused clients. */
  used: boolean;
  /** Requests being answered now (a long tool call keeps its client). */
  active: number;
  /** Standalone SSE streams (GET) open now. */
  streams: number;
  /** Whether it ever opened one: then the stream closing means it left; else silence does. */
  streamed: boolean;
  timer: NodeJS.Timeout | undefined;
  /** Why it is being closed, once it is. */
  reason: string | undefined;
}

/** Ended sessions whose reason is kept for a later request. */
const MAX_ENDED = 1_000;
/**
 * How often an open event stream that carries nothing gets an SSE comment: a proxy or load balancer in front (HAProxy,
 * nginx) notices that its client went away only when it writes to it, and would keep the stream — and the client's
 * sessions — open until its own timeout. The comment also keeps proxies' idle timeouts from cutting a quiet stream.
 */
const STREAM_HEARTBEAT_MS = 10_000;


/**
 * The MCP sessions of an HTTP server and their lifecycle. A client that never sends a request with its session id
 * after `initialize` is unused: it is freed after `unusedMs`, and when its address (or the server) holds more unused
 * clients than allowed the oldest is freed, so one process's flood of `initialize` requests costs bounded memory and
 * never locks out a client of the same address that goes on to use its session. A client is gone — and closed with its code-mode sessions —
 * when its standalone SSE stream (which the official SDK client opens after initializing, and which `client.close()`
 * drops without a DELETE) has closed and no other opened within the grace, or, for a client that never opened one,
 * after `idleMs` without a request. A request in flight or an open stream keeps a client, so an agent that thinks
 * between calls keeps its sessions. A later request with an ended session id learns why it ended ({@link endedReason}).
 */
export class HttpClients {
  readonly #clients = new Map<string, Tracked>();
  readonly #ended = new Map<string, string>();
  /** Unused clients, oldest first: all of them, and those of each address. */
  readonly #unused = new Set<Tracked>();
  readonly #unusedOf = new Map<string, Set<Tracked>>();
  readonly #lifecycle: ClientLifecycle;
  readonly #log: ServerLog;

  constructor(lifecycle: ClientLifecycle, log: ServerLog) {
    this.#lifecycle = lifecycle;
    this.#log = log;
  }

  /** Open MCP sessions. */
  get size(): number {
    return this.#clients.size;
  }

  /**
   * Watches a new client's transport: call it before connecting the transport to its MCP server (which chains this
   * `onclose`). Returns what to call once the client initialized as `id` from `address` for the principal `owner`; it
   * is forgotten when its transport closes.
   */
  attach(transport: StreamableHTTPServerTransport, address: string, owner: string): (id: string) => void {
    const tracked: Tracked = { transport, address, owner, since: performance.now(), used: false, active: 0, streams: 0, streamed: false, timer: undefined, reason: undefined };
    transport.onclose = () => {
      clearTimeout(tracked.timer);
      this.#forgetUnused(tracked);
      const id = transport.sessionId;
      if (id === undefined || this.#clients.get(id) !== tracked) return;
      this.#clients.delete(id);
      this.#ended.set(id, tracked.reason ?? 'closed');
      if (this.#ended.size > MAX_ENDED) this.#ended.delete(this.#ended.keys().next().value!);
    };
    return (id) => {
      this.#clients.set(id, tracked);
      this.#addUnused(tracked);
      this.#schedule(tracked);
    };
  }

  /** The transport of client `id`, when it is open. */
  get(id: string): StreamableHTTPServerTransport | undefined {
    return this.#clients.get(id)?.transport;
  }

  /** The id of the principal that initialized client `id`, when it is open. */
  ownerOf(id: string): string | undefined {
    return this.#clients.get(id)?.owner;
  }

  /** Why the session `id` ended, when it did recently. */
  endedReason(id: string): string | undefined {
    return this.#ended.get(id);
  }

  /** Counts a request of client `id` as in flight until its response closes; a GET is its standalone stream. */
  track(id: string, req: IncomingMessage, res: ServerResponse): void {
    const tracked = this.#clients.get(id);
    if (!tracked) return;
    tracked.used = true;
    this.#forgetUnused(tracked);
    const stream = req.method === 'GET';
    if (req.method === 'DELETE') tracked.reason = 'closed by the client (DELETE)';
    if (stream) {
      tracked.streams++;
      tracked.streamed = true;
      heartbeat(res);
    } else {
      tracked.active++;
    }
    clearTimeout(tracked.timer);
    res.once('close', () => {
      if (stream) tracked.streams--;
      else tracked.active--;
      this.#schedule(tracked);
    });
  }

  /** Closes every client's transport (and so its MCP server). */
  async closeAll(): Promise<void> {
    const all = [...this.#clients.values()];
    for (const tracked of all) tracked.reason = 'server stopped';
    await Promise.all(all.map((t) => t.transport.close().catch(() => undefined)));
  }

  #schedule(tracked: Tracked): void {
    clearTimeout(tracked.timer);
    if (tracked.active > 0 || tracked.streams > 0 || tracked.reason) return;
    const { disconnectGraceMs, idleMs, unusedMs } = this.#lifecycle;
    const [delay, reason] = !tracked.used
      ? [unusedMs, `unused: no request within ${seconds(unusedMs)} of initializing`]
      : tracked.streamed
        ? [disconnectGraceMs, `client disconnected: its event stream closed and did not reopen within ${seconds(disconnectGraceMs)}`]
        : [idleMs, `client gone: no request and no event stream for ${seconds(idleMs)}`];
    tracked.timer = setTimeout(() => this.#free(tracked, reason), delay);
    tracked.timer.unref();
  }

  /**
   * Counts a client that just initialized as unused, freeing the oldest unused ones past the caps: past its address's
   * only those past the grace (`unusedGraceMs`), past the server's any.
   */
  #addUnused(tracked: Tracked): void {
    const { maxUnusedPerAddress, unusedGraceMs, maxUnused } = this.#lifecycle;
    let ofAddress = this.#unusedOf.get(tracked.address);
    if (!ofAddress) this.#unusedOf.set(tracked.address, (ofAddress = new Set()));
    ofAddress.add(tracked);
    this.#unused.add(tracked);
    while (ofAddress.size > maxUnusedPerAddress && performance.now() - first(ofAddress).since >= unusedGraceMs) {
      this.#free(first(ofAddress), `unused: freed for a newer client of its address (at most ${maxUnusedPerAddress} unused clients an address)`);
    }
    while (this.#unused.size > maxUnused) {
      this.#free(first(this.#unused), `unused: freed for a newer client (at most ${maxUnused} unused clients)`);
    }
  }

  #forgetUnused(tracked: Tracked): void {
    this.#unused.delete(tracked);
    const ofAddress = this.#unusedOf.get(tracked.address);
    ofAddress?.delete(tracked);
    if (ofAddress?.size === 0) this.#unusedOf.delete(tracked.address);
  }

  /** Closes a client (and so its MCP server and sessions); a later request with its id learns `reason`. */
  #free(tracked: Tracked, reason: string): void {
    clearTimeout(tracked.timer);
    this.#forgetUnused(tracked);
    tracked.reason = reason;
    const id = tracked.transport.sessionId;
    this.#log.event('client.reaped', { client: id === undefined ? undefined : sessionTag(id), reason });
    void tracked.transport.close().catch(() => undefined);
  }
}

function first<T>(items: Set<T>): T {
  return items.values().next().value as T;
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}

/**
 * Writes an SSE comment on `res`, the answer to a client's GET (its event stream), every {@link STREAM_HEARTBEAT_MS}
 * once its headers are out, until it ends (a GET the transport refuses is answered and ended at once).
 */
function heartbeat(res: ServerResponse): void {
  const timer = setInterval(() => {
    if (res.headersSent && !res.writableEnded) res.write(': keepalive\n\n');
  }, STREAM_HEARTBEAT_MS);
  timer.unref();
  res.once('close', () => clearInterval(timer));
}
