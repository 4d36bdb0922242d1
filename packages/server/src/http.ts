import { randomUUID } from 'node:crypto';
import { createServer as createHttpServer, type IncomingMessage, type Server as HttpServer, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalService } from '@agent-spaces/bridge';
import type { SharedCounters } from '@agent-spaces/bridge/shared';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { CONSOLE_PATH, serveConsole } from './approvals/console.js';
import { isApprovalsPath, sendError, serveApprovals } from './approvals/http.js';
import { isAssignmentPath, serveAssignments } from './assignments/http.js';
import type { ActionServerAssignments } from './assignments/service.js';
import type { AgentModesEndpoint } from './modes/http.js';
import type { AuthSettings, RateLimitSettings } from './config.js';
import { RequestGuard, credentials, requestHeader as header, type Refusal } from './auth/guard.js';
import { ResourceServer } from './auth/resource.js';
import type { TokenVerifierOptions } from './auth/verifier.js';
import { sessionTag, silentLog, type ServerLog } from './log.js';
import { PRINCIPAL_KEY, principalOf } from './connection.js';
import { BodyTooLarge, readBodyText } from './http-body.js';
import { DEFAULT_LIFECYCLE, HttpClients, type ClientLifecycle } from './http-clients.js';
import { requestLimiter, type RequestLimiter } from './http-limits.js';
import type { ReplicaRouting } from './replicas/route.js';
import { ModernEndpoint, type ModernServerFactory } from './modern/http.js';
import type { ServerStats } from './server.js';

/** Options of {@link startHttpServer}. */
export interface HttpServerOptions {
  /** Creates the MCP server of each new client of protocol 2025-11-25 (e.g. `() => host.createServer()`). */
  createServer: () => Server;
  /**
   * Creates the MCP server (SDK v2) of each request of protocol 2026-07-28 (e.g. `(auth) => host.createModernServer(auth)`),
   * given what the front door proved of its token. Without it, every request goes to the 2025-11-25 leg.
   */
  createModernServer?: ModernServerFactory;
  /** Interface to bind (default `127.0.0.1`). */
  host?: string;
  /** Port (default 8080; 0 picks a free one). */
  port?: number;
  /** Endpoint path (default `/mcp`). */
  path?: string;
  /** When set, every request must carry `Authorization: Bearer <authToken>` (401 otherwise). Not with `auth`. */
  authToken?: string;
  /**
   * Per-user identity (docs/mcp-server.md, "Per-user identity (OAuth 2.1)"): every request must carry an access token of
   * this authorization server (401 otherwise, 403 without a required scope), and the protected resource metadata is
   * served. The issuer's metadata is read before the server listens (it rejects `CONFIG_INVALID` when it cannot be).
   * Not with `authToken`.
   */
  auth?: AuthSettings;
  /** Tuning of the token verification of `auth` (clock tolerance, JWKS cooldown, cache size); defaults suit a service. */
  authTuning?: TokenVerifierOptions;
  /** `Host` header values accepted, with or without port (default: localhost names and the bound host). 403 otherwise. */
  allowedHosts?: string[];
  /** `Origin` values accepted when a request has one (default `http://<allowed host>:<port>`). 403 otherwise. */
  allowedOrigins?: string[];
  /**
   * Request budget (default 600 per 60 s) of each user with `auth` (all of a user's sessions and requests together);
   * else of each MCP session, of each principal for requests of protocol 2026-07-28 (which have no session; without a
   * token, of each address), and of each address for requests that are refused anyway (no session and not
   * `initialize`, an unknown session id); `false` turns it off. 429 beyond it. `initialize` is never
   * counted: the unused-client caps of `lifecycle` bound it.
   */
  rateLimit?: RateLimitSettings | false;
  /** Time a request's headers and body may take to arrive, in ms (default 30 s; headers: at most 10 s). 408 beyond. */
  requestTimeoutMs?: number;
  /**
   * The counts `GET /health` answers (e.g. `() => host.stats()`). Without it the endpoint counts the HTTP clients'
   * MCP sessions as `connections`, and nothing else.
   */
  stats?: () => ServerStats;
  /** Where refused requests and reaped clients are logged (`http.refused`, `client.reaped`; default: nowhere). */
  log?: ServerLog;
  /**
   * When a client counts as gone or unused and is closed with its sessions, and how many unused clients an address and
   * the server may hold (defaults: {@link DEFAULT_LIFECYCLE}).
   */
  lifecycle?: Partial<ClientLifecycle>;
  /**
   * The approval requests of the served project (e.g. `host.approvals`): with it, the server also serves the
   * `/approvals` API and the `/console` page (docs/mcp-server.md, "Approvals from anywhere"); without it, both are 404.
   */
  approvals?: ApprovalService;
  /**
   * Seed 003's agent configs: with it, the server also serves `GET /action-servers/available`,
   * `POST /agents/assign-action-server` and `POST /agents/remove-action-server` (the checks of `/approvals`).
   */
  assignments?: ActionServerAssignments;
  /** Seed 000's other agent modes (`/chat`, and `/a2a` with its agent card; docs/agents.md), behind the checks of `/approvals`. */
  agentModes?: AgentModesEndpoint;
  /** Where the rate limit counts, when the server counts in Redis (one budget across replicas); default: in memory. */
  counters?: SharedCounters;
  /**
   * With replicas (docs/deployment.md): a request for a session another live replica holds is forwarded to it, and
   * requests forwarded by a replica are served as they come (counted once, at the replica the client reached).
   */
  replicas?: ReplicaRouting;
}

