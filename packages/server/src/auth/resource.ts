import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { AuthSettings } from '../config.js';
import { PRINCIPAL_KEY } from '../connection.js';
import { KeysUnavailable, TokenRefused, TokenVerifier, type TokenVerifierOptions } from './verifier.js';

/** The well-known path of protected resource metadata (RFC 9728 §3). */
const RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/**
 * What the resource server made of a request's `Authorization`: proven (the SDK's `AuthInfo`, whose `extra` holds the
 * principal under {@link PRINCIPAL_KEY}), or refused — 401 (no token, or one that does not verify), 403 (a valid token
 * lacking a required scope), 503 (the issuer's keys could not be fetched) — with the `WWW-Authenticate` to answer.
 */
export type Authentication =
  | { kind: 'proven'; authInfo: AuthInfo }
  | { kind: 'refused'; status: 401 | 403 | 503; message: string; challenge?: string };

/**
 * The OAuth 2.1 resource server of the HTTP front door (`server.auth`): it checks each request's bearer token with a
 * {@link TokenVerifier} and the required scopes, builds the `WWW-Authenticate` challenges that point clients to its
 * protected resource metadata, and serves that document (RFC 9728) at {@link metadataPaths}.
 */
export class ResourceServer {
  /** The absolute URL of the metadata, from the audience: `<origin>/.well-known/oauth-protected-resource<path>`. */
  readonly metadataUrl: string;
  /** The paths this server answers the metadata at: the bare well-known path, and it suffixed with the MCP path and the audience's path. */
  readonly metadataPaths: ReadonlySet<string>;
  readonly #settings: AuthSettings;
  readonly #verifier: TokenVerifier;
  readonly #required: readonly string[];

  private constructor(settings: AuthSettings, verifier: TokenVerifier, mcpPath: string) {
    this.#settings = settings;
    this.#verifier = verifier;
    this.#required = settings.scopes ?? [];
    const audience = new URL(settings.audience);
    const audiencePath = audience.pathname === '/' ? '' : audience.pathname;
    this.metadataUrl = `${audience.origin}${RESOURCE_METADATA_PATH}${audiencePath}`;
    this.metadataPaths = new Set([RESOURCE_METADATA_PATH, `${RESOURCE_METADATA_PATH}${mcpPath}`, `${RESOURCE_METADATA_PATH}${audiencePath}`]);
  }

  /** The resource server of `settings` for the MCP endpoint `mcpPath`; rejects as {@link TokenVerifier.create} does. */
  static async create(settings: AuthSettings, mcpPath: string, options?: TokenVerifierOptions): Promise<ResourceServer> {
    return new ResourceServer(settings, await TokenVerifier.create(settings, options), mcpPath);
  }

  /** The protected resource metadata document (RFC 9728 §2). */
  metadata(): Record<string, unknown> {
    return {
      resource: this.#settings.audience,
      authorization_servers: [this.#settings.issuer],
      ...(this.#required.length > 0 ? { scopes_supported: this.#required } : {}),
      bearer_methods_supported: ['header'],
      resource_name: 'agent-spaces',
    };
  }

  /** Checks the `Authorization` header of a request: its bearer token verified once, then the required scopes. */
  async authenticate(authorization: string | undefined): Promise<Authentication> {
    const token = /^Bearer +([^\s]+)\s*$/i.exec(authorization ?? '')?.[1];
    if (token === undefined) {
      return { kind: 'refused', status: 401, message: 'Unauthorized: an access token is required', challenge: this.#challenge({}) };
    }
    let verified;
    try {
      verified = await this.#verifier.verify(token);
    } catch (error) {
      if (error instanceof KeysUnavailable) return { kind: 'refused', status: 503, message: `Service unavailable: ${error.message}` };
      if (!(error instanceof TokenRefused)) throw error;
      const challenge = this.#challenge({ error: 'invalid_token', error_description: error.message });
      return { kind: 'refused', status: 401, message: `Unauthorized: ${error.message}`, challenge };
    }
    const { principal, expiresAt } = verified;
    const missing = this.#required.filter((scope) => !principal.scopes.includes(scope));
    if (missing.length > 0) {
      const challenge = this.#challenge({ error: 'insufficient_scope', scope: this.#required.join(' '), error_description: `missing scope ${missing.join(' ')}` });
      return { kind: 'refused', status: 403, message: `Forbidden: the token lacks the scope ${missing.join(' ')} (server.auth.scopes requires it)`, challenge };
    }
    const authInfo: AuthInfo = { token, clientId: principal.clientId ?? '', scopes: [...principal.scopes], expiresAt, extra: { [PRINCIPAL_KEY]: principal } };
    return { kind: 'proven', authInfo };
  }

  /** A `Bearer` challenge with `params` (quotes and backslashes in values replaced) and the metadata URL. */
  #challenge(params: Record<string, string>): string {
    const scope = params.scope === undefined && this.#required.length > 0 ? { scope: this.#required.join(' ') } : {};
    const all = { ...params, ...scope, resource_metadata: this.metadataUrl };
    return `Bearer ${Object.entries(all)
      .map(([name, value]) => `${name}="${value.replace(/["\\]/g, "'")}"`)
      .join(', ')}`;
  }
}
