// `agent-spaces mcp serve` as one service of several replicas: real PostgreSQL and Redis servers shared by two
// replicas (child processes of one project), a real HAProxy balancing round robin in front, and official clients of
// both protocol revisions. A capability call's side effects are counted by a real MCP server (the counting fixture).
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { callTool as call } from './support/client.js';
import { calls, counterProject } from './support/counter.js';
import { ReplicatedService, legacyClient, modernClient, type Replica } from './support/replicas.js';

const TOKEN = 'replicas-token-3f9a1c';
const TOOLS = ['bump', 'send', 'limited'].map((name) => ({
  name,
  description: `The ${name} tool`,
  inputSchema: { type: 'object', properties: { name: { type: 'string' }, to: { type: 'string' } } },
}));
const POLL = { timeout: 60_000, interval: 100 };
const closers: (() => Promise<unknown>)[] = [];



const HEADERS = { Authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };

/** The id of the approval request waiting for the call with `params` (as JSON), listed through `replica`'s API. */
async function pendingApproval(replica: Replica, params: string): Promise<string> {
  let id: string | undefined;
  await expect
    .poll(async () => {
      const reply = await fetch(`${new URL(replica.url).origin}/approvals`, { headers: HEADERS });
      const listed = (await reply.json()) as { approvals: { id: string; request: { params: unknown } }[] };
      id = listed.approvals.find((item) => JSON.stringify(item.request.params) === params)?.id;
      return id;
    }, POLL)
    .toBeDefined();
  return id!;
}

/** Approves request `id` through `replica`'s API; its HTTP status. */
async function approve(replica: Replica, id: string, by: string): Promise<number> {
  const reply = await fetch(`${new URL(replica.url).origin}/approvals/${id}/approve`, { method: 'POST', headers: HEADERS, body: JSON.stringify({ by }) });
  return reply.status;
}

const script = (body: string) => `import { counter } from '@capabilities/mcp-counter';\n${body}`;

let service: ReplicatedService;
let a: Replica;
let b: Replica;

beforeAll(async () => {
  const policies = { rules: { 'mcp-counter.send': 'ask' }, rateLimits: { 'mcp-counter.limited': { requests: 5, period: 'minute' } } };
  service = new ReplicatedService(await counterProject(TOOLS, { policies }), { 'auth-token': TOKEN, headless: 'wait' });
  closers.push(() => service.close());
  await service.start(2);
  [a, b] = service.replicas as [Replica, Replica];
}, 180_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
}, 60_000);

describe('bad engine settings', () => {
  it('refuses to start on a URL that is not PostgreSQL or Redis, or an engine that does not answer, never echoing the URL', async () => {
    const cases: [string[], RegExp][] = [
      [['--database-url', 'http://user:hunter2@example.test/db'], /must be a postgres: or postgresql: URL/],
      [['--database-url', 'not a url hunter2'], /must be a URL/],
      [['--redis-url', 'postgres://user:hunter2@127.0.0.1/db'], /must be a redis: or rediss: or valkey: URL/],
      [['--advertise-url', 'ftp://hunter2@host'], /must be a http: or https: URL/],
      [['--database-url', 'postgres://user:hunter2@127.0.0.1:1/db'], /PostgreSQL is unavailable/],
      [['--redis-url', 'redis://:hunter2@127.0.0.1:1'], /Redis is unavailable/],
    ];
    for (const [flags, message] of cases) {
      const result = await service.project.cli(['mcp', 'serve', '--port', '0', ...flags], { DATABASE_URL: '', REDIS_URL: '' });
      expect(result.code, flags.join(' ')).toBe(1);
      expect(result.stderr, flags.join(' ')).toMatch(message);
      expect(result.stderr, flags.join(' ')).not.toContain('hunter2');
    }
  }, 90_000);
});