/** A running HTTP server. */
export interface HttpServerHandle {
  /** The MCP endpoint, e.g. `http://127.0.0.1:8080/mcp`. */
  readonly url: string;
  readonly port: number;
  /** With `auth`: the absolute URL of the protected resource metadata (from the audience), which 401s point to. */
  readonly resourceMetadataUrl?: string;
  /** Closes every client's transport and MCP server, then the listener. */
  close(): Promise<void>;
}

const MAX_BODY_BYTES = 4 * 1024 * 1024;
/** Largest body of a POST without a session (an `initialize`): what a client that holds no session can make us read. */
const MAX_INITIALIZE_BYTES = 64 * 1024;
const DEFAULT_REQUEST_TIMEOUT_MS = 30_000;
const MAX_HEADERS_TIMEOUT_MS = 10_000;
/** Pending connections the kernel may queue for us (capped by `net.core.somaxconn`), so a burst is not refused. */
const LISTEN_BACKLOG = 4096;
const DEFAULT_RATE_LIMIT: RateLimitSettings = { requests: 600, windowSeconds: 60 };
const HEALTH_PATH = '/health';
/** What the MCP endpoint serves (the Streamable HTTP transport's methods); anything else is 405 with this as `Allow`. */
const MCP_METHODS = ['GET', 'POST', 'DELETE'];
const PARSE_ERROR = -32700;

/**
 * Serves MCP over Streamable HTTP with node:http: protocol 2025-11-25 with one transport and one MCP server per client
 * session, and — with `createModernServer` — protocol 2026-07-28, sessionless, with one MCP server per request. Each
 * request is checked in order: path (404), `Host` and `Origin` against DNS rebinding (403), bearer token (401), method
 * (405), media type of a POST (415), body size (413: over 4 MiB, or 64 KiB for a 2025 request without a session), JSON
 * (400, a JSON-RPC parse error), then the rate limit (429) of its user (with `auth`), else of its MCP session, of its
 * principal for a 2026-07-28 request, or of its address for a 2025 request without a session that is not `initialize`.
 * With `auth` the token is an access token of its issuer (401 `invalid_token`, 403 `insufficient_scope`), an MCP
 * session answers only the principal that initialized it (404 to anyone else), and the protected resource metadata is
 * served at `/.well-known/oauth-protected-resource` (also suffixed with the endpoint path; Host checked, no token). `initialize` is never
 * refused for its address: clients that never use their session are freed instead ({@link HttpClients}), so one local
 * process cannot lock out the others. `GET /health` skips these checks and answers counts only. With `approvals`,
 * `/approvals` (the same checks) and `/console` (no token) are served too; with `assignments`, seed 003's assignment routes (the same checks).
 */
