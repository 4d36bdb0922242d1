// Through `mcp serve` with an OAuth issuer: two users with their own bearer tokens call an upstream MCP server whose
// config takes `${user:UPSTREAM_TOKEN}`. The upstream must see each user's own upstream credential and never an
// access token a client sent to the server.
import { chmod } from 'node:fs/promises';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startHttpServer, type HttpServerHandle } from '../packages/server/src/http.js';
import { createCodeModeHost, type CodeModeHost } from '../packages/server/src/server.js';
import { callTool, newClient } from '../packages/server/test/support/client.js';
import { makeProject, type Project } from './fixtures/project.js';
import { startRecordingMcpServer, type RecordingUpstream } from './fixtures/recording-upstream.js';
import { startIssuer, type TestIssuer } from './services/issuer.js';
import { freePort } from './services/postgres.js';

const TOKENS = { operator: 'operator-build-token-9', alice: 'alice-upstream-token-9', bob: 'bob-upstream-token-9' };
const WHOAMI = "import { upstream } from '@capabilities/mcp-upstream';\nexport default JSON.parse((await upstream.whoami()).text);";

let project: Project;
let upstream: RecordingUpstream;
let issuer: TestIssuer;
let host: CodeModeHost;
let http: HttpServerHandle;

beforeAll(async () => {
  upstream = await startRecordingMcpServer(Object.fromEntries(Object.entries(TOKENS).map(([who, token]) => [`Bearer ${token}`, who])));
  project = await makeProject({
    'agent-spaces.config.json': {
      capabilities: [],
      mcpServers: { upstream: { type: 'http', url: `${upstream.url}/mcp`, headers: { Authorization: 'Bearer ${user:UPSTREAM_TOKEN}' } } },
    },
    'users.json': JSON.stringify({ 'user:alice': { UPSTREAM_TOKEN: TOKENS.alice }, 'user:bob': { UPSTREAM_TOKEN: TOKENS.bob } }),
  });
  await chmod(project.path('users.json'), 0o600);
  process.env.UPSTREAM_TOKEN = TOKENS.operator;
  try {
    await project.build();
  } finally {
    delete process.env.UPSTREAM_TOKEN;
  }
  const port = await freePort();
  const audience = `http://127.0.0.1:${port}/mcp`;
  issuer = await startIssuer({ audience });
  host = createCodeModeHost({ spaces: [{ id: 'up', name: 'Up' }], space: { rootDir: project.dir, userSecrets: 'users.json' } });
  http = await startHttpServer({
    createServer: () => host.createServer(),
    createModernServer: (authInfo) => host.createModernServer(authInfo),
    port,
    auth: { issuer: issuer.url, audience, jwksUri: issuer.jwksUri, scopes: ['mcp'] },
    rateLimit: { requests: 1000, windowSeconds: 60 },
  });
}, 120_000);

afterAll(async () => {
  await http?.close();
  await host?.close();
  await issuer?.close();
  await upstream?.close();
});

it("sends each user's own upstream credential and never a client's access token", async () => {
  const accessTokens = { alice: await issuer.sign({ sub: 'alice', scope: 'mcp' }), bob: await issuer.sign({ sub: 'bob', scope: 'mcp' }) };
  const before = upstream.requests.length;
  const answers: Record<string, unknown> = {};
  for (const who of ['alice', 'bob'] as const) {
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${accessTokens[who]}` } } }));
    const answer = await callTool(client, 'execute', { code: WHOAMI });
    answers[who] = answer.body.result;
    await client.close();
  }
  expect(answers).toEqual({
    alice: { user: 'alice', authorization: 'Bearer [REDACTED:user:UPSTREAM_TOKEN]' },
    bob: { user: 'bob', authorization: 'Bearer [REDACTED:user:UPSTREAM_TOKEN]' },
  });
  const seen = upstream.requests.slice(before).map((r) => r.credential);
  expect(new Set(seen)).toEqual(new Set([`Bearer ${TOKENS.alice}`, `Bearer ${TOKENS.bob}`]));
  for (const request of upstream.requests) {
    for (const token of Object.values(accessTokens)) expect(request.credential ?? '').not.toContain(token);
  }
});
