// Over `mcp serve` (Streamable HTTP, the official SDK client), one client's script that crashes V8 or spins does not
// hold or take down another client: its run ends with a stable code and the other keeps getting answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpServer, type HttpServerHandle } from '../src/http.js';
import { createCodeModeHost, type CodeModeHost } from '../src/server.js';
import { callTool, newClient } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const TOKEN = 'isolation-token-0123456789';
let project: TestProject;
let host: CodeModeHost;
let http: HttpServerHandle;

async function connect() {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

beforeAll(async () => {
  project = await createProject();
  host = createCodeModeHost({
    spaces: [{ id: 'trains', name: 'Trains' }],
    // A small heap, so the V8 fatal error of the Map bomb comes fast.
    space: { rootDir: project.rootDir, handlers: project.handlers, limits: { memoryMb: 32, timeoutMs: 3_000, cpuTimeMs: 3_000 } },
  });
  http = await startHttpServer({ createServer: () => host.createServer(), port: 0, authToken: TOKEN, rateLimit: false });
});

afterAll(async () => {
  await http?.close();
  await host?.close();
  await project?.cleanup();
});

/** Calls `list_spaces` and `execute` from `client` until `done` settles; returns how many answers came meanwhile. */
async function keepAsking(client: Awaited<ReturnType<typeof connect>>, done: Promise<unknown>) {
  let finished = false;
  void done.finally(() => (finished = true));
  let answers = 0;
  while (!finished) {
    const list = await callTool(client, 'list_spaces');
    const run = await callTool(client, 'execute', { code: 'return 6 * 7;' });
    expect(list.isError).toBe(false);
    expect(run.body.result).toBe(42);
    if (!finished) answers++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { answers };
}

describe('one client cannot hold or crash another', () => {
  it.each([
    ['grows a Map until V8 aborts', 'const m = new Map(); for (let i = 0; ; i++) m.set(i, { i });', 'SANDBOX_CRASHED'],
    ['spins after an awaited call', "import { trainSchedule } from '@capabilities/trains';\nawait trainSchedule.getSchedule({});\nwhile (true) {}", 'TIMEOUT'],
  ])('while the first client %s, the second keeps getting answers', async (_what, code, expected) => {
    const [first, second] = await Promise.all([connect(), connect()]);
    try {
      // Warm: the typecheck worker has loaded TypeScript, so the second client's rounds measure the sandbox alone.
      expect((await callTool(second, 'execute', { code: 'return 6 * 7;' })).body.result).toBe(42);
      const hostile = callTool(first, 'execute', { code });
      const { answers } = await keepAsking(second, hostile);
      const outcome = await hostile;
      expect(outcome).toMatchObject({ isError: true, body: { code: expected } });
      // Answered while the first client's run was still going (bench/isolation.mjs measures the delay, p50/p95).
      expect(answers).toBeGreaterThan(0);
      // The first client's next script works too.
      expect((await callTool(first, 'execute', { code: 'return 1;' })).body.result).toBe(1);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  }, 30_000);
});