describe('both protocol revisions', () => {
  it('serves a 2025-11-25 client and a 2026-07-28 client on each replica and through the balancer', async () => {
    for (const url of [a.url, b.url, service.url]) {
      const legacy = await legacyClient(url, TOKEN);
      const modern = await modernClient(url, TOKEN);
      closers.push(() => legacy.close(), () => modern.close());
      expect(modern.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      for (const client of [legacy, modern]) {
        const { tools } = await client.listTools();
        expect(tools.map((t) => t.name)).toContain('execute');
        const answer = await call(client, 'execute', { code: script('return (await counter.bump({ name: "hello" })).text + "!";') });
        expect(answer.isError, answer.text).toBe(false);
        expect(answer.body.result).toBe('bump {"name":"hello"}!');
      }
    }
  }, 120_000);
});

describe('one rate limit across replicas', () => {
  it('admits exactly 5 of 10 calls against a limit of 5 a minute, spread over both replicas', async () => {
    const clients = await Promise.all([a.url, b.url].map((url) => legacyClient(url, TOKEN)));
    closers.push(...clients.map((c) => () => c.close()));
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        call(clients[i % 2]!, 'execute', {
          code: script(`try { await counter.limited({ name: "n${i}" }); return "ok"; } catch (error) { return (error as { code: string }).code; }`),
        }),
      ),
    );
    const results = answers.map((answer) => answer.body?.result);
    expect(results.filter((r) => r === 'ok')).toHaveLength(5);
    expect(results.filter((r) => r === 'RATE_LIMITED')).toHaveLength(5);
    expect((await calls(service.project)).filter((line) => line.startsWith('limited '))).toHaveLength(5);
  }, 60_000);
});

describe('approvals across replicas', () => {
  it('answers through replica B an approval a run on replica A waits for, and the run completes once', async () => {
    const client = await legacyClient(a.url, TOKEN);
    closers.push(() => client.close());
    const running = call(client, 'execute', { code: script('return (await counter.send({ to: "carol" })).text;') });
    const id = await pendingApproval(b, '{"to":"carol"}');
    expect(await approve(b, id, 'dana')).toBe(200);
    const answer = await running;
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.body.result).toBe('send {"to":"carol"}');
    expect((await calls(service.project)).filter((line) => line === 'send {"to":"carol"}')).toHaveLength(1);
  }, 90_000);
});

describe('the CLI on the shared database', () => {
  it('lists and approves with `agent-spaces approvals` (DATABASE_URL) a request a run on replica B waits for, and reads the audit', async () => {
    const client = await legacyClient(b.url, TOKEN);
    closers.push(() => client.close());
    const running = call(client, 'execute', { code: script('return (await counter.send({ to: "gina" })).text;') });
    const env = { DATABASE_URL: service.databaseUrl };
    const id = await pendingApproval(a, '{"to":"gina"}');
    const listed = await service.project.cli(['approvals', 'list', '--json'], env);
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout).toContain(id);
    const approved = await service.project.cli(['approvals', 'approve', id, '--by', 'hank'], env);
    expect(approved.code, approved.stderr).toBe(0);
    const answer = await running;
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.body.result).toBe('send {"to":"gina"}');
    const audit = await service.project.cli(['audit', '--json'], env);
    expect(audit.code, audit.stderr).toBe(0);
    const records = (JSON.parse(audit.stdout) as { records: { function: string; params?: unknown; decision?: { answeredBy?: string } }[] }).records;
    const sent = records.find((r) => r.function === 'send' && JSON.stringify(r.params) === '{"to":"gina"}' && r.decision?.answeredBy);
    expect(sent?.decision?.answeredBy).toBe('hank');
  }, 90_000);
});

