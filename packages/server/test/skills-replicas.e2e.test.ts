// Typed skills across `mcp serve` replicas on different machines: two replicas (child processes), each serving its own
// copy of one project, share a real PostgreSQL server. A skill saved through one is importable through the other, the
// owner checks read the shared table under a lock (concurrent saves lose no owner), a delete reaches every copy, and
// what a copy holds that the table does not (the operator's own skills) is left alone.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import pg from 'pg';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SANDBOX_DECLARATIONS } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';
import { startPostgres, type PostgresServer } from '../../../test/services/postgres.js';
import { callTool as call } from './support/client.js';
import { legacyClient, modernClient } from './support/replicas.js';
import { HttpServe } from './support/serve.js';

const TOKEN = 'skills-replicas-token-7c1e';
const POLL = { timeout: 20_000, interval: 200 };
const closers: (() => Promise<unknown>)[] = [];

/** A skill `name` answering `value`. */
const answer = (name: string, value: string) => `/** Answers ${value}. */\nexport async function ${name}(): Promise<string> {\n  return '${value}';\n}\n`;
const script = (name: string) => ({ code: `import { skills } from '@capabilities/skills';\nreturn skills.${name}();` });

/** One copy of the project (a machine's), built; `extra` files besides the config. */
async function projectCopy(extra: Record<string, string> = {}): Promise<Project> {
  const project = await makeProject({ 'agent-spaces.config.json': { capabilities: [] }, ...extra });
  const report = await project.build({ sources: [], sandboxDeclarations: SANDBOX_DECLARATIONS });
  expect(report.totals.failed).toBe(0);
  return project;
}

let postgres: PostgresServer;
let database: pg.Client;
let copyA: Project;
let copyB: Project;
/**
 * Clients on replica A (serving copy A), replica B (serving copy B) and replica C (serving copy A too, as replicas on
 * one machine do): each 2025-11-25 session is its own owner.
 */
let alice: Client;
let bob: Client;
let carol: Client;
/** The MCP endpoints of replica A and replica B. */
let replicaUrls: string[] = [];

/** The skills on record in the shared table: name → owner hash (null: the operator), deleted or not. */
async function rows(): Promise<Map<string, { owner: string | null; deleted: boolean }>> {
  const result = await database.query<{ name: string; owner: string | null; deleted: boolean }>('SELECT name, owner, text IS NULL AS deleted FROM agent_spaces_skills');
  return new Map(result.rows.map((row) => [row.name, { owner: row.owner, deleted: row.deleted }]));
}

/** What running the skill `name` through `client` answers: its result, or the error code. */
async function run(client: Client, name: string): Promise<unknown> {
  const answered = await call(client, 'execute', script(name));
  return answered.isError ? answered.body?.code : answered.body.result;
}

beforeAll(async () => {
  postgres = await startPostgres();
  closers.push(() => postgres.close());
  const url = await postgres.createDatabase();
  database = new pg.Client({ connectionString: url });
  await database.connect();
  closers.push(() => database.end());
  copyA = await projectCopy();
  copyB = await projectCopy({ 'skills/operatorsOwn.ts': answer('operatorsOwn', 'machine B') });
  // A first: it applies the migrations.
  const servers: string[] = [];
  for (const copy of [copyA, copyB, copyA]) {
    const serve = new HttpServe(copy.dir, { 'auth-token': TOKEN }, { DATABASE_URL: url });
    closers.push(() => serve.stop());
    servers.push(await serve.url());
  }
  [alice, bob, carol] = await Promise.all(servers.map((server) => legacyClient(server, TOKEN)));
  closers.push(() => alice.close(), () => bob.close(), () => carol.close());
  replicaUrls = servers;
}, 180_000);

afterAll(async () => {
  for (const close of closers.reverse()) await close().catch(() => undefined);
}, 60_000);

