import { createHash } from 'node:crypto';
import type { JWTVerifyGetKey, jwtVerify as JwtVerify } from 'jose';
import type { Principal } from '@agent-spaces/capabilities';
import type { AuthSettings } from '../config.js';
import { VerifiedTokens } from './cache.js';
import { ClaimError, principalOfClaims } from './claims.js';
import { discoverJwksUri } from './discovery.js';
import { FETCH_TIMEOUT_MS, fetchBounded } from './fetch.js';

/** Signature algorithms accepted: asymmetric only, so neither `none` nor an HMAC keyed with a public key passes. */
const ACCEPTED_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

/** Largest access token read, in bytes of its compact form; a longer one is refused before it is parsed. */
const MAX_TOKEN_BYTES = 8 * 1024;

/**
 * Defaults of {@link TokenVerifierOptions}: 30 s of clock skew for `exp`/`nbf`; the JWKS refetched at most every 30 s for
 * an unknown `kid` (key rotation) and at least every 10 min; 10,000 verified tokens cached.
 */
const VERIFIER_DEFAULTS = { clockToleranceSeconds: 30, jwksCooldownMs: 30_000, jwksMaxAgeMs: 600_000, cachedTokens: 10_000 } as const;

/** Tuning of a {@link TokenVerifier} (defaults: {@link VERIFIER_DEFAULTS}). */
export interface TokenVerifierOptions {
  /** Seconds a token's `exp` and `nbf` may be off by. */
  clockToleranceSeconds?: number;
  /** Least ms between two fetches of the JWKS when a token names a key it does not hold. */
  jwksCooldownMs?: number;
  /** Most verified tokens kept (least recently used dropped first). */
  cachedTokens?: number;
}

/** What a valid access token proves: who it is for, and when it expires (seconds since the epoch). */
export interface VerifiedToken {
  readonly principal: Principal;
  readonly expiresAt: number;
}

/** A token that does not verify: `message` says why, for the `error_description` of a 401 `invalid_token`. */
export class TokenRefused extends Error {}

/** The issuer's keys could not be fetched (the JWKS did not answer in time, or answered no key set): a 503, not the token's fault. */
export class KeysUnavailable extends Error {}

/**
 * Verifies the JWT access tokens of one authorization server ({@link AuthSettings}) with `jose`, which it loads only
 * when created: the signature against the issuer's JWKS (fetched once and kept; a token naming an unknown `kid`
 * refetches it, at most every 30 s, so a rotated key is picked up), an accepted algorithm, `iss`, `aud`, `exp` (required)
 * and `nbf` within the clock tolerance, and the claims of the principal ({@link principalOfClaims}). A verified token is
 * kept by its SHA-256 until its `exp`, so verifying it again is a hash and a lookup.
 */
export class TokenVerifier {
  /** Where the issuer's keys are fetched from (configured, or found in its metadata). */
  readonly jwksUri: string;
  readonly #settings: AuthSettings;
  readonly #keys: JWTVerifyGetKey;
  readonly #jwtVerify: typeof JwtVerify;
  readonly #clockTolerance: number;
  readonly #verified: VerifiedTokens<VerifiedToken>;

  private constructor(settings: AuthSettings, jwksUri: string, jose: typeof import('jose'), options: TokenVerifierOptions) {
    this.#settings = settings;
    this.jwksUri = jwksUri;
    this.#jwtVerify = jose.jwtVerify;
    this.#clockTolerance = options.clockToleranceSeconds ?? VERIFIER_DEFAULTS.clockToleranceSeconds;
    this.#verified = new VerifiedTokens(options.cachedTokens ?? VERIFIER_DEFAULTS.cachedTokens);
    this.#keys = jose.createRemoteJWKSet(new URL(jwksUri), {
      timeoutDuration: FETCH_TIMEOUT_MS,
      cooldownDuration: options.jwksCooldownMs ?? VERIFIER_DEFAULTS.jwksCooldownMs,
      cacheMaxAge: VERIFIER_DEFAULTS.jwksMaxAgeMs,
      [jose.customFetch]: fetchBounded,
    });
  }

  /**
   * A verifier of `settings`' issuer: its `jwksUri`, else the one its metadata names ({@link discoverJwksUri}, which
   * throws `CONFIG_INVALID` when the metadata cannot be read or names another issuer).
   */
  static async create(settings: AuthSettings, options: TokenVerifierOptions = {}): Promise<TokenVerifier> {
    const jose = await import('jose');
    const jwksUri = settings.jwksUri ?? (await discoverJwksUri(settings.issuer));
    return new TokenVerifier(settings, jwksUri, jose, options);
  }

  /**
   * What `token` proves. Rejects with {@link TokenRefused} (saying why) for a token that does not verify, and with
   * {@link KeysUnavailable} when the issuer's keys cannot be fetched.
   */
  async verify(token: string): Promise<VerifiedToken> {
    if (Buffer.byteLength(token) > MAX_TOKEN_BYTES) throw new TokenRefused(`the token is longer than ${MAX_TOKEN_BYTES} bytes`);
    const key = createHash('sha256').update(token).digest('base64');
    const cached = this.#verified.get(key);
    if (cached) return cached;
    const verified = await this.#verifyAnew(token);
    this.#verified.set(key, verified, verified.expiresAt * 1000);
    return verified;
  }

  async #verifyAnew(token: string): Promise<VerifiedToken> {
    const { issuer, audience, groupsClaim } = this.#settings;
    let payload: Record<string, unknown>;
    try {
      ({ payload } = await this.#jwtVerify(token, this.#keys, {
        issuer,
        audience,
        algorithms: ACCEPTED_ALGORITHMS,
        clockTolerance: this.#clockTolerance,
        requiredClaims: ['exp', 'sub'],
      }));
    } catch (error) {
      throw refusalOf(error);
    }
    try {
      return { principal: principalOfClaims(payload, groupsClaim ?? 'groups'), expiresAt: payload.exp as number };
    } catch (error) {
      if (error instanceof ClaimError) throw new TokenRefused(error.message);
      throw error;
    }
  }
}

/** What a `jose` error means for the request: the token's fault ({@link TokenRefused}) or the issuer's ({@link KeysUnavailable}). */
function refusalOf(error: unknown): Error {
  const code = (error as { code?: unknown }).code;
  const claim = (error as { claim?: unknown }).claim;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return new TokenRefused('the token has expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return new TokenRefused(claim === 'nbf' ? 'the token is not valid yet (nbf)' : `the token's ${String(claim)} claim is not accepted`);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return new TokenRefused('the token is not signed with an accepted algorithm');
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return new TokenRefused('the token signature does not verify');
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return new TokenRefused("the token is not signed with one of the issuer's keys");
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JOSE_GENERIC':
    case 'ERR_JWKS_INVALID':
      return new KeysUnavailable(`the issuer's keys could not be fetched: ${(error as Error).message}`);
    default:
      if (typeof code === 'string') return new TokenRefused('the token is malformed');
      return new KeysUnavailable(`the issuer's keys could not be fetched: ${error instanceof Error ? error.message : String(error)}`);
  }
}
