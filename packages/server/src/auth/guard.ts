import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { ResourceServer } from './resource.js';

const LOCAL_HOSTS = ['127.0.0.1', 'localhost', '[::1]'];

/**
 * Why the front door refuses a request: its HTTP status, the error code the `/approvals` API answers with
 * (`UNAUTHORIZED` for a 401 and for a `Host`/`Origin` refused, `FORBIDDEN` for a missing scope, `ISSUER_UNAVAILABLE` when the
 * issuer's keys cannot be fetched), the message, and the `WWW-Authenticate` challenge of a 401/403 with `server.auth`.
 */
export interface Refusal {
  status: 401 | 403 | 503;
  code: 'UNAUTHORIZED' | 'FORBIDDEN' | 'ISSUER_UNAVAILABLE';
  message: string;
  challenge?: string;
}

/** What a {@link RequestGuard} checks requests against. */
export interface GuardSettings {
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** The shared bearer token (`--auth-token`), when the server has one. */
  authToken?: string;
  /** The OAuth resource server (`server.auth`), when the server has one (never with `authToken`). */
  resource?: ResourceServer;
}

/**
 * The DNS-rebinding and token checks of one listener: `Host` and `Origin` against the allowed ones, then the bearer
 * token — the shared one (compared in constant time) or an access token of `server.auth` (verified by the
 * {@link ResourceServer}, once per request). A request that passes carries what its token proved as `req.auth`, the
 * SDK's place for it: its transports hand it to the MCP server as `authInfo` ({@link credentials}).
 */
export class RequestGuard {
  readonly #hosts: string[];
  readonly #origins: Set<string>;
  readonly #token: Buffer | undefined;
  readonly #resource: ResourceServer | undefined;

  constructor(bindHost: string, port: number, settings: GuardSettings) {
    const bound = bindHost.includes(':') ? `[${bindHost}]` : bindHost;
    const defaults = [...new Set([...LOCAL_HOSTS, ...(bindHost === '0.0.0.0' || bindHost === '::' ? [] : [bound])])];
    this.#hosts = (settings.allowedHosts ?? defaults).map((h) => h.toLowerCase());
    const originHosts = this.#hosts.map((h) => (/:\d+$/.test(h) ? h : `${h}:${port}`));
    this.#origins = new Set((settings.allowedOrigins ?? originHosts.map((h) => `http://${h}`)).map((o) => o.toLowerCase()));
    this.#token = settings.authToken === undefined ? undefined : digest(settings.authToken);
    this.#resource = settings.resource;
  }

  /**
   * Why the request's `Host` or `Origin` is refused (DNS rebinding protection), or undefined when both are allowed; the
   * message names the config key that would allow it (`server.allowedHosts`, `server.allowedOrigins`).
   */
  checkOrigin(req: IncomingMessage): Refusal | undefined {
    const host = (requestHeader(req, 'host') ?? '').toLowerCase();
    if (!this.#hosts.includes(host) && !this.#hosts.includes(hostname(host))) {
      const message = `Forbidden: Host "${host}" is not allowed (DNS rebinding protection); to serve it, add "${hostname(host)}" to server.allowedHosts in the config file`;
      return { status: 403, code: 'UNAUTHORIZED', message };
    }
    const origin = requestHeader(req, 'origin');
    if (origin !== undefined && !this.#origins.has(origin.toLowerCase())) {
      const message = `Forbidden: Origin "${origin}" is not allowed (DNS rebinding protection); to accept it, add it to server.allowedOrigins in the config file`;
      return { status: 403, code: 'UNAUTHORIZED', message };
    }
    return undefined;
  }

  /** Why the request is refused (its token checked unless `token` is false), or undefined when it may proceed. */
  async check(req: IncomingMessage, token = true): Promise<Refusal | undefined> {
    const refused = this.checkOrigin(req);
    if (refused || !token) return refused;
    const authorization = requestHeader(req, 'authorization');
    if (this.#resource) {
      const outcome = await this.#resource.authenticate(authorization);
      if (outcome.kind === 'refused') {
        const code = outcome.status === 403 ? 'FORBIDDEN' : outcome.status === 503 ? 'ISSUER_UNAVAILABLE' : 'UNAUTHORIZED';
        return { status: outcome.status, code, message: outcome.message, ...(outcome.challenge ? { challenge: outcome.challenge } : {}) };
      }
      (req as AuthenticatedRequest).auth = outcome.authInfo;
    } else if (this.#token) {
      const match = /^Bearer\s+(.+)$/i.exec(authorization ?? '');
      if (!match || !timingSafeEqual(digest(match[1]!), this.#token)) return { status: 401, code: 'UNAUTHORIZED', message: 'Unauthorized: a valid bearer token is required' };
      (req as AuthenticatedRequest).auth = { token: match[1]!, clientId: 'bearer', scopes: [] };
    }
    return undefined;
  }
}

/** A request whose bearer token the {@link RequestGuard} proved. */
type AuthenticatedRequest = IncomingMessage & { auth?: AuthInfo };

/** What the {@link RequestGuard} proved of the request's token, if anything. */
export function credentials(req: IncomingMessage): AuthInfo | undefined {
  return (req as AuthenticatedRequest).auth;
}

/** The first value of header `name` of `req`. */
export function requestHeader(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function hostname(host: string): string {
  return host.startsWith('[') ? host.slice(0, host.indexOf(']') + 1) : host.split(':')[0]!;
}

function digest(text: string): Buffer {
  return createHash('sha256').update(text).digest();
}
