import type { IncomingMessage, ServerResponse } from 'node:http';
import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { ServerLog } from './log.js';

/** When {@link HttpClients} decides that a client has gone. */
export interface ClientLifecycle {
  /** How long a client whose standalone SSE stream closed may take to open another, in ms. */
  disconnectGraceMs: number;
  /** How long a client that never opened a standalone SSE stream may stay silent, in ms. */
  idleMs: number;
}

/** Defaults of {@link ClientLifecycle}: 3 s (the official SDK client retries a dropped stream after 1 s), 30 min. */
export const DEFAULT_LIFECYCLE: ClientLifecycle = { disconnectGraceMs: 3_000, idleMs: 30 * 60_000 };

/** One client (MCP session) over HTTP and what tells whether it is still there. */
interface Tracked {
  readonly transport: StreamableHTTPServerTransport;
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
 * The MCP sessions of an HTTP server and their lifecycle. A client is gone — and closed with its code-mode sessions —
 * when its standalone SSE stream (which the official SDK client opens after initializing, and which `client.close()`
 * drops without a DELETE) has closed and no other opened within the grace, or, for a client that never opened one,
 * after `idleMs` without a request. A request in flight or an open stream keeps a client, so an agent that thinks
 * between calls keeps its sessions. A later request with an ended session id learns why it ended ({@link endedReason}).
 */
export class HttpClients {
  readonly #clients = new Map<string, Tracked>();
  readonly #ended = new Map<string, string>();
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
   * `onclose`). Returns what to call once the client initialized as `id`; it is forgotten when its transport closes.
   */
  attach(transport: StreamableHTTPServerTransport): (id: string) => void {
    const tracked: Tracked = { transport, active: 0, streams: 0, streamed: false, timer: undefined, reason: undefined };
    transport.onclose = () => {
      clearTimeout(tracked.timer);
      const id = transport.sessionId;
      if (id === undefined || this.#clients.get(id) !== tracked) return;
      this.#clients.delete(id);
      this.#ended.set(id, tracked.reason ?? 'closed');
      if (this.#ended.size > MAX_ENDED) this.#ended.delete(this.#ended.keys().next().value!);
    };
    return (id) => {
      this.#clients.set(id, tracked);
      this.#schedule(tracked);
    };
  }

  /** The transport of client `id`, when it is open. */
  get(id: string): StreamableHTTPServerTransport | undefined {
    return this.#clients.get(id)?.transport;
  }

  /** Why the session `id` ended, when it did recently. */
  endedReason(id: string): string | undefined {
    return this.#ended.get(id);
  }

  /** Counts a request of client `id` as in flight until its response closes; a GET is its standalone stream. */
  track(id: string, req: IncomingMessage, res: ServerResponse): void {
    const tracked = this.#clients.get(id);
    if (!tracked) return;
    const stream = req.method === 'GET';
    if (req.method === 'DELETE') tracked.reason = 'closed by the client (DELETE)';
    if (stream) {
      tracked.streams++;
      tracked.streamed = true;
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
    const { disconnectGraceMs, idleMs } = this.#lifecycle;
    const [delay, reason] = tracked.streamed
      ? [disconnectGraceMs, `client disconnected: its event stream closed and did not reopen within ${seconds(disconnectGraceMs)}`]
      : [idleMs, `client gone: no request and no event stream for ${seconds(idleMs)}`];
    tracked.timer = setTimeout(() => {
      tracked.reason = reason;
      this.#log.event('client.reaped', { client: tracked.transport.sessionId, reason });
      void tracked.transport.close().catch(() => undefined);
    }, delay);
    tracked.timer.unref();
  }
}

function seconds(ms: number): string {
  return `${Math.round(ms / 100) / 10} s`;
}