describe('sessions across replicas', () => {
  it('keeps a 2025-11-25 client\'s session and its variables through the round-robin balancer', async () => {
    const client = await legacyClient(service.url, TOKEN);
    closers.push(() => client.close());
    const created = await call(client, 'create_session');
    const sessionId = created.body.sessionId as string;
    expect((await call(client, 'send_code', { sessionId, code: 'const x = 41; return x;' })).body.result).toBe(41);
    for (let i = 0; i < 4; i++) {
      const answer = await call(client, 'send_code', { sessionId, code: 'return x + 1;' });
      expect(answer.isError, answer.text).toBe(false);
      expect(answer.body.result).toBe(42);
    }
  }, 60_000);

  it('ends the sessions of 2025-11-25 clients that leave without DELETE through the balancer', async () => {
    const sessions = async () => {
      const counts = await Promise.all(service.replicas.map(async (r) => (await fetch(`${new URL(r.url).origin}/health`)).json() as Promise<{ sessions: number }>));
      return counts.reduce((sum, count) => sum + count.sessions, 0);
    };
    const before = await sessions();
    const leaving = await Promise.all([0, 1, 2, 3].map(() => legacyClient(service.url, TOKEN)));
    for (const client of leaving) {
      const sessionId = (await call(client, 'create_session')).body.sessionId as string;
      expect((await call(client, 'send_code', { sessionId, code: 'return 1;' })).body.result).toBe(1);
    }
    expect(await sessions()).toBe(before + 4);
    await Promise.all(leaving.map((client) => client.close()));
    // The balancer notices a client gone when the server's event-stream heartbeat (every 10 s) is written to it.
    await expect.poll(sessions, { timeout: 30_000, interval: 500 }).toBe(before);
  }, 60_000);

  it('uses through replica B a 2026-07-28 session created through replica A, with its variables', async () => {
    const onA = await modernClient(a.url, TOKEN);
    const onB = await modernClient(b.url, TOKEN);
    closers.push(() => onA.close(), () => onB.close());
    const sessionId = (await call(onA, 'create_session')).body.sessionId as string;
    expect((await call(onA, 'send_code', { sessionId, code: 'const word = "kept"; return word;' })).body.result).toBe('kept');
    const answer = await call(onB, 'send_code', { sessionId, code: 'return word + "!";' });
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.body.result).toBe('kept!');
  }, 60_000);
});

describe('a forwarded call that takes long', () => {
  it('waits through replica B for a call replica A holds past the connect timeout (an approval 6 s later)', async () => {
    const onA = await modernClient(a.url, TOKEN);
    const onB = await modernClient(b.url, TOKEN);
    closers.push(() => onA.close(), () => onB.close());
    const sessionId = (await call(onA, 'create_session')).body.sessionId as string;
    const waiting = call(onB, 'send_code', { sessionId, code: script('return (await counter.send({ to: "ivy" })).text;') });
    const id = await pendingApproval(a, '{"to":"ivy"}');
    await new Promise((resolve) => setTimeout(resolve, 6_000));
    expect(await approve(a, id, 'judy')).toBe(200);
    const answer = await waiting;
    expect(answer.isError, answer.text).toBe(false);
    expect(answer.body.result).toBe('send {"to":"ivy"}');
    expect((await calls(service.project)).filter((line) => line === 'send {"to":"ivy"}')).toHaveLength(1);
  }, 60_000);
});