export async function startHttpServer(options: HttpServerOptions): Promise<HttpServerHandle> {
  const bindHost = options.host ?? '127.0.0.1';
  const path = options.path ?? '/mcp';
  const log = options.log ?? silentLog;
  if (options.auth && options.authToken !== undefined) {
    throw new AgentSpacesError('CONFIG_INVALID', 'server.auth and a shared bearer token (--auth-token, $AGENT_SPACES_MCP_TOKEN) exclude each other: use one', { key: 'server.auth' });
  }
  const resource = options.auth ? await ResourceServer.create(options.auth, path, options.authTuning) : undefined;
  const clients = new HttpClients({ ...DEFAULT_LIFECYCLE, ...options.lifecycle }, log);
  const limiter = requestLimiter(options.rateLimit ?? DEFAULT_RATE_LIMIT, options.counters);
  const modern = options.createModernServer ? new ModernEndpoint(options.createModernServer, MAX_BODY_BYTES) : undefined;
  const endpoint: Endpoint = { clients, limiter, createServer: options.createServer, modern, replicas: options.replicas };
  let guard: RequestGuard | undefined;

  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  const timeouts = { requestTimeout, headersTimeout: Math.min(requestTimeout, MAX_HEADERS_TIMEOUT_MS), connectionsCheckingInterval: 1_000, keepAliveTimeout: 65_000 };
  const listener = createHttpServer(timeouts, (req, res) => {
    heard(req.socket);
    res.once('finish', () => logRefusal(log, req, res));
    handle(req, res).catch((error: unknown) => {
      if (res.headersSent) res.end();
      else if (error instanceof BodyTooLarge) reject(res, 413, error.message);
      else if (error instanceof ParseError) reject(res, 400, error.message, PARSE_ERROR);
      else if (error instanceof AgentSpacesError && error.code === 'STORE_UNAVAILABLE') reject(res, 503, error.message, -32000, { code: error.code, ...error.data });
      else reject(res, 500, `Internal error: ${error instanceof Error ? error.message : String(error)}`);
    });
  });
  const heard = closeSilentSockets(listener, timeouts.headersTimeout);

  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const pathname = new URL(req.url ?? '/', 'http://localhost').pathname;
    if (pathname === HEALTH_PATH && pathname !== path) return health(req, res, () => options.stats?.() ?? { connections: clients.size });
    if (resource?.metadataPaths.has(pathname) && pathname !== path) return serveMetadata(resource, guard!, req, res);
    if (pathname !== path && options.approvals && (pathname === CONSOLE_PATH || isApprovalsPath(pathname))) {
      return serveApprovalDesk({ service: options.approvals, guard: guard!, limiter }, req, res, pathname);
    }
    if (pathname !== path && options.assignments && isAssignmentPath(pathname)) {
      const desk = { guard: guard!, limiter };
      if (await deskRefused(desk, req, res, 'assignments')) return;
      return serveAssignments(options.assignments, req, res, pathname);
    }
    if (pathname !== path && options.agentModes?.handles(pathname)) {
      if (await deskRefused({ guard: guard!, limiter }, req, res, 'agents')) return;
      return options.agentModes.serve(req, res, pathname, credentials(req));
    }
    if (pathname !== path) return reject(res, 404, `Not found: the MCP endpoint is ${path}`);
    const refusal = await guard!.check(req);
    if (refusal) return refuse(res, refusal);
    if (!MCP_METHODS.includes(req.method ?? '')) {
      res.setHeader('Allow', MCP_METHODS.join(', '));
      return reject(res, 405, `Method not allowed: ${req.method} (the MCP endpoint takes ${MCP_METHODS.join(', ')})`);
    }
    return serveMcp(endpoint, req, res);
  }

  await new Promise<void>((resolveListen, rejectListen) => {
    listener.once('error', rejectListen);
    listener.listen({ port: options.port ?? 8080, host: bindHost, backlog: LISTEN_BACKLOG }, () => resolveListen());
  });
  const { port } = listener.address() as AddressInfo;
  guard = new RequestGuard(bindHost, port, { ...options, resource });
  const shownHost = bindHost.includes(':') ? `[${bindHost}]` : bindHost;

  return {
    url: `http://${shownHost}:${port}${path}`,
    port,
    ...(resource ? { resourceMetadataUrl: resource.metadataUrl } : {}),
    async close() {
      await modern?.close();
      await clients.closeAll();
      await new Promise<void>((done) => {
        listener.close(() => done());
        listener.closeAllConnections();
      });
    },
  };
}

