import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { HandlerContext } from '@agent-spaces/capabilities';
import { freePort } from '../../../test/services/postgres.js';
import { startIssuer, type TestIssuer, type TokenClaims } from '../../../test/services/issuer.js';
import { startHttpServer, type HttpServerHandle } from '../src/http.js';
import { createCodeModeHost, type CodeModeHost } from '../src/server.js';
import { callTool, newClient } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';

/** Agent code whose answer is the principal the capability handler saw: `{ id, stops: groups }`. */
const WHO_CODE = "import { trainSchedule } from '@capabilities/trains';\nexport default await trainSchedule.getTrainDetails({ trainId: 'who' });";
const INITIALIZE = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };

let project: TestProject;
let issuer: TestIssuer;
let host: CodeModeHost;
let http: HttpServerHandle;
let audience: string;

beforeAll(async () => {
  project = await createProject();
  const port = await freePort();
  audience = `http://127.0.0.1:${port}/mcp`;
  issuer = await startIssuer({ audience });
  const handlers = {
    ...project.handlers,
    trainSchedule: {
      ...project.handlers.trainSchedule,
      getTrainDetails: (_params: unknown, context: HandlerContext) => ({ id: context.principal?.id ?? 'none', stops: [...(context.principal?.groups ?? [])] }),
    },
  };
  host = createCodeModeHost({ spaces: [{ id: 'trains', name: 'Trains' }], space: { rootDir: project.rootDir, handlers } });
  http = await startHttpServer({
    createServer: () => host.createServer(),
    createModernServer: (authInfo) => host.createModernServer(authInfo),
    port,
    auth: { issuer: issuer.url, audience, jwksUri: issuer.jwksUri, scopes: ['mcp'] },
    authTuning: { jwksCooldownMs: 0 },
    rateLimit: { requests: 1000, windowSeconds: 60 },
  });
});

afterAll(async () => {
  await http?.close();
  await host?.close();
  await issuer?.close();
  await project?.cleanup();
});

/** One raw POST of `body` (an `initialize` by default) to the MCP endpoint with `token` (none when null). */
function post(token: string | null, body: unknown = INITIALIZE, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(http.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...(token === null ? {} : { authorization: `Bearer ${token}` }), ...headers },
    body: JSON.stringify(body),
  });
}

async function legacyClient(token: string) {
  const client = newClient();
  const transport = new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return { client, transport };
}

const now = () => Math.floor(Date.now() / 1000);

describe('a request without a token', () => {
  it('is answered 401 pointing to the protected resource metadata, which is served', async () => {
    const response = await post(null);
    expect(response.status).toBe(401);
    const metadataUrl = `http://127.0.0.1:${http.port}/.well-known/oauth-protected-resource/mcp`;
    expect(http.resourceMetadataUrl).toBe(metadataUrl);
    expect(response.headers.get('www-authenticate')).toBe(`Bearer scope="mcp", resource_metadata="${metadataUrl}"`);
    const expected = { resource: audience, authorization_servers: [issuer.url], scopes_supported: ['mcp'], bearer_methods_supported: ['header'], resource_name: 'agent-spaces' };
    for (const url of [metadataUrl, `http://127.0.0.1:${http.port}/.well-known/oauth-protected-resource`]) {
      const metadata = await fetch(url);
      expect(metadata.status).toBe(200);
      expect(await metadata.json()).toEqual(expected);
    }
  });

  it('cannot read the metadata with a Host that is not allowed', async () => {
    const { request } = await import('node:http');
    const status = await new Promise<number>((done, fail) => {
      request({ host: '127.0.0.1', port: http.port, path: '/.well-known/oauth-protected-resource', headers: { host: 'evil.example' } }, (res) => {
        res.resume();
        done(res.statusCode ?? 0);
      })
        .once('error', fail)
        .end();
    });
    expect(status).toBe(403);
  });

  it("does not change /health: it answers counts only, no token", async () => {
    const health = await fetch(`http://127.0.0.1:${http.port}/health`);
    expect(Object.keys((await health.json()) as object).sort()).toEqual(['connections', 'status']);
  });
});

