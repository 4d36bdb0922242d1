import { AgentSpacesError, isRecord } from '@agent-spaces/capabilities';
import { FETCH_TIMEOUT_MS, fetchBounded } from './fetch.js';

/**
 * Where the metadata of `issuer` may be, in the order they are tried: RFC 8414's
 * `<origin>/.well-known/oauth-authorization-server<path>` (the well-known segment before the issuer's path), then
 * OpenID Connect's `<issuer>/.well-known/openid-configuration`.
 */
export function metadataUrls(issuer: string): string[] {
  const url = new URL(issuer);
  const path = url.pathname === '/' ? '' : url.pathname.replace(/\/$/, '');
  return [`${url.origin}/.well-known/oauth-authorization-server${path}`, `${url.origin}${path}/.well-known/openid-configuration`];
}

/**
 * The `jwks_uri` of `issuer`, read from its metadata ({@link metadataUrls}: the first that answers 200 with JSON), each
 * fetch bounded in time (5 s) and size (256 KiB), no redirects. Fails closed: throws `CONFIG_INVALID` (key
 * `server.auth.issuer`) when no metadata answers, when the metadata's `issuer` is not exactly `issuer` (RFC 8414 §3.3:
 * a mix-up), or when it names no https (or loopback http) `jwks_uri`.
 */
export async function discoverJwksUri(issuer: string): Promise<string> {
  const problems: string[] = [];
  for (const url of metadataUrls(issuer)) {
    const metadata = await readMetadata(url).catch((error: unknown) => {
      problems.push(`${url}: ${error instanceof Error ? error.message : String(error)}`);
      return undefined;
    });
    if (metadata === undefined) continue;
    if (metadata.issuer !== issuer) refuse(issuer, `the metadata at ${url} names the issuer ${JSON.stringify(metadata.issuer)}, not ${JSON.stringify(issuer)}`);
    const jwksUri = metadata.jwks_uri;
    if (typeof jwksUri !== 'string' || !isSecureUrl(jwksUri)) refuse(issuer, `the metadata at ${url} names no https jwks_uri`);
    return jwksUri;
  }
  return refuse(issuer, `no metadata found (${problems.join('; ')})`);
}

/** Whether `text` is an https URL, or an http one of a loopback host. */
export function isSecureUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return url.protocol === 'https:' || (url.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(url.hostname));
  } catch {
    return false;
  }
}

async function readMetadata(url: string): Promise<Record<string, unknown>> {
  const response = await fetchBounded(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { accept: 'application/json' } });
  if (response.status !== 200) throw new Error(`HTTP ${response.status}`);
  const metadata = (await response.json()) as unknown;
  if (!isRecord(metadata)) throw new Error('not a JSON object');
  return metadata;
}

function refuse(issuer: string, problem: string): never {
  throw new AgentSpacesError('CONFIG_INVALID', `server.auth.issuer ${issuer}: ${problem}`, { key: 'server.auth.issuer', issuer });
}