describe('a skill saved through one replica', () => {
  it('is importable through a replica on another copy of the project within seconds, with its owner on record', async () => {
    expect((await call(alice, 'save_skill', { name: 'greeting', code: answer('greeting', 'alice') })).isError).toBe(false);
    await expect.poll(() => run(bob, 'greeting'), POLL).toBe('alice');
    expect(await copyB.read('skills/greeting.ts')).toBe(answer('greeting', 'alice'));
    const listed = (await call(bob, 'list_skills')).body.skills;
    expect(listed.find((s: { name: string }) => s.name === 'greeting')).toMatchObject({ owner: 'client', yours: false, built: true });
    expect((await rows()).get('greeting')).toEqual({ owner: expect.stringMatching(/^[0-9a-f]{64}$/), deleted: false });
  }, 60_000);

  it("cannot be replaced or deleted through another replica by another client (SKILL_NOT_OWNED), changing nothing anywhere", async () => {
    await expect.poll(() => run(bob, 'greeting'), POLL).toBe('alice');
    const before = await rows();
    for (const args of [{ replace: true }, {}]) {
      const replaced = await call(bob, 'save_skill', { name: 'greeting', code: answer('greeting', 'bob'), ...args });
      expect(replaced.body).toMatchObject({ code: 'SKILL_NOT_OWNED', message: expect.stringContaining('belongs to another client') });
    }
    expect((await call(bob, 'delete_skill', { name: 'greeting' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    expect(await rows()).toEqual(before);
    for (const copy of [copyA, copyB]) expect(await copy.read('skills/greeting.ts')).toBe(answer('greeting', 'alice'));
    expect(await run(alice, 'greeting')).toBe('alice');
    expect(await run(bob, 'greeting')).toBe('alice');
  }, 60_000);

  it("is its owner's through every replica: a 2026-07-28 client (the principal) saves through A and replaces through B", async () => {
    const [onA, onB] = [await modernClient(replicaUrls[0]!, TOKEN), await modernClient(replicaUrls[1]!, TOKEN)];
    closers.push(() => onA.close(), () => onB.close());
    expect((await call(onA, 'save_skill', { name: 'principals', code: answer('principals', 'one') })).isError).toBe(false);
    await expect.poll(async () => existsSync(copyB.path('skills/principals.ts')), POLL).toBe(true);
    expect((await call(onB, 'save_skill', { name: 'principals', code: answer('principals', 'two'), replace: true })).isError).toBe(false);
    await expect.poll(() => run(alice, 'principals'), POLL).toBe('two');
    expect((await call(alice, 'delete_skill', { name: 'principals' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    expect((await call(onA, 'delete_skill', { name: 'principals' })).isError).toBe(false);
  }, 90_000);
});

describe('concurrent changes', () => {
  it('12 saves of different skills through A, B and C at once: all saved, every owner on record and on both copies', async () => {
    const clients = [alice, bob, carol];
    const names = Array.from({ length: 12 }, (_, i) => `burst${i}`);
    const saved = await Promise.all(names.map((name, i) => call(clients[i % 3]!, 'save_skill', { name, code: answer(name, name) })));
    expect(saved.map((s) => s.isError)).toEqual(names.map(() => false));
    const onRecord = await rows();
    const owners = names.map((name) => onRecord.get(name)?.owner);
    expect(owners.every((owner) => typeof owner === 'string')).toBe(true);
    for (const [i] of clients.entries()) expect(new Set(owners.filter((_, j) => j % 3 === i)).size).toBe(1);
    expect(new Set(owners).size).toBe(3);
    // Each copy's owner records say the same (A and C write one folder at once): each client's four are its own.
    for (const [i, client] of clients.entries()) {
      await expect
        .poll(async () => {
          const listed = (await call(client, 'list_skills')).body.skills as { name: string; yours: boolean; built: boolean }[];
          return names.map((name, j) => listed.find((s) => s.name === name)?.yours === (j % 3 === i) && listed.find((s) => s.name === name)?.built);
        }, POLL)
        .toEqual(names.map(() => true));
    }
  }, 180_000);

  it('two replicas saving one new name at once: exactly one wins, the other gets NAME_COLLISION or SKILL_NOT_OWNED', async () => {
    const answers = await Promise.all([alice, bob].map((client, i) => call(client, 'save_skill', { name: 'contested', code: answer('contested', `v${i}`) })));
    const won = answers.filter((a) => !a.isError);
    expect(won).toHaveLength(1);
    expect(answers.find((a) => a.isError)!.body.code).toMatch(/^(NAME_COLLISION|SKILL_NOT_OWNED)$/);
    const winner = answers.indexOf(won[0]!);
    for (const client of [alice, bob]) await expect.poll(() => run(client, 'contested'), POLL).toBe(`v${winner}`);
  }, 90_000);
});

describe('a delete and what the table does not hold', () => {
  it('a delete through its owner on A is gone on B', async () => {
    expect((await call(alice, 'save_skill', { name: 'shortLived', code: answer('shortLived', 'here') })).isError).toBe(false);
    await expect.poll(() => run(bob, 'shortLived'), POLL).toBe('here');
    expect((await call(alice, 'delete_skill', { name: 'shortLived' })).isError).toBe(false);
    await expect.poll(() => existsSync(copyB.path('skills/shortLived.ts')), POLL).toBe(false);
    await expect.poll(() => run(bob, 'shortLived'), POLL).not.toBe('here');
    expect((await rows()).get('shortLived')).toEqual({ owner: null, deleted: true });
    // Free again: anyone's name now.
    expect((await call(bob, 'save_skill', { name: 'shortLived', code: answer('shortLived', 'bob') })).isError).toBe(false);
    await expect.poll(() => run(alice, 'shortLived'), POLL).toBe('bob');
  }, 90_000);

  it("leaves a copy's own skills alone (B's operator skill stays B's, never reaches A) and no client may change them", async () => {
    expect(await run(bob, 'operatorsOwn')).toBe('machine B');
    expect(existsSync(copyA.path('skills/operatorsOwn.ts'))).toBe(false);
    expect((await call(bob, 'save_skill', { name: 'operatorsOwn', code: answer('operatorsOwn', 'bob'), replace: true })).body).toMatchObject({ code: 'SKILL_NOT_OWNED', message: expect.stringContaining('the operator') });
    expect((await call(bob, 'delete_skill', { name: 'operatorsOwn' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    expect((await rows()).has('operatorsOwn')).toBe(false);
    expect(await copyB.read('skills/operatorsOwn.ts')).toBe(answer('operatorsOwn', 'machine B'));
  }, 60_000);

  it.each(['../escaped', 'a/b', 'constructor', '__proto__', '', 'x'.repeat(300)])('ignores a row whose name %j is no skill name: nothing is written', async (name) => {
    await database.query("INSERT INTO agent_spaces_skills (name, text, owner, sha256) VALUES ($1, 'export const x = 1;', NULL, encode(sha256('export const x = 1;'), 'hex'))", [name]);
    await database.query("SELECT pg_notify('agent_spaces_skills', $1)", [name]);
    // A later change is mirrored, so the row above was seen before it.
    expect((await call(alice, 'save_skill', { name: 'afterBad', code: answer('afterBad', name.slice(0, 8)), replace: true })).isError).toBe(false);
    await expect.poll(async () => readFile(copyB.path('skills/afterBad.ts'), 'utf8').catch(() => ''), POLL).toBe(answer('afterBad', name.slice(0, 8)));
    for (const copy of [copyA, copyB, copyA]) {
      expect(existsSync(copy.path('escaped.ts'))).toBe(false);
      expect(existsSync(copy.path(`skills/${name}.ts`))).toBe(false);
    }
    await database.query('DELETE FROM agent_spaces_skills WHERE name = $1', [name]);
  }, 60_000);

  it.each(['constructor', '../x', 'a-b', 'then', ''])('refuses the name %j at save through a replica: INVALID_ARGUMENTS, nothing on record', async (name) => {
    expect((await call(bob, 'save_skill', { name, code: answer('x', 'x') })).body).toMatchObject({ code: 'INVALID_ARGUMENTS' });
    expect((await rows()).has(name)).toBe(false);
  }, 30_000);
});