/** What the MCP endpoint of one listener serves requests with. */
interface Endpoint {
  readonly clients: HttpClients;
  readonly limiter: RequestLimiter | undefined;
  readonly createServer: () => Server;
  /** The 2026-07-28 leg, when the server speaks it. */
  readonly modern: ModernEndpoint | undefined;
  /** Forwarding to the replica that holds a session, with replicas. */
  readonly replicas: ReplicaRouting | undefined;
}

/**
 * Serves one request that passed the checks of the door (up to its method): a POST must be JSON (415) within the body
 * cap (413) and parse (400). Then the SDK's own predicate sends it to the 2025-11-25 leg ({@link serveLegacy}) or the
 * 2026-07-28 one ({@link serveModern}).
 */
async function serveMcp(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (req.method === 'POST' && !isJsonMediaType(header(req, 'content-type'))) {
    return reject(res, 415, 'Unsupported Media Type: the request body must be application/json');
  }
  const text = req.method === 'POST' ? await readBodyText(req, MAX_BODY_BYTES) : undefined;
  const body = text === undefined ? undefined : parseJson(text);
  if (endpoint.modern && !(await endpoint.modern.isLegacy(req, text, body))) return serveModern(endpoint, endpoint.modern, req, res, text, body);
  return serveLegacy(endpoint, req, res, text, body);
}

/**
 * Serves one request of protocol 2025-11-25: to its client's transport when it names a live MCP session of the
 * request's principal (within the budget, {@link budgetKey}; another principal's session is 404, as if unknown), else as a new client when it is `initialize` (64 KiB at most; never counted: unused clients are
 * bounded by {@link HttpClients}), else refused — within its address's budget — with 400 or 404.
 */
async function serveLegacy(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, text: string | undefined, body: unknown): Promise<void> {
  const { clients, limiter, replicas } = endpoint;
  const sessionId = header(req, 'mcp-session-id');
  const known = sessionId ? clients.get(sessionId) : undefined;
  const principal = principalOf(credentials(req)).id;
  if (known) {
    if (!replicas?.forwarded(req) && (await throttled(limiter, res, budgetKey(req, `session:${sessionId}`)))) return;
    if (clients.ownerOf(sessionId!) !== principal) {
      // Answered as unknown, so that its existence is not revealed; logged (http.refused) as what it is.
      reject(res, 404, 'Unknown MCP session: initialize a new one');
      return void refusals.set(res, `MCP session of another principal (asked by ${principal})`);
    }
    clients.track(sessionId!, req, res);
    return known.handleRequest(req, res, body);
  }
  if (sessionId && replicas && (await heldByPeer(endpoint, req, res, text, sessionId))) return;
  const address = req.socket.remoteAddress ?? 'unknown';
  if (sessionId || text === undefined) {
    if (await throttled(limiter, res, budgetKey(req, `address:${address}`))) return;
    if (!sessionId) return reject(res, 400, 'Missing mcp-session-id header');
    const reason = clients.endedReason(sessionId);
    if (reason) return reject(res, 404, `This MCP session has ended: ${reason}; initialize a new one`, -32000, { reason });
    return reject(res, 404, 'Unknown MCP session: initialize a new one');
  }
  if (Buffer.byteLength(text) > MAX_INITIALIZE_BYTES) throw new BodyTooLarge(`Payload too large: the request body is over ${MAX_INITIALIZE_BYTES} bytes`);
  if (!isInitializeRequest(body)) {
    if (await throttled(limiter, res, budgetKey(req, `address:${address}`))) return;
    return reject(res, 400, 'Missing mcp-session-id header (only an initialize request may start a session)');
  }
  // With replicas, the session is on record as this replica's before its id reaches the client.
  const newId = randomUUID();
  await replicas?.holdTransport(newId);
  let initialized: (id: string) => void = () => undefined;
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => newId, onsessioninitialized: (id) => initialized(id) });
  initialized = clients.attach(transport, address, principal);
  await endpoint.createServer().connect(transport);
  await transport.handleRequest(req, res, body);
}