describe('a token that must be refused', () => {
  const invalid: Array<[string, () => Promise<string>]> = [
    ['for another audience', () => issuer.sign({ scope: 'mcp', aud: 'https://other.example/mcp' })],
    ['of another issuer', () => issuer.sign({ scope: 'mcp', iss: 'https://evil.example' })],
    ['expired (past the clock tolerance)', () => issuer.sign({ scope: 'mcp', exp: now() - 120 })],
    ['not valid yet (nbf)', () => issuer.sign({ scope: 'mcp', nbf: now() + 120 })],
    ['signed by a foreign key with the same kid', () => issuer.sign({ scope: 'mcp', foreignKey: true })],
    ['with an unknown kid', () => issuer.sign({ scope: 'mcp', kid: 'nobody' })],
    ['with alg none', () => issuer.forge('none', { scope: 'mcp' })],
    ['HS256 keyed with the public key', () => issuer.forge('hs256-public-key', { scope: 'mcp' })],
    ['garbage', async () => 'not-a-jwt'],
    ['three garbage parts', async () => 'eyJhbGciOiJSUzI1NiJ9.e30.AAAA'],
    ['without a subject', () => issuer.sign({ scope: 'mcp', sub: null })],
    ['with a subject over 256 characters', () => issuer.sign({ scope: 'mcp', sub: 'x'.repeat(257) })],
    ['with over 256 groups', () => issuer.sign({ scope: 'mcp', groups: Array.from({ length: 257 }, (_, i) => `g${i}`) })],
    ['with groups that are not strings', () => issuer.sign({ scope: 'mcp', extra: { groups: [1, 2] } })],
    ['over 8 KiB', () => issuer.sign({ scope: 'mcp', extra: { pad: 'x'.repeat(9000) } })],
  ];

  it.each(invalid)('is answered 401 invalid_token: %s', async (_name, make) => {
    const response = await post(await make());
    expect(response.status).toBe(401);
    const challenge = response.headers.get('www-authenticate') ?? '';
    expect(challenge).toMatch(/^Bearer error="invalid_token", error_description="[^"]+", scope="mcp", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
    expect(((await response.json()) as { error: { data: { code: string } } }).error.data.code).toBe('UNAUTHORIZED');
  });

  const unscoped: Array<[string, TokenClaims]> = [
    ['no scope at all', {}],
    ['other scopes', { scope: 'read write' }],
    ['a scope that only starts like it', { scope: 'mcp:read' }],
  ];

  it.each(unscoped)('is answered 403 insufficient_scope when it holds %s', async (_name, claims) => {
    const response = await post(await issuer.sign(claims));
    expect(response.status).toBe(403);
    expect(response.headers.get('www-authenticate')).toMatch(/^Bearer error="insufficient_scope", scope="mcp", error_description="missing scope mcp", resource_metadata="http:\/\/127\.0\.0\.1:\d+\/\.well-known\/oauth-protected-resource\/mcp"$/);
    const body = (await response.json()) as { jsonrpc: string; error: { data: { code: string } } };
    expect(body).toMatchObject({ jsonrpc: '2.0', error: { data: { code: 'FORBIDDEN' } } });
  });

  it('accepts the scope from scp (an array) and a token within the clock tolerance', async () => {
    const scp = await issuer.sign({ extra: { scp: ['mcp'] } });
    expect((await post(scp)).status).toBe(200);
    const justExpired = await issuer.sign({ scope: 'mcp', exp: now() - 5 });
    expect((await post(justExpired)).status).toBe(200);
  });
});

