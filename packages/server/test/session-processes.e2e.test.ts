// `server.sessionProcesses: "principal"` on a real `mcp serve` (a child process) behind an OAuth 2.1 issuer (a loopback
// test issuer): the sessions of one user's clients share sandbox processes, so a crash one of alice's clients causes
// ends her other client's session in that process, while bob's session keeps its state. The default ("client": one
// client's sessions per process) is owner-isolation.e2e.test.ts's: there another client of the same token survives.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';
import { startIssuer, type TestIssuer } from '../../../test/services/issuer.js';
import { freePort } from '../../../test/services/postgres.js';
import { callTool, newClient, type ToolAnswer } from './support/client.js';
import { HttpServe } from './support/serve.js';

/** Grows a Map until V8 aborts the process (a fatal error isolated-vm cannot catch). */
const MAP_BOMB = 'const m = new Map();\nfor (let i = 0; ; i++) m.set(i, { i });';

let issuer: TestIssuer;
let project: Project;
let serve: HttpServe;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  issuer = await startIssuer({ audience: `${base}/mcp` });
  project = await makeProject({
    'agent-spaces.config.json': {
      capabilities: [],
      server: { auth: { issuer: issuer.url, audience: `${base}/mcp`, scopes: ['mcp'] }, sessionProcesses: 'principal', rateLimit: false },
    },
  });
  expect((await project.build()).totals.failed).toBe(0);
  serve = new HttpServe(project.dir, { port: String(port) });
  await serve.url();
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await serve?.stop();
  await issuer?.close();
});

/** A new MCP client of user `sub`, with a session in which `mine` is its name. */
async function sessionOf(sub: string, name: string): Promise<{ client: Client; sessionId: string }> {
  const token = await issuer.sign({ sub, scope: 'mcp' });
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${token}` } } }));
  clients.push(client);
  const created = await callTool(client, 'create_session');
  expect(created.isError).toBe(false);
  const sessionId = created.body.sessionId as string;
  expect((await sendCode({ client, sessionId }, `const mine = '${name}';`)).isError).toBe(false);
  return { client, sessionId };
}

function sendCode(session: { client: Client; sessionId: string }, code: string): Promise<ToolAnswer> {
  return callTool(session.client, 'send_code', { sessionId: session.sessionId, code });
}

describe('server.sessionProcesses: "principal"', () => {
  it("packs a user's clients' sessions into one process: a crash ends the user's other sessions there, never another user's", async () => {
    const alice1 = await sessionOf('alice', 'alice-1');
    const alice2 = await sessionOf('alice', 'alice-2');
    const bob = await sessionOf('bob', 'bob');
    // Now and then isolated-vm catches the Map's growth first (MEMORY_LIMIT: the process lives); V8 aborts it soon.
    let crash: ToolAnswer | undefined;
    for (let attempt = 0; attempt < 4 && crash?.body.code !== 'SANDBOX_CRASHED'; attempt++) {
      crash = await sendCode(alice1, MAP_BOMB);
      expect(crash.isError).toBe(true);
      expect(['SANDBOX_CRASHED', 'MEMORY_LIMIT']).toContain(crash.body.code);
    }
    expect(crash?.body.code).toBe('SANDBOX_CRASHED');
    expect((await sendCode(alice2, 'return mine;')).body).toMatchObject({ code: 'SESSION_CLOSED', data: { reason: 'SANDBOX_CRASHED' } });
    expect((await sendCode(bob, 'return mine;')).body.result).toBe('bob');
    // Alice's next session gets a fresh process of hers.
    const alice3 = await sessionOf('alice', 'alice-3');
    expect((await sendCode(alice3, 'return mine;')).body.result).toBe('alice-3');
  }, 90_000);
});