/**
 * Forwards a request of transport session `sessionId`, which this replica does not hold, to the live replica that
 * does — within the session's budget, counted here once. False when no live replica holds it.
 */
async function heldByPeer(endpoint: Endpoint, req: IncomingMessage, res: ServerResponse, text: string | undefined, sessionId: string): Promise<boolean> {
  const replicas = endpoint.replicas!;
  const peer = replicas.forwarded(req) ? undefined : await replicas.transportPeer(sessionId);
  if (peer === undefined) return false;
  if (await throttled(endpoint.limiter, res, budgetKey(req, `session:${sessionId}`))) return true;
  return replicas.forward(req, res, text, peer);
}

/**
 * Serves one request of protocol 2026-07-28, within the budget of its principal (of its address when it has no token:
 * every local client is the principal `local`). It opens no MCP session: the SDK v2 serves it with a server of its own.
 * With replicas, a request naming a REPL session another live replica holds is forwarded there.
 */
async function serveModern(endpoint: Endpoint, modern: ModernEndpoint, req: IncomingMessage, res: ServerResponse, text: string | undefined, body: unknown): Promise<void> {
  const authInfo = credentials(req);
  const principal = principalOf(authInfo).id;
  const key = authInfo ? `principal:${principal}` : `principal:${principal}@${req.socket.remoteAddress ?? 'unknown'}`;
  const { replicas } = endpoint;
  const forwarded = replicas?.forwarded(req) === true;
  if (!forwarded && (await throttled(endpoint.limiter, res, key))) return;
  const peer = replicas && !forwarded ? await replicas.sessionPeer(body) : undefined;
  if (peer !== undefined && (await replicas!.forward(req, res, text, peer))) return;
  return modern.serve(req, res, text, body, authInfo);
}

/**
 * Serves the console page (Host and Origin checked, no token: it holds no data) or the `/approvals` API (the checks
 * of the MCP endpoint: Host, Origin, token; then the address's rate limit), with the API's JSON errors.
 */
async function serveApprovalDesk(
  desk: { service: ApprovalService; guard: RequestGuard; limiter: RequestLimiter | undefined },
  req: IncomingMessage,
  res: ServerResponse,
  pathname: string,
): Promise<void> {
  if (pathname === CONSOLE_PATH) {
    const refusal = await desk.guard.check(req, false);
    return refusal ? deskRefusal(res, refusal) : serveConsole(req, res);
  }
  if (await deskRefused(desk, req, res, 'approvals')) return;
  return serveApprovals(desk.service, req, res, pathname);
}

/**
 * The door of a JSON API beside the MCP endpoint (`/approvals`, the assignment routes): Host, Origin and token checked
 * as for the MCP endpoint, then the rate limit of the request's user (with `auth`) or of `<api>:<address>`. Answers the
 * refusal as the APIs' JSON error and returns true when the request may not proceed.
 */
async function deskRefused(desk: { guard: RequestGuard; limiter: RequestLimiter | undefined }, req: IncomingMessage, res: ServerResponse, api: string): Promise<boolean> {
  const refusal = await desk.guard.check(req);
  if (refusal) {
    deskRefusal(res, refusal);
    return true;
  }
  const wait = await desk.limiter?.take(budgetKey(req, `${api}:${req.socket.remoteAddress ?? 'unknown'}`));
  if (wait === undefined) return false;
  res.setHeader('Retry-After', String(Math.ceil(wait / 1000)));
  sendError(res, 429, { code: 'RATE_LIMITED', message: 'Too many requests: rate limit reached', data: { retryAfterMs: wait } });
  return true;
}

/** Answers a refusal of the {@link RequestGuard} as the JSON APIs' error, with its challenge. */
function deskRefusal(res: ServerResponse, refusal: Refusal): void {
  refusals.set(res, refusal.message);
  if (refusal.challenge) res.setHeader('WWW-Authenticate', refusal.challenge);
  sendError(res, refusal.status, { code: refusal.code, message: refusal.message, data: { status: refusal.status } });
}

/**
 * The rate-limit key of a request: `principal:<id>` for a user an access token proved (one budget for all of a user's
 * sessions and requests, on both protocol legs), else `otherwise`.
 */
