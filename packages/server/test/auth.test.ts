import { describe, expect, it } from 'vitest';
import { VerifiedTokens } from '../src/auth/cache.js';
import { principalOfClaims } from '../src/auth/claims.js';
import { metadataUrls } from '../src/auth/discovery.js';
import { parseServerConfig } from '../src/config.js';

const parseAuth = (auth: unknown) => parseServerConfig({ server: { auth } }, 'agent-spaces.config.json').server.auth;
const VALID = { issuer: 'https://auth.example.com/realms/acme', audience: 'https://mcp.example.com/mcp' };

describe('server.auth in the config', () => {
  it('takes an issuer, an audience and the optional keys', () => {
    const full = { ...VALID, jwksUri: 'https://auth.example.com/realms/acme/protocol/openid-connect/certs', scopes: ['mcp'], groupsClaim: 'roles' };
    expect(parseAuth(full)).toEqual(full);
    expect(parseAuth({ issuer: 'http://127.0.0.1:9000', audience: 'http://127.0.0.1:8080/mcp' })).toEqual({ issuer: 'http://127.0.0.1:9000', audience: 'http://127.0.0.1:8080/mcp' });
  });

  it.each([
    ['server.auth', 'a string'],
    ['server.auth.issuer', { audience: VALID.audience }],
    ['server.auth.issuer', { ...VALID, issuer: 'http://auth.example.com' }],
    ['server.auth.issuer', { ...VALID, issuer: 'ftp://auth.example.com' }],
    ['server.auth.issuer', { ...VALID, issuer: 'not a url' }],
    ['server.auth.issuer', { ...VALID, issuer: 'https://auth.example.com/?x=1' }],
    ['server.auth.jwksUri', { ...VALID, jwksUri: 'http://10.0.0.1/jwks' }],
    ['server.auth.audience', { issuer: VALID.issuer }],
    ['server.auth.audience', { ...VALID, audience: 'mcp-server' }],
    ['server.auth.scopes', { ...VALID, scopes: 'mcp' }],
    ['server.auth.scopes[0]', { ...VALID, scopes: [''] }],
    ['server.auth.scopes[1]', { ...VALID, scopes: ['mcp', 'a b'] }],
    ['server.auth.groupsClaim', { ...VALID, groupsClaim: 'bad claim' }],
    ['server.auth.tenant', { ...VALID, tenant: 'x' }],
  ])('refuses %s in %j with CONFIG_INVALID naming it', (key, auth) => {
    expect(() => parseAuth(auth)).toThrowError(expect.objectContaining({ code: 'CONFIG_INVALID', data: expect.objectContaining({ key }) }));
  });
});

describe('the metadata URLs of an issuer', () => {
  it('insert the RFC 8414 well-known segment before the path, then try OpenID discovery', () => {
    expect(metadataUrls('https://auth.example.com/realms/acme')).toEqual([
      'https://auth.example.com/.well-known/oauth-authorization-server/realms/acme',
      'https://auth.example.com/realms/acme/.well-known/openid-configuration',
    ]);
    expect(metadataUrls('https://tenant.auth0.example/')).toEqual([
      'https://tenant.auth0.example/.well-known/oauth-authorization-server',
      'https://tenant.auth0.example/.well-known/openid-configuration',
    ]);
  });
});

describe('the principal of a token', () => {
  it('reads sub, client_id/azp, scope/scp and the groups claim', () => {
    expect(principalOfClaims({ sub: 'u1', client_id: 'app', scope: 'a  b', groups: 'x y' }, 'groups')).toEqual({ id: 'user:u1', subject: 'u1', clientId: 'app', scopes: ['a', 'b'], groups: ['x', 'y'] });
    expect(principalOfClaims({ sub: 'u2', azp: 'spa', scp: ['c'], roles: ['admins'] }, 'roles')).toEqual({ id: 'user:u2', subject: 'u2', clientId: 'spa', scopes: ['c'], groups: ['admins'] });
  });

  it.each([
    ['no sub', {}],
    ['an empty sub', { sub: '' }],
    ['a sub that is not a string', { sub: 42 }],
    ['a client id over 256 characters', { sub: 'u', client_id: 'c'.repeat(257) }],
    ['a scope over 256 characters', { sub: 'u', scope: 's'.repeat(257) }],
    ['scp of numbers', { sub: 'u', scp: [1] }],
    ['groups as an object', { sub: 'u', groups: { admins: true } }],
    ['over 256 scopes', { sub: 'u', scope: Array.from({ length: 257 }, (_, i) => `s${i}`).join(' ') }],
  ])('refuses a token with %s', (_name, payload) => {
    expect(() => principalOfClaims(payload, 'groups')).toThrow();
  });
});

describe('the verified-token cache', () => {
  it('never returns an entry at or past its expiry, and drops the least recently used past its capacity', () => {
    const cache = new VerifiedTokens<string>(2);
    cache.set('a', 'A', 1_000);
    expect(cache.get('a', 999)).toBe('A');
    expect(cache.get('a', 1_000)).toBeUndefined();
    cache.set('b', 'B', 5_000);
    cache.set('c', 'C', 5_000);
    expect(cache.get('b', 0)).toBe('B');
    cache.set('d', 'D', 5_000);
    expect(cache.get('c', 0)).toBeUndefined();
    expect(cache.get('b', 0)).toBe('B');
    expect(cache.size).toBe(2);
  });
});
