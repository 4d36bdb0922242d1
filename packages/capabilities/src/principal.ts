/**
 * Who a run and each of its calls are made for: the identity an MCP client proved at the server's front door
 * (docs/security.md, "Per-user identity"). Policy rules, approvals, rate limits, the audit log and ownership read it.
 */
export interface Principal {
  /**
   * Stable id: `user:<sub>` for an access token the configured issuer signed, `token:<16 hex>` for the shared
   * `--auth-token` (a hash, never the token), `local` for a client that proved nothing (stdio, loopback without a token).
   */
  readonly id: string;
  /** The access token's `sub` claim, when the principal is a user. */
  readonly subject?: string;
  /** The OAuth client the token was issued to (`client_id` or `azp` claim), when it names one. */
  readonly clientId?: string;
  /** The token's scopes (`scope` or `scp` claim). */
  readonly scopes: readonly string[];
  /** The groups of the configured groups claim (`server.auth.groupsClaim`, default `groups`). */
  readonly groups: readonly string[];
}

/** The principal of a client that proved nothing (stdio, or HTTP without a token). */
export const LOCAL_PRINCIPAL: Principal = Object.freeze({ id: 'local', scopes: Object.freeze([]), groups: Object.freeze([]) });
