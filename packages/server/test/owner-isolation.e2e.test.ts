// `agent-spaces mcp serve` as a real child process, two official-SDK clients over Streamable HTTP: client A crashes
// the sandbox processes of its own sessions and runs (V8 fatal heap growth, runaway allocation, several sessions at
// once, a plain run), while client B's session keeps its state and B keeps being answered throughout. Then the bound
// on session processes (one owner's sessions per process), over the server's HTTP transport with a small bound.
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHttpServer } from '../src/http.js';
import { createCodeModeHost } from '../src/server.js';
import { callTool, newClient, type ToolAnswer } from './support/client.js';
import { tsNodeArgs } from './support/child.js';
import { createProject, type TestProject } from './support/project.js';

const TOKEN = 'owner-isolation-token-0123456789';
const ENTRY = fileURLToPath(new URL('./support/serve-entry.ts', import.meta.url));
/** Grows a Map until V8 aborts the process (a fatal error isolated-vm cannot catch). */
const MAP_BOMB = 'const m = new Map();\nfor (let i = 0; ; i++) m.set(i, { i });';
/** Allocates arrays forever: isolated-vm catches this one at the isolate's heap limit. */
const ALLOCATION_LOOP = 'const hog: number[][] = [];\nwhile (true) hog.push(new Array(10_000).fill(1));';

let project: TestProject;
let server: ChildProcess;
let url: string;

beforeAll(async () => {
  project = await createProject();
  await writeFile(
    join(project.rootDir, 'agent-spaces.config.json'),
    // No HTTP rate limit: client B asks as fast as it can while A's scripts run.
    JSON.stringify({ capabilities: ['capabilities/*.json'], server: { rateLimit: false } }),
  );
  server = spawn(process.execPath, [...tsNodeArgs(ENTRY), JSON.stringify({ port: '0', 'auth-token': TOKEN })], {
    cwd: project.rootDir,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    server.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const listening = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr);
      if (listening) resolve(listening[0]);
    });
    server.once('exit', (code) => reject(new Error(`mcp serve exited (${String(code)}): ${stderr}`)));
  });
}, 90_000);

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    // Stopping is tested elsewhere (logs.e2e.test.ts): here the server only has to be gone.
    const late = setTimeout(() => server.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(late);
  }
  await project?.cleanup();
}, 30_000);

async function connect(at = url): Promise<Client> {
  const client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(at), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
  return client;
}

async function createSession(client: Client): Promise<string> {
  const answer = await callTool(client, 'create_session');
  expect(answer.isError).toBe(false);
  return answer.body.sessionId as string;
}

function sendCode(client: Client, sessionId: string, code: string): Promise<ToolAnswer> {
  return callTool(client, 'send_code', { sessionId, code });
}

/**
 * Client B's session: declares `kept` and a counter, then, until `done` settles, bumps the counter and reads `kept`
 * back, asserting every answer. Returns how many answers came while A's scripts were still going, and how many
 * bumps the counter got.
 */