describe('a user token', () => {
  it('makes the principal user:<sub> on the 2025-11-25 leg, with its groups', async () => {
    const { client } = await legacyClient(await issuer.sign({ sub: 'alice', scope: 'mcp', groups: ['admins', 'ops'] }));
    const answer = await callTool(client, 'execute', { code: WHO_CODE });
    expect(answer.body.result, JSON.stringify(answer.body)).toEqual({ id: 'user:alice', stops: ['admins', 'ops'] });
    await client.close();
  });

  it('makes the principal user:<sub> on the 2026-07-28 leg (the v2 client)', async () => {
    const token = await issuer.sign({ sub: 'bob', scope: 'mcp openid', groups: ['devs'] });
    const transport = new ModernTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
    const client = new ModernClient({ name: 'modern-test', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    const answer = await callTool(client, 'execute', { code: WHO_CODE });
    expect(answer.body.result, JSON.stringify(answer.body)).toEqual({ id: 'user:bob', stops: ['devs'] });
    await client.close();
  });

  it("cannot use another user's MCP session id (404, as if unknown), while its owner still can", async () => {
    const alice = await issuer.sign({ sub: 'alice', scope: 'mcp' });
    const { client, transport } = await legacyClient(alice);
    const sessionId = transport.sessionId!;
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-11-25' };
    const bob = await post(await issuer.sign({ sub: 'bob', scope: 'mcp' }), list, headers);
    expect(bob.status).toBe(404);
    expect(((await bob.json()) as { error: { message: string } }).error.message).toBe('Unknown MCP session: initialize a new one');
    const bobDelete = await fetch(http.url, { method: 'DELETE', headers: { authorization: `Bearer ${await issuer.sign({ sub: 'bob', scope: 'mcp' })}`, ...headers } });
    expect(bobDelete.status).toBe(404);
    // A new token of the same user (a refresh) keeps the session.
    const refreshed = await post(await issuer.sign({ sub: 'alice', scope: 'mcp', exp: now() + 600 }), list, headers);
    expect(refreshed.status).toBe(200);
    expect((await callTool(client, 'list_spaces')).isError).toBe(false);
    await client.close();
  });
});

describe('the issuer keys', () => {
  it('are fetched once and a verified token is not verified again; a rotated key is picked up', async () => {
    const token = await issuer.sign({ scope: 'mcp' });
    expect((await post(token)).status).toBe(200);
    const fetches = issuer.jwksFetches;
    for (let i = 0; i < 3; i++) expect((await post(token)).status).toBe(200);
    expect((await post(await issuer.sign({ scope: 'mcp', sub: 'carol' }))).status).toBe(200);
    expect(issuer.jwksFetches).toBe(fetches);

    const oldKid = issuer.kid;
    await issuer.rotate();
    expect(issuer.kid).not.toBe(oldKid);
    const rotated = await issuer.sign({ scope: 'mcp' });
    expect((await post(rotated)).status).toBe(200);
    expect(issuer.jwksFetches).toBe(fetches + 1);
    // The old key is gone from the JWKS: a new token under the old kid no longer verifies.
    expect((await post(await issuer.sign({ scope: 'mcp', kid: oldKid, foreignKey: true }))).status).toBe(401);
  });
});

describe('discovery of the keys', () => {
  const serverOf = (auth: { issuer: string; audience?: string }) =>
    startHttpServer({ createServer: () => host.createServer(), port: 0, auth: { audience: 'http://127.0.0.1/mcp', scopes: [], ...auth } });

  it.each([['oauth' as const], ['openid' as const]])('reads jwks_uri from the %s metadata when jwksUri is absent', async (metadata) => {
    const own = await startIssuer({ audience: 'http://127.0.0.1/mcp', metadata, alg: 'ES256' });
    const server = await serverOf({ issuer: own.url });
    try {
      expect(own.metadataFetches).toBeGreaterThan(0);
      const response = await fetch(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${await own.sign()}` }, body: JSON.stringify(INITIALIZE) });
      expect(response.status).toBe(200);
      expect(own.jwksFetches).toBe(1);
    } finally {
      await server.close();
      await own.close();
    }
  });

  it('refuses to start when the metadata names another issuer, or none answers', async () => {
    const mixUp = await startIssuer({ audience: 'http://127.0.0.1/mcp', claimedIssuer: 'https://evil.example' });
    await expect(serverOf({ issuer: mixUp.url })).rejects.toMatchObject({ code: 'CONFIG_INVALID', data: { key: 'server.auth.issuer' } });
    await mixUp.close();
    await expect(serverOf({ issuer: mixUp.url })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining('no metadata found') });
  });

  it('answers 503 ISSUER_UNAVAILABLE for a new token while the issuer is down, and serves again once it is back', async () => {
    const own = await startIssuer({ audience: 'http://127.0.0.1/mcp' });
    const server = await startHttpServer({
      createServer: () => host.createServer(),
      port: 0,
      auth: { issuer: own.url, audience: 'http://127.0.0.1/mcp', jwksUri: own.jwksUri, scopes: [] },
      authTuning: { jwksCooldownMs: 0 },
      approvals: host.approvals,
    });
    const token = await own.sign({ sub: 'carol' });
    const init = (path = '') => fetch(server.url + path, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', authorization: `Bearer ${token}` }, body: JSON.stringify(INITIALIZE) });
    try {
      await own.stop();
      const refused = await init();
      expect(refused.status).toBe(503);
      expect(await refused.json()).toMatchObject({ error: { data: { code: 'ISSUER_UNAVAILABLE' } } });
      const approvals = await fetch(server.url.replace(/\/mcp$/, '/approvals'), { headers: { authorization: `Bearer ${token}` } });
      expect(approvals.status).toBe(503);
      expect(await approvals.json()).toMatchObject({ error: { code: 'ISSUER_UNAVAILABLE' } });
      await own.start();
      expect((await init()).status).toBe(200);
    } finally {
      await server.close();
      await own.close();
    }
  });

  it('refuses server.auth together with a shared token', async () => {
    await expect(startHttpServer({ createServer: () => host.createServer(), port: 0, authToken: 't', auth: { issuer: issuer.url, audience } })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});

describe('agent-spaces mcp serve with server.auth', () => {
  it('discovers the keys, says where the metadata is, and serves user tokens', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'oauth-serve-'));
    const own = await startIssuer({ audience: 'https://mcp.example.com/mcp' });
    await writeFile(join(cwd, 'agent-spaces.config.json'), JSON.stringify({ server: { auth: { issuer: own.url, audience: 'https://mcp.example.com/mcp', scopes: ['mcp'] } } }));
    const serve = new HttpServe(cwd, {});
    try {
      const url = await serve.url();
      expect(serve.stderr).toContain('protected resource metadata served at https://mcp.example.com/.well-known/oauth-protected-resource/mcp');
      const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
      const refused = await fetch(url, { method: 'POST', headers, body: JSON.stringify(INITIALIZE) });
      expect(refused.headers.get('www-authenticate')).toContain('resource_metadata="https://mcp.example.com/.well-known/oauth-protected-resource/mcp"');
      const served = await fetch(url, { method: 'POST', headers: { ...headers, authorization: `Bearer ${await own.sign({ scope: 'mcp' })}` }, body: JSON.stringify(INITIALIZE) });
      expect(served.status).toBe(200);
    } finally {
      await serve.stop();
      await own.close();
      await rm(cwd, { recursive: true, force: true });
    }
  });

  it('exits 1 when --auth-token is given too', async () => {
    const cwd = await mkdtemp(join(tmpdir(), 'oauth-serve-'));
    await writeFile(join(cwd, 'agent-spaces.config.json'), JSON.stringify({ server: { auth: { issuer: issuer.url, audience, jwksUri: issuer.jwksUri } } }));
    const serve = new HttpServe(cwd, { 'auth-token': 'shared-secret' });
    try {
      const code = await new Promise<number | null>((done) => serve.child.once('exit', done));
      expect(code).toBe(1);
      expect(serve.stderr).toContain('exclude each other');
    } finally {
      await rm(cwd, { recursive: true, force: true });
    }
  });
});
