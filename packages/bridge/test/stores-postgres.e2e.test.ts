import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AuditEntry, AuditStore, KeptRun } from '../src/index.js';
import { createBridge, createGate, MemoryRateLimitStore } from '../src/index.js';
import { MIGRATIONS, PostgresAuditArchive, PostgresRunStore, SharedDatabase } from '../src/shared-entry.js';
import { startPostgres, type PostgresServer } from '../../../test/services/postgres.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';
import { storeContract } from './stores-contract.js';

let server: PostgresServer;
const opened: SharedDatabase[] = [];

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((database) => database.close()));
  await server?.close();
});

/** A database object on `url` (default: a new, empty database), closed after the file's tests. */
async function open(url?: string, options: { connectTimeoutMs?: number } = {}): Promise<SharedDatabase> {
  const database = await SharedDatabase.open(url ?? (await server.createDatabase()), { applicationName: 'stores-postgres-test', ...options });
  opened.push(database);
  return database;
}

/** Resolves `promise`, or rejects with `'hung'` when it takes over `ms`. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const hung = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('hung')), ms)));
  return Promise.race([promise, hung]).finally(() => clearTimeout(timer));
}

function callEntry(callId: string, params: unknown = {}): AuditEntry {
  return { time: new Date().toISOString(), callId, capability: 'mail', function: 'send', params, decision: { kind: 'allow', by: 'default' }, outcome: { ok: true }, durationMs: 1 };
}

function keptRun(id: string, fields: Partial<KeptRun> = {}): KeptRun {
  return { id, space: 's', script: '', startedAt: '2026-11-27T10:00:00.000Z', status: 'paused', replay: { clock: { seed: 1, startedAt: 0 }, calls: [], replayable: true }, ...fields };
}

const approved = { approved: true, by: 'resolve', via: 'resolve' as const };
const never = new AbortController().signal;
const request = (id: string) => ({ id, capability: 'files', function: 'deleteFile', params: { path: id }, message: `Delete ${id}?` });

describe('the PostgreSQL stores pass the stores contract', () => {
  let shared: SharedDatabase;
  /** Appends of the contract's audit stores: the archive reads once they are settled (appends resolve as they commit). */
  const appends: Promise<unknown>[] = [];
  beforeAll(async () => {
    shared = await open();
  });
  const tracked = (store: AuditStore): AuditStore => {
    const append = store.append.bind(store);
    store.append = (entry) => {
      const appended = append(entry);
      appends.push(Promise.resolve(appended).catch(() => undefined));
      return appended;
    };
    return store;
  };

  storeContract('PostgreSQL stores', {
    audit: (space) => tracked(shared.audit(space)),
    archive: async () => {
      await Promise.all(appends);
      return new PostgresAuditArchive(shared);
    },
    rateLimits: () => new MemoryRateLimitStore(),
    approvals: async () => (await open()).approvals,
    runs: async () => new PostgresRunStore(await open(), { keepEnded: 100 }),
    sessions: async () => (await open()).sessions,
  });
});

describe('two replicas sharing one database', () => {
  let [a, b]: SharedDatabase[] = [];
  beforeAll(async () => {
    const url = await server.createDatabase();
    [a, b] = [await open(url), await open(url)];
  });

  it('wakes the waiter of one replica within a second of the other answering', async () => {
    await a!.approvals.add(request('across'));
    expect((await b!.approvals.pending()).map((r) => r.id)).toEqual(['across']);
    const waiting = a!.approvals.answered('across', never);
    // Let the waiter look once (and listen) before the answer: it must be woken, not find it at once.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b!.approvals.answer('across', { approved: false, by: 'admin', via: 'resolve' })).toBe(true);
    // Under the one-second re-check: the notification woke it.
    expect(await within(waiting, 800)).toEqual({ approved: false, by: 'admin', via: 'resolve' });
    expect((await a!.approvals.get('across'))?.answer).toMatchObject({ approved: false, by: 'admin', answeredAt: expect.any(String) });
  });

  it('lets exactly one of 20 concurrent answers from both replicas win', async () => {
    await a!.approvals.add(request('raced'));
    const answers = Array.from({ length: 20 }, (_, i) => ({ approved: i % 2 === 0, by: `answerer-${i}`, via: 'resolve' as const }));
    const won = await Promise.all(answers.map((answer, i) => (i % 2 === 0 ? a! : b!).approvals.answer('raced', answer)));
    expect(won.filter(Boolean)).toHaveLength(1);
    const winner = answers[won.indexOf(true)]!;
    expect(await a!.approvals.answered('raced', never)).toEqual(winner);
    expect(await b!.approvals.answered('raced', never)).toEqual(winner);
  });

  it('hands a run kept by one replica to the other, and a session touched by both keeps its latest use', async () => {
    await a!.runs.keep(keptRun('moved', { sessionId: 'sess' }));
    expect(await b!.runs.kept('moved')).toEqual(keptRun('moved', { sessionId: 'sess' }));
    await a!.sessions.create({ id: 'sess', owner: 'alice', space: 'default', createdAt: '2026-11-27T10:00:00.000Z', metadata: { runs: 0 } });
    await Promise.all([
      a!.sessions.touch('sess', '2026-11-27T10:09:00.000Z', { runs: 2 }),
      b!.sessions.touch('sess', '2026-11-27T10:05:00.000Z', { title: 'x' }),
    ]);
    expect(await b!.sessions.get('sess')).toMatchObject({ lastUsedAt: '2026-11-27T10:09:00.000Z', metadata: { runs: 2, title: 'x' } });
  });
});