describe('a replica killed under load', () => {
  it('leaves clients of B unharmed, restores A\'s sessions on B, loses no audit row and resumes A\'s paused run on B', async () => {
    const victim = await service.addReplica();
    const onVictim = await modernClient(victim.url, TOKEN);
    const legacyOnVictim = await legacyClient(victim.url, TOKEN);
    const onB = await modernClient(b.url, TOKEN);
    closers.push(() => onVictim.close(), () => legacyOnVictim.close(), () => onB.close());
    const sessionId = (await call(onVictim, 'create_session')).body.sessionId as string;
    expect((await call(onVictim, 'send_code', { sessionId, code: 'const n = 7; return n;' })).body.result).toBe(7);
    // A run on the victim pauses for approval, as a task.
    const params = { name: 'execute', arguments: { code: script('await counter.bump({ name: "before" }); return (await counter.send({ to: "erin" })).text;') }, task: {} };
    const { task } = await legacyOnVictim.request({ method: 'tools/call', params }, CreateTaskResultSchema);
    await expect.poll(async () => (await legacyOnVictim.experimental.tasks.getTask(task.taskId)).status, POLL).toBe('input_required');

    // Load on B while the victim dies.
    const load = Array.from({ length: 12 }, (_, i) => call(onB, 'execute', { code: script(`return await counter.bump({ name: "load-${i}" });`) }));
    victim.serve.child.kill('SIGKILL');
    const loaded = await Promise.all(load);
    expect(loaded.filter((answer) => answer.isError)).toEqual([]);

    // The victim's session, restored on B by replay: its variable is back.
    const restored = await call(onB, 'send_code', { sessionId, code: 'return n * 6;' });
    expect(restored.isError, restored.text).toBe(false);
    expect(restored.body.result).toBe(42);

    // Its paused run resumes on B once approved through B; the task's result is read through B.
    expect(await approve(b, await pendingApproval(b, '{"to":"erin"}'), 'frank')).toBe(200);
    const legacyOnB = await legacyClient(b.url, TOKEN);
    closers.push(() => legacyOnB.close());
    await expect.poll(async () => (await legacyOnB.experimental.tasks.getTask(task.taskId)).status, POLL).toBe('completed');
    const result = await legacyOnB.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
    const first = result.content[0];
    expect(JSON.parse(first?.type === 'text' ? first.text : 'null')).toMatchObject({ result: 'send {"to":"erin"}' });
    const log = await calls(service.project);
    expect(log.filter((line) => line === 'send {"to":"erin"}')).toHaveLength(1);
    expect(log.filter((line) => line === 'bump {"name":"before"}')).toHaveLength(1);

    // No audit row lost: every bump the fixture saw has its audit row.
    const db = new pg.Client({ connectionString: service.databaseUrl });
    await db.connect();
    const { rows } = await db.query<{ n: string }>("SELECT count(*) AS n FROM agent_spaces_audit WHERE ended AND entry->>'function' = 'bump'");
    await db.end();
    expect(Number(rows[0]!.n)).toBe(log.filter((line) => line.startsWith('bump ')).length);
  }, 180_000);
});

describe('PostgreSQL restarted mid-load', () => {
  it('fails requests with STORE_UNAVAILABLE while it is down, serves them after, and repeats no side effect', async () => {
    const client = await modernClient(b.url, TOKEN);
    closers.push(() => client.close());
    const outcomes = new Map<string, string>();
    let stop = false;
    const loop = (async () => {
      for (let i = 0; !stop; i++) {
        const answer = await call(client, 'execute', { code: script(`return await counter.bump({ name: "pg-${i}" });`) }).catch((error: Error) => ({
          isError: true,
          text: error.message,
          body: undefined,
        }));
        outcomes.set(`pg-${i}`, answer.isError ? String(answer.body?.error?.code ?? answer.text) : 'ok');
      }
    })();
    await expect.poll(() => outcomes.size, POLL).toBeGreaterThan(2);
    await service.postgres.stop();
    await expect.poll(() => [...outcomes.values()].some((code) => code.includes('STORE_UNAVAILABLE')), POLL).toBe(true);
    await service.postgres.start();
    const okBefore = [...outcomes.values()].filter((code) => code === 'ok').length;
    await expect.poll(() => [...outcomes.values()].filter((code) => code === 'ok').length, POLL).toBeGreaterThan(okBefore + 2);
    stop = true;
    await loop;
    const log = await calls(service.project);
    for (const [name, code] of outcomes) {
      const seen = log.filter((line) => line === `bump {"name":"${name}"}`).length;
      expect(seen, name).toBeLessThanOrEqual(1);
      if (code === 'ok') expect(seen, name).toBe(1);
      else expect(code, name).toContain('STORE_UNAVAILABLE');
    }
  }, 180_000);
});