async function keepServing(client: Client, sessionId: string, kept: string, done: Promise<unknown>): Promise<{ answers: number; bumps: number }> {
  let finished = false;
  void done.finally(() => (finished = true));
  let answers = 0;
  let bumps = 0;
  while (!finished) {
    const answer = await sendCode(client, sessionId, 'count += 1;\nreturn kept;');
    expect(answer).toMatchObject({ isError: false, body: { result: kept } });
    bumps++;
    if (!finished) answers++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return { answers, bumps };
}

/** A crash of A's code: V8 aborts (SANDBOX_CRASHED, cause memory), or now and then isolated-vm catches it first. */
function expectMemoryFailure(answer: ToolAnswer): void {
  expect(answer.isError).toBe(true);
  if (answer.body.code === 'MEMORY_LIMIT') return;
  expect(answer.body).toMatchObject({ code: 'SANDBOX_CRASHED', data: { cause: 'memory' } });
}

/** A's attack in one variant: what it sends, and what it asserts of the answers and of A's sessions afterwards. */
interface Attack {
  name: string;
  run(a: Client): Promise<void>;
}

const ATTACKS: Attack[] = [
  {
    name: 'grows a Map in its session until V8 aborts the session process',
    async run(a) {
      const session = await createSession(a);
      await sendCode(a, session, "const mine = 'a';");
      const answer = await sendCode(a, session, MAP_BOMB);
      expectMemoryFailure(answer);
      const later = await sendCode(a, session, 'return typeof mine;');
      // The process died with the session in it: later runs are refused with the crash as the reason.
      if (answer.body.code === 'SANDBOX_CRASHED') expect(later.body).toMatchObject({ code: 'SESSION_CLOSED', data: { reason: 'SANDBOX_CRASHED' } });
      else expect(later.body.result).toBe('undefined');
    },
  },
  {
    name: 'allocates in a loop in its session',
    async run(a) {
      const session = await createSession(a);
      await sendCode(a, session, "const mine = 'a';");
      const answer = await sendCode(a, session, ALLOCATION_LOOP);
      expect(answer).toMatchObject({ isError: true, body: { code: 'MEMORY_LIMIT' } });
      // The session's isolate was disposed: it starts over, in the same process.
      expect((await sendCode(a, session, 'return typeof mine;')).body.result).toBe('undefined');
    },
  },
  {
    name: 'crashes several of its sessions at once',
    async run(a) {
      const sessions = await Promise.all([1, 2, 3].map(() => createSession(a)));
      const answers = await Promise.all(sessions.map((session) => sendCode(a, session, MAP_BOMB)));
      for (const answer of answers) {
        expect(answer.isError).toBe(true);
        // One bomb kills the process its siblings share: their runs end with its crash, or find it closed.
        expect(['SANDBOX_CRASHED', 'MEMORY_LIMIT', 'SESSION_CLOSED']).toContain(answer.body.code);
      }
      expect(answers.some((answer) => answer.body.code === 'SANDBOX_CRASHED')).toBe(true);
    },
  },
  {
    name: 'crashes a plain run (execute), which ends none of its own sessions either',
    async run(a) {
      const session = await createSession(a);
      await sendCode(a, session, "const mine = 'a';");
      expectMemoryFailure(await callTool(a, 'execute', { code: MAP_BOMB }));
      expect((await sendCode(a, session, 'return mine;')).body.result).toBe('a');
    },
  },
];

describe('a crash of one client’s sandbox process ends none of another client’s sessions', () => {
  it.each(ATTACKS.map((attack) => [attack.name, attack] as const))(
    'while client A %s, client B’s session keeps its state and is answered throughout',
    async (_name, attack) => {
      const [a, b] = await Promise.all([connect(), connect()]);
      try {
        const session = await createSession(b);
        const kept = `b-${Math.random().toString(36).slice(2)}`;
        expect((await sendCode(b, session, `const kept = '${kept}';\nlet count = 0;`)).isError).toBe(false);
        const attacking = attack.run(a);
        const { answers, bumps } = await keepServing(b, session, kept, attacking);
        await attacking;
        expect(answers).toBeGreaterThan(0);
        // Every bump B made is still there: its session was never restarted.
        const after = await sendCode(b, session, 'return { kept, count };');
        expect(after).toMatchObject({ isError: false, body: { result: { kept, count: bumps } } });
        // And A is served again.
        expect((await callTool(a, 'execute', { code: 'return 6 * 7;' })).body.result).toBe(42);
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    },
    120_000,
  );
});

describe('session processes are bounded, and shared fairly between clients', () => {
  it('refuses a session past the bounds with TOO_MANY_SESSIONS, keeps the others’ sessions, and serves it once one closes', async () => {
    // Two session processes of two sessions each: a client's share is one process.
    const host = createCodeModeHost({
      spaces: [{ id: 'trains', name: 'Trains' }],
      space: { rootDir: project.rootDir, handlers: project.handlers, processes: { maxSessionProcesses: 2, sessionsPerProcess: 2 } },
    });
    const http = await startHttpServer({ createServer: () => host.createServer(), port: 0, authToken: TOKEN, rateLimit: false });
    const [a, b, c] = await Promise.all([connect(http.url), connect(http.url), connect(http.url)]);
    try {
      const mine = [await createSession(a), await createSession(a)];
      expect(await callTool(a, 'create_session')).toMatchObject({ isError: true, body: { code: 'TOO_MANY_SESSIONS', data: { scope: 'process-share', limit: 1 } } });
      const theirs = await createSession(b);
      await sendCode(b, theirs, "const kept = 'b';");
      expect(await callTool(c, 'create_session')).toMatchObject({ isError: true, body: { code: 'TOO_MANY_SESSIONS', data: { scope: 'processes', limit: 2 } } });
      // a's sessions and b's still work; once a closes both of its sessions, c gets a process in place of a's.
      for (const session of mine) expect((await sendCode(a, session, 'return 1;')).body.result).toBe(1);
      for (const session of mine) await callTool(a, 'close_session', { sessionId: session });
      const third = await createSession(c);
      expect((await sendCode(c, third, 'return 3;')).body.result).toBe(3);
      expect((await sendCode(b, theirs, 'return kept;')).body.result).toBe('b');
    } finally {
      await Promise.all([a.close(), b.close(), c.close()]);
      await http.close();
      await host.close();
    }
  }, 120_000);
});