describe('migrations', () => {
  it('are applied once when three replicas open a fresh database together', async () => {
    const url = await server.createDatabase();
    const [first] = await Promise.all([open(url), open(url), open(url)]);
    const rows = await first!.query<{ version: number; name: string }>('SELECT version, name FROM agent_spaces_migrations ORDER BY version');
    expect(rows).toEqual(MIGRATIONS.map(({ version, name }) => ({ version, name })));
    const [{ count }] = await first!.query<{ count: string }>("SELECT count(*) FROM pg_tables WHERE tablename LIKE 'agent_spaces_%'");
    const created = MIGRATIONS.reduce((sum, m) => sum + (m.sql.match(/CREATE TABLE/g)?.length ?? 0), 0);
    expect(Number(count)).toBe(created + 1);
    // Opened again: nothing is applied a second time.
    const before = await first!.query('SELECT version, applied_at FROM agent_spaces_migrations');
    await open(url);
    expect(await first!.query('SELECT version, applied_at FROM agent_spaces_migrations')).toEqual(before);
  });

  it('are numbered 1, 2, 3, … in order', () => {
    expect(MIGRATIONS.map((m) => m.version)).toEqual(MIGRATIONS.map((_, i) => i + 1));
  });
});

describe('hostile values', () => {
  let database: SharedDatabase;
  beforeAll(async () => {
    database = await open();
  });
  const strings = ['nul \u0000 inside', 'lone \ud800 surrogate', "quote ' and \" and \\", "'); DROP TABLE agent_spaces_audit; --", 'emoji 😀', '$1 $2'];

  it('puts any string a script passes on record: audit params, approval requests, kept ledgers, session metadata', async () => {
    const audit = database.audit('hostile');
    for (const [i, text] of strings.entries()) {
      await audit.append(callEntry(`c${i}`, { text }));
      await database.approvals.add({ ...request(`r${i}`), params: { text }, message: text });
      await database.runs.keep(keptRun(`k${i}`, { script: text, replay: { clock: { seed: 1, startedAt: 0 }, calls: [{ capability: 'c', function: 'f', params: JSON.stringify(text) }], replayable: true } }));
      await database.sessions.create({ id: `s${i}`, owner: 'o', space: 'default', createdAt: '2026-11-27T10:00:00.000Z', metadata: { text } });
      await database.sessions.touch(`s${i}`, '2026-11-27T10:01:00.000Z', { again: text });
    }
    // Stored as JSON text, every string comes back exactly (a lone surrogate too).
    const { records } = await audit.calls(new Date(0));
    expect(records.map((r) => (r.params as { text: string }).text)).toEqual(strings);
    expect((await database.approvals.pending()).map((r) => r.message)).toEqual(strings);
    expect((await database.runs.keptRuns()).map((r) => r.script)).toEqual(strings);
    for (const [i, text] of strings.entries()) expect((await database.sessions.get(`s${i}`))?.metadata).toEqual({ text, again: text });
  });

  it('cuts params past 8 KiB, as the file store does', async () => {
    const audit = database.audit('hostile-long');
    await audit.append(callEntry('long', { text: 'x'.repeat(20_000) }));
    const { records } = await audit.calls(new Date(0));
    expect(records[0]!.params).toMatchObject({ truncated: true, preview: expect.any(String) });
    expect((records[0]!.params as { preview: string }).preview).toHaveLength(8_192);
  });

  it('never finds a record under an id PostgreSQL text cannot hold, and refuses to make one', async () => {
    for (const id of ['\u0000', 'a\u0000b', '\u0000'.repeat(10)]) {
      expect(await database.approvals.get(id)).toBeUndefined();
      expect(await database.approvals.answer(id, approved)).toBe(false);
      await expect(database.approvals.add(request(id))).rejects.toMatchObject({ code: 'INTERNAL' });
      expect(await database.runs.kept(id)).toBeUndefined();
      expect(await database.runs.keptRuns({ sessionId: id })).toEqual([]);
      expect(await database.sessions.get(id)).toBeUndefined();
      expect(await database.sessions.touch(id, '2026-11-27T10:00:00.000Z')).toBe(false);
      expect(await database.sessions.list({ owner: id })).toEqual([]);
    }
  });

  it('refuses a space name no audit store holds with CONFIG_INVALID', () => {
    for (const space of ['../escape', '', 'a b', '.hidden', 'x\u0000']) {
      expect(() => database.audit(space)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
      expect(() => new PostgresAuditArchive(database).records({ space })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    }
  });
});

describe('the bridge on PostgreSQL', () => {
  it("awaits each call's audit row, and a gate hands each space the store its factory makes", async () => {
    const database = await open();
    const mail = memoryCapability('mail', [{ name: 'send', run: () => 'sent' }]);
    const gate = await createGate({ name: 'gated', outDir: '/nonexistent', stores: { audit: (space) => database.audit(space) } }, [mail]);
    expect(gate.auditFile).toBeUndefined();
    const bridge = createBridge({ capabilities: [mail], ...gate.bridgeOptions });
    expect((await bridge.call(msg('mail', 'send', {}), never)).ok).toBe(true);
    const rows = await database.query<{ space: string; entry: { capability: string } }>('SELECT space, entry FROM agent_spaces_audit');
    expect(rows.map((r) => [r.space, r.entry.capability])).toEqual([['gated', 'mail']]);
  });
});

// Last: stops the server the other groups use.
describe('PostgreSQL stopped and started again', () => {
  const CONNECT_TIMEOUT_MS = 1_000;

  it('fails every store STORE_UNAVAILABLE without hanging, then works again without being reopened', async () => {
    const database = await open(undefined, { connectTimeoutMs: CONNECT_TIMEOUT_MS });
    const other = await open(undefined, { connectTimeoutMs: CONNECT_TIMEOUT_MS });
    const audit = database.audit('outage');
    await audit.append(callEntry('before'));
    await database.approvals.add(request('waits'));
    const waiting = database.approvals.answered('waits', never);
    const mail = memoryCapability('mail', [{ name: 'send', run: () => 'sent' }]);
    const bridge = createBridge({ capabilities: [mail], audit });
    void other;

    await server.stop();
    const unavailable = expect.objectContaining({ code: 'STORE_UNAVAILABLE', data: { store: 'postgres' } });
    const slack = CONNECT_TIMEOUT_MS + 2_000;
    await expect(within(database.query('SELECT 1'), slack)).rejects.toEqual(unavailable);
    await expect(within(audit.append(callEntry('lost')), slack)).rejects.toEqual(unavailable);
    await expect(within(database.approvals.answer('waits', approved), slack)).rejects.toEqual(unavailable);
    await expect(within(database.runs.keep(keptRun('outage')), slack)).rejects.toEqual(unavailable);
    await expect(within(database.sessions.get('any'), slack)).rejects.toEqual(unavailable);
    await expect(within(database.listen('elsewhere', () => undefined), slack)).rejects.toEqual(unavailable);
    // A call whose audit row cannot be written fails, saying why.
    const failed = errorOf(await within(bridge.call(msg('mail', 'send', {}), never), slack));
    expect(failed).toMatchObject({ code: 'STORE_UNAVAILABLE', data: { store: 'postgres' } });

    await server.start();
    expect(await database.query('SELECT 1 AS one')).toEqual([{ one: 1 }]);
    await audit.append(callEntry('after'));
    expect((await bridge.call(msg('mail', 'send', {}), never)).ok).toBe(true);
    // The waiter outlived the outage: an answer given now reaches it.
    expect(await database.approvals.answer('waits', approved)).toBe(true);
    expect(await within(waiting, 3_000)).toEqual(approved);
    // What was acknowledged is on record, what was refused is not.
    const { records } = await audit.calls(new Date(0));
    expect(records.map((r) => r.callId)).toEqual(['before', 'after', expect.any(String)]);
    expect(records[2]).toMatchObject({ capability: 'mail', outcome: { ok: true } });
  }, 30_000);

  it('wakes a waiter of one replica by notification after the server restarted (the listener reconnected)', async () => {
    const url = await server.createDatabase();
    const [a, b] = [await open(url), await open(url)];
    await a.approvals.add(request('after-restart'));
    const first = a.approvals.answered('first', new AbortController().signal);
    void first.catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await server.stop();
    await server.start();
    // The listener reconnects with backoff; give it time, then a notification must wake the waiter under the re-check.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const waiting = a.approvals.answered('after-restart', never);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await b.approvals.answer('after-restart', approved)).toBe(true);
    expect(await within(waiting, 800)).toEqual(approved);
  }, 30_000);
});
