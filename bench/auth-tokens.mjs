// Per-request cost of the front door's token check of `mcp serve` (RequestGuard.check: Host/Origin, then the token),
// warm keys: the shared `--auth-token` (a SHA-256 and a constant-time compare: the floor), then `server.auth` with an
// access token verified anew (a fresh token each request, the issuer's keys already fetched: jose's jwtVerify, RS256 and
// ES256) and with one seen before (the verified-token cache: a SHA-256 and a map lookup). A loopback issuer serves the
// JWKS; it is fetched once, before the timing.
// Build first (npm run build), then:
//   node bench/auth-tokens.mjs
import { createServer } from 'node:http';
import { SignJWT, exportJWK, generateKeyPair } from 'jose';
import { RequestGuard } from '../packages/server/dist/auth/guard.js';
import { ResourceServer } from '../packages/server/dist/auth/resource.js';

const COLD = 2_000;
const WARM = 100_000;
const ROUNDS = 5;
const AUDIENCE = 'http://127.0.0.1:8080/mcp';

/** A loopback issuer with one key per algorithm; returns its URL and a token signer. */
async function startIssuer() {
  const keys = {};
  for (const alg of ['RS256', 'ES256']) {
    const pair = await generateKeyPair(alg, { extractable: true });
    keys[alg] = { ...pair, jwk: { ...(await exportJWK(pair.publicKey)), kid: alg, alg } };
  }
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ keys: Object.values(keys).map((k) => k.jwk) })));
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  const url = `http://127.0.0.1:${server.address().port}`;
  const sign = (alg, sub) =>
    new SignJWT({ sub, scope: 'mcp', groups: ['devs'] }).setProtectedHeader({ alg, kid: alg }).setIssuer(url).setAudience(AUDIENCE).setExpirationTime('1h').sign(keys[alg].privateKey);
  return { url, sign, close: () => server.close() };
}

/** A request as the guard reads it: Host and Authorization. */
const request = (token) => ({ headers: { host: '127.0.0.1:8080', authorization: `Bearer ${token}` } });

/** Best of {@link ROUNDS} of µs per check of `requests` in turn (each must pass). */
async function perRequestUs(guard, requests) {
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (const req of requests()) if ((await guard.check(req)) !== undefined) throw new Error('the bench token was refused');
    best = Math.min(best, ((performance.now() - started) * 1000) / requests.count);
  }
  return best;
}

/** `count` times the request `req`, as {@link perRequestUs} takes them. */
function same(req, count) {
  return Object.assign(function* () {
    for (let i = 0; i < count; i++) yield req;
  }, { count });
}

const issuer = await startIssuer();
try {
  const resource = await ResourceServer.create({ issuer: issuer.url, audience: AUDIENCE, jwksUri: `${issuer.url}/jwks`, scopes: ['mcp'] }, '/mcp', { cachedTokens: 10 });
  const oauth = new RequestGuard('127.0.0.1', 8080, { resource });
  const shared = new RequestGuard('127.0.0.1', 8080, { authToken: 'shared-token-0123456789abcdef' });
  const rows = [['shared --auth-token (SHA-256 + timingSafeEqual)', await perRequestUs(shared, same(request('shared-token-0123456789abcdef'), WARM))]];
  for (const alg of ['RS256', 'ES256']) {
    await oauth.check(request(await issuer.sign(alg, 'warm-up'))); // fetches the JWKS once
    // A fresh token each request; a cache of 10 entries never holds one of COLD distinct tokens when it comes again.
    const tokens = await Promise.all(Array.from({ length: COLD }, (_, i) => issuer.sign(alg, `user-${i}`)));
    const cold = Object.assign(function* () {
      for (const token of tokens) yield request(token);
    }, { count: COLD });
    rows.push([`server.auth, ${alg}, token verified anew (jwtVerify)`, await perRequestUs(oauth, cold)]);
  }
  const cached = request(await issuer.sign('RS256', 'cached'));
  await oauth.check(cached);
  rows.push(['server.auth, token seen before (cache hit)', await perRequestUs(oauth, same(cached, WARM))]);

  const floor = rows[0][1];
  console.log(`front door token check, µs per request (best of ${ROUNDS} rounds; ${COLD} fresh tokens, ${WARM} repeats of one; keys warm)`);
  for (const [label, us] of rows) console.log(`  ${label.padEnd(52)} ${us.toFixed(2).padStart(8)} µs  (${(us / floor).toFixed(1)}× shared token)`);
} finally {
  issuer.close();
}