function budgetKey(req: IncomingMessage, otherwise: string): string {
  const authInfo = credentials(req);
  return authInfo?.extra?.[PRINCIPAL_KEY] ? `principal:${principalOf(authInfo).id}` : otherwise;
}

/**
 * Answers the protected resource metadata (RFC 9728) to a GET or HEAD whose `Host` and `Origin` are allowed: no token
 * (a client reads it to learn where to get one), no rate limit (it holds nothing but the public configuration).
 */
async function serveMetadata(resource: ResourceServer, guard: RequestGuard, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const refusal = guard.checkOrigin(req);
  if (refusal) return refuse(res, refusal);
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return reject(res, 405, `Method not allowed: ${req.method} (the resource metadata takes GET, HEAD)`);
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'max-age=300' });
  res.end(req.method === 'HEAD' ? undefined : JSON.stringify(resource.metadata()));
}

/** Counts a request against `key`'s budget; answers 429 with `Retry-After` and returns true when it is spent. */
async function throttled(limiter: RequestLimiter | undefined, res: ServerResponse, key: string): Promise<boolean> {
  const wait = await limiter?.take(key);
  if (wait === undefined) return false;
  res.setHeader('Retry-After', String(Math.ceil(wait / 1000)));
  reject(res, 429, 'Too many requests: rate limit reached');
  return true;
}

/**
 * Counts only, for probes and monitoring: no token (a probe has none), no Host check (a probe may use any address),
 * no rate limit — so it must never reveal more than numbers.
 */
function health(req: IncomingMessage, res: ServerResponse, counts: () => object): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    return reject(res, 405, `Method not allowed: ${req.method} (${HEALTH_PATH} takes GET, HEAD)`);
  }
  res.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify({ status: 'ok', ...counts() }));
}

/** Logs a response of status 400 or more as `http.refused`, naming its MCP session by its tag only. */
function logRefusal(log: ServerLog, req: IncomingMessage, res: ServerResponse): void {
  if (res.statusCode < 400) return;
  const session = header(req, 'mcp-session-id');
  const fields = { status: res.statusCode, why: refusals.get(res), method: req.method, path: req.url?.split('?')[0], session: session && sessionTag(session) };
  log.event('http.refused', fields, res.statusCode >= 500 ? 'error' : 'warn');
}

/**
 * Closes a connection of `listener` that sends no request within `ms` (node's own header and request timeouts start
 * only at a request's first byte). Returns what to call with a connection once it sent one.
 */
function closeSilentSockets(listener: HttpServer, ms: number): (socket: Socket) => void {
  const timers = new WeakMap<Socket, NodeJS.Timeout>();
  listener.on('connection', (socket: Socket) => {
    const timer = setTimeout(() => socket.destroy(), ms).unref();
    timers.set(socket, timer);
    socket.once('close', () => clearTimeout(timer));
  });
  return (socket) => clearTimeout(timers.get(socket));
}

class ParseError extends Error {}

/** Why each response refused its request, when it was refused here (the log's `why`). */
const refusals = new WeakMap<ServerResponse, string>();

/** Answers a refusal of the {@link RequestGuard}, with its `WWW-Authenticate` challenge (and `data.code`) when it has one. */
function refuse(res: ServerResponse, refusal: Refusal): void {
  if (refusal.challenge) res.setHeader('WWW-Authenticate', refusal.challenge);
  reject(res, refusal.status, refusal.message, -32000, refusal.challenge || refusal.status === 503 ? { code: refusal.code } : undefined);
}

/** Answers a JSON-RPC error without an id: `-32000` (server error) unless `code` says otherwise. */
function reject(res: ServerResponse, status: number, message: string, code = -32000, data?: Record<string, unknown>): void {
  refusals.set(res, message);
  if (status === 401 && !res.hasHeader('WWW-Authenticate')) res.setHeader('WWW-Authenticate', 'Bearer realm="agent-spaces"');
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code, message, ...(data ? { data } : {}) }, id: null }));
}

/** Whether a `Content-Type` names JSON (`application/json`, parameters aside). */
function isJsonMediaType(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

/** The JSON of a POST body. Throws {@link ParseError} for an empty or unparsable body. */
function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new ParseError(`Parse error: the request body is not JSON${text === '' ? ' (it is empty)' : ''}`);
  }
}
