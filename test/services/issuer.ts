import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type CryptoKey, type JWK } from 'jose';

/** What {@link TestIssuer.sign} puts in a token; every field has a default that makes a valid token. */
export interface TokenClaims {
  /** `sub` (default `alice`); `null` leaves it out. */
  sub?: string | null;
  /** `scope`, space-separated (default: none). */
  scope?: string;
  /** `groups` (default: none). */
  groups?: string[];
  /** `aud` (default: the issuer's `audience`). */
  aud?: string | string[];
  /** `iss` (default: the issuer's {@link TestIssuer.url}). */
  iss?: string;
  /** `exp` in seconds since the epoch (default: in 5 minutes). */
  exp?: number;
  /** `nbf` in seconds since the epoch (default: none). */
  nbf?: number;
  /** `kid` of the header (default: the current key's). */
  kid?: string;
  /** Signs with a key the JWKS does not hold, under the current `kid` (a forgery). */
  foreignKey?: boolean;
  /** More claims (e.g. `client_id`, a custom groups claim). */
  extra?: Record<string, unknown>;
}

/**
 * A loopback OAuth 2.1 authorization server for tests (node:http on 127.0.0.1), with signing keys generated when it
 * starts (`jose`'s `generateKeyPair`). It serves its metadata at `/.well-known/oauth-authorization-server` and
 * `/.well-known/openid-configuration` (`{ issuer, jwks_uri, … }`) and its keys at `/jwks`.
 *
 * @example
 * const issuer = await startIssuer({ audience: 'http://127.0.0.1:9/mcp' });
 * const token = await issuer.sign({ sub: 'alice', scope: 'mcp', groups: ['admins'] });
 * await issuer.rotate(); // a new key and kid; the old key is gone from the JWKS
 * issuer.jwksFetches; // how often /jwks was fetched
 * await issuer.close();
 */
export interface TestIssuer {
  /** The issuer identifier (`iss`, the metadata's `issuer`): `http://127.0.0.1:<port>`. */
  readonly url: string;
  /** Where its keys are: `<url>/jwks`. */
  readonly jwksUri: string;
  /** The `kid` of the key it signs with now. */
  readonly kid: string;
  /** How many times `/jwks` was fetched. */
  readonly jwksFetches: number;
  /** How many times a metadata document was fetched. */
  readonly metadataFetches: number;
  /** A JWT access token signed with the current key (`alg` of the issuer), with `claims` over the defaults. */
  sign(claims?: TokenClaims): Promise<string>;
  /**
   * A token no honest issuer makes, with `claims` over the defaults: `none` (alg none, no signature) or `hs256-public-key`
   * (HS256 keyed with the issuer's public key in PEM — the algorithm-confusion attack).
   */
  forge(kind: 'none' | 'hs256-public-key', claims?: TokenClaims): Promise<string>;
  /** Replaces the signing key by a new one with a new `kid`; the JWKS then holds only the new key. */
  rotate(): Promise<void>;
  /** Stops listening (its keys kept): the issuer is down. */
  stop(): Promise<void>;
  /** Listens again on the same port, with the same keys. */
  start(): Promise<void>;
  close(): Promise<void>;
}

/** Options of {@link startIssuer}. */
export interface IssuerOptions {
  /** The `aud` its tokens carry by default (e.g. the MCP server's resource URL). */
  audience: string;
  /** Signing algorithm (default `RS256`). */
  alg?: 'RS256' | 'ES256';
  /** Which metadata it serves (default both): `oauth` (RFC 8414) or `openid` only. */
  metadata?: 'both' | 'oauth' | 'openid';
  /** The `issuer` its metadata claims (default its own {@link TestIssuer.url}): another value tests the mix-up check. */
  claimedIssuer?: string;
}

interface SigningKey {
  kid: string;
  privateKey: CryptoKey;
  publicJwk: JWK;
  publicPem: string;
}

/** Starts a {@link TestIssuer} on a free port of 127.0.0.1. */
export async function startIssuer(options: IssuerOptions): Promise<TestIssuer> {
  const alg = options.alg ?? 'RS256';
  let generation = 0;
  const newKey = async (): Promise<SigningKey> => {
    const { privateKey, publicKey } = await generateKeyPair(alg, { extractable: true });
    const kid = `key-${++generation}`;
    return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' }, publicPem: await exportSPKI(publicKey) };
  };
  let current = await newKey();
  const counts = { jwks: 0, metadata: 0 };
  let url = '';
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const serves = options.metadata ?? 'both';
    const isMetadata =
      (path === '/.well-known/oauth-authorization-server' && serves !== 'openid') || (path === '/.well-known/openid-configuration' && serves !== 'oauth');
    let body: unknown;
    if (path === '/jwks') {
      counts.jwks++;
      body = { keys: [current.publicJwk] };
    } else if (isMetadata) {
      counts.metadata++;
      body = { issuer: options.claimedIssuer ?? url, jwks_uri: `${url}/jwks`, token_endpoint: `${url}/token`, response_types_supported: ['code'] };
    }
    if (body === undefined) return void res.writeHead(404).end();
    res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const port = (server.address() as AddressInfo).port;
  url = `http://127.0.0.1:${port}`;
  const stop = () =>
    new Promise<void>((done) => {
      server.close(() => done());
      server.closeAllConnections();
    });

  const payloadOf = (claims: TokenClaims): Record<string, unknown> => {
    const now = Math.floor(Date.now() / 1000);
    const payload: Record<string, unknown> = { iss: claims.iss ?? url, aud: claims.aud ?? options.audience, iat: now, exp: claims.exp ?? now + 300, ...claims.extra };
    if (claims.sub !== null) payload.sub = claims.sub ?? 'alice';
    if (claims.scope !== undefined) payload.scope = claims.scope;
    if (claims.groups !== undefined) payload.groups = claims.groups;
    if (claims.nbf !== undefined) payload.nbf = claims.nbf;
    return payload;
  };

  return {
    url,
    jwksUri: `${url}/jwks`,
    get kid() {
      return current.kid;
    },
    get jwksFetches() {
      return counts.jwks;
    },
    get metadataFetches() {
      return counts.metadata;
    },
    async sign(claims = {}) {
      const key = claims.foreignKey ? (await generateKeyPair(alg)).privateKey : current.privateKey;
      return new SignJWT(payloadOf(claims)).setProtectedHeader({ alg, kid: claims.kid ?? current.kid, typ: 'at+jwt' }).sign(key);
    },
    async forge(kind, claims = {}) {
      const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
      const header = { alg: kind === 'none' ? 'none' : 'HS256', kid: current.kid, typ: 'JWT' };
      const signingInput = `${encode(header)}.${encode(payloadOf(claims))}`;
      if (kind === 'none') return `${signingInput}.`;
      return `${signingInput}.${createHmac('sha256', current.publicPem).update(signingInput).digest('base64url')}`;
    },
    async rotate() {
      current = await newKey();
    },
    stop,
    start: () => new Promise<void>((done) => server.listen(port, '127.0.0.1', done)),
    close: () => (server.listening ? stop() : Promise.resolve()),
  };
}
