// Type-level denial of service over the real `mcp serve` (a child process, Streamable HTTP, the official SDK client):
// one client's type bombs, huge sources and deep nesting are stopped at the typecheck budget with a stable code, while
// another client, `/health` and SIGTERM keep being answered (issue 25).
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { callTool, newClient, type ToolAnswer } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';
import { deepNesting, hugeSource, typeBombs } from '../../../test/fixtures/type-bombs.mjs';

const BUDGET = { timeoutMs: 2_000, memoryMb: 256, maxSourceBytes: 64 * 1024 };
const BOMBS = typeBombs(40);

let project: TestProject;
let server: HttpServe;
let url: string;

beforeAll(async () => {
  project = await createProject();
  await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.json'], typecheck: BUDGET }));
  server = new HttpServe(project.rootDir, {});
  url = await server.url();
}, 90_000);

afterAll(async () => {
  await server?.stop();
  await project?.cleanup();
});

async function connect(): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** Until `done` settles, `victim` pings, lists tools, runs a checked script and reads `/health`; how many rounds it got. */
async function keepServing(victim: Client, done: Promise<unknown>): Promise<number> {
  let finished = false;
  void done.finally(() => (finished = true));
  let rounds = 0;
  while (!finished) {
    await victim.ping();
    expect((await victim.listTools()).tools.length).toBeGreaterThan(0);
    const health = await fetch(new URL('/health', url), { signal: AbortSignal.timeout(2_000) });
    expect(health.status).toBe(200);
    if (!finished) rounds++;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return rounds;
}

const light = 'const n: number = 6 * 7;\nreturn n;';

describe('type bombs over mcp serve', () => {
  it.each(Object.keys(BOMBS) as (keyof typeof BOMBS)[])('stops the %s bomb at its budget; the other client is served meanwhile', async (name) => {
    const [attacker, victim] = await Promise.all([connect(), connect()]);
    try {
      const bomb = callTool(attacker, 'execute', { code: BOMBS[name] });
      const rounds = await keepServing(victim, bomb);
      const answer = await bomb;
      expect(answer).toMatchObject({ isError: true, body: { code: 'TYPECHECK_LIMIT' } });
      expect(['time', 'memory']).toContain(answer.body.data.budget);
      expect(rounds).toBeGreaterThan(0);
      // Both clients' next checked scripts run.
      for (const client of [victim, attacker]) expect((await callTool(client, 'execute', { code: light })).body.result).toBe(42);
    } finally {
      await Promise.all([attacker.close(), victim.close()]);
    }
  }, 60_000);

  it('stops a bomb sent to a session with send_code, and the session goes on', async () => {
    const client = await connect();
    try {
      const sessionId = (await callTool(client, 'create_session', {})).body.sessionId as string;
      expect((await callTool(client, 'send_code', { sessionId, code: 'const kept = 41;' })).isError).toBe(false);
      const answer = await callTool(client, 'send_code', { sessionId, code: BOMBS['template-literal'] });
      expect(answer).toMatchObject({ isError: true, body: { code: 'TYPECHECK_LIMIT', data: { budget: 'time', limit: BUDGET.timeoutMs } } });
      expect((await callTool(client, 'send_code', { sessionId, code: 'return kept + 1;' })).body.result).toBe(42);
    } finally {
      await client.close();
    }
  }, 60_000);

  it('stops a bomb saved as a skill with save_skill; the other client is served and nothing is saved', async () => {
    const [attacker, victim] = await Promise.all([connect(), connect()]);
    try {
      const code = `${BOMBS['template-literal'].replace('export default 1;', '')}\n/** A skill. */\nexport async function bomb(): Promise<number> {\n  return 1;\n}\n`;
      const save = callTool(attacker, 'save_skill', { name: 'bomb', code });
      const rounds = await keepServing(victim, save);
      expect(await save).toMatchObject({ isError: true, body: { code: 'TYPECHECK_LIMIT', data: { name: 'bomb' } } });
      expect(rounds).toBeGreaterThan(0);
      expect((await callTool(victim, 'list_skills')).body.skills).toEqual([]);
    } finally {
      await Promise.all([attacker.close(), victim.close()]);
    }
  }, 60_000);

  it.each([64 * 1024 + 1, 1024 * 1024, 3 * 1024 * 1024])('refuses a %i-byte script by its size', async (bytes) => {
    const client = await connect();
    try {
      const answer = await callTool(client, 'execute', { code: hugeSource(bytes) });
      expect(answer).toMatchObject({ isError: true, body: { code: 'TYPECHECK_LIMIT', data: { budget: 'size', limit: BUDGET.maxSourceBytes } } });
    } finally {
      await client.close();
    }
  }, 30_000);

  it.each(Object.entries(deepNesting(8_000)))('answers %s nested 8,000 deep without INTERNAL, located when refused', async (_kind, code) => {
    const client = await connect();
    try {
      const answer: ToolAnswer = await callTool(client, 'execute', { code });
      // Some kinds parse and run (`!!!…1`); refused ones are a type or syntax error at a line of the nesting, or the budget.
      if (!answer.isError) return expect(answer.body).toHaveProperty('result');
      expect(['TYPE_ERROR', 'SYNTAX_ERROR', 'TYPECHECK_LIMIT']).toContain(answer.body.code);
      if (answer.body.code === 'TYPECHECK_LIMIT') return expect(answer.body.data.budget).toBe('time');
      const diagnostics = (answer.body.data?.diagnostics ?? []) as { line: number }[];
      expect(diagnostics[0]?.line ?? answer.body.data?.line).toBeGreaterThanOrEqual(2);
    } finally {
      await client.close();
    }
  }, 30_000);

  it('exits on SIGTERM in the middle of a bomb', async () => {
    const client = await connect();
    void callTool(client, 'execute', { code: BOMBS['huge-union'] }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(await server.stop()).toBe(0);
    expect(server.stderr).toMatch(/code=SPACE_CLOSED/);
    // The request in flight was cut with the connection (closing the client would wait for its answer).
    void client.close();
  }, 30_000);
});
