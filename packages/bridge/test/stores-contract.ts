/**
 * The contract every implementation of the bridge's stores passes: run `storeContract` with a factory of fresh
 * stores (the embedded ones in stores.test.ts; a PostgreSQL or Redis one later).
 */
import { describe, expect, it } from 'vitest';
import type {
  ApprovalOutcome,
  ApprovalRequest,
  ApprovalStore,
  AuditArchive,
  AuditEntry,
  AuditRecord,
  AuditStore,
  RateLimitStore,
  RateWindow,
  RunCall,
  RunStore,
  SessionStore,
} from '../src/index.js';

/**
 * Makes fresh, empty stores. `audit(space)` is a store for the audit records of `space` and `archive()` reads what
 * the audit stores of the same factory appended (one archive per project: a factory stands for one project); `runs()`
 * keeps ended runs readable (at least the last hundred).
 */
export interface StoreFactory {
  audit(space: string): AuditStore | Promise<AuditStore>;
  archive(): AuditArchive | Promise<AuditArchive>;
  rateLimits(): RateLimitStore | Promise<RateLimitStore>;
  approvals(): ApprovalStore | Promise<ApprovalStore>;
  runs(): RunStore | Promise<RunStore>;
  sessions(): SessionStore | Promise<SessionStore>;
}

/** Registers the contract tests of every store, each test with stores from `factory`. */
export function storeContract(name: string, factory: StoreFactory): void {
  describe(`${name}: audit store`, () => auditContract(factory));
  describe(`${name}: audit archive`, () => archiveContract(factory));
  describe(`${name}: rate-limit store`, () => rateLimitContract(factory));
  describe(`${name}: approval store`, () => approvalContract(factory));
  describe(`${name}: run store`, () => runContract(factory));
  describe(`${name}: session store`, () => sessionContract(factory));
}

function callEntry(callId: string, time: Date, fields: Partial<AuditEntry> = {}): AuditEntry {
  return {
    time: time.toISOString(),
    callId,
    capability: 'mail',
    function: 'send',
    params: { to: 'bob' },
    decision: { kind: 'allow', by: 'default' },
    outcome: { ok: true },
    durationMs: 1.5,
    ...fields,
  } as AuditEntry;
}

function auditContract(factory: StoreFactory): void {
  it('gives back the ended calls appended, oldest first, with the space added', async () => {
    const store = await factory.audit('contract-calls');
    const now = Date.now();
    store.append(callEntry('1', new Date(now - 2_000), { runId: 'run-1' }));
    store.append(callEntry('2', new Date(now - 1_000), { outcome: { ok: false, code: 'POLICY_DENIED', message: 'no' } } as Partial<AuditEntry>));
    const { records, malformed } = await store.calls(new Date(now - 10_000));
    store.close();
    expect(malformed).toBe(0);
    expect(records.map((r) => [r.callId, r.space, r.runId, r.outcome.ok])).toEqual([
      ['1', 'contract-calls', 'run-1', true],
      ['2', 'contract-calls', undefined, false],
    ]);
    expect(records[0]).toMatchObject({ capability: 'mail', function: 'send', params: { to: 'bob' }, decision: { kind: 'allow', by: 'default' }, durationMs: 1.5 });
  });

  it('leaves out calls before `since` and the records of calls that started waiting for approval', async () => {
    const store = await factory.audit('contract-since');
    const now = Date.now();
    store.append(callEntry('old', new Date(now - 10_000)));
    store.append({ time: new Date(now - 500).toISOString(), callId: 'asked', capability: 'mail', function: 'send', params: {}, pending: 'approval', decision: { kind: 'ask', by: 'requiresApproval', message: 'Send?' } });
    store.append(callEntry('asked', new Date(now - 100), { decision: { kind: 'ask', by: 'requiresApproval', approved: true, answeredBy: 'resolve' } }));
    const { records } = await store.calls(new Date(now - 5_000));
    store.close();
    expect(records.map((r) => r.callId)).toEqual(['asked']);
    expect(records[0]!.decision).toEqual({ kind: 'ask', by: 'requiresApproval', approved: true, answeredBy: 'resolve' });
  });

  it('has no calls before the first append', async () => {
    const store = await factory.audit('contract-empty');
    expect(await store.calls(new Date(0))).toEqual({ records: [], malformed: 0 });
    store.close();
  });

  it('throws on append once closed, so the call fails closed', async () => {
    const store = await factory.audit('contract-closed');
    store.close();
    expect(() => store.append(callEntry('1', new Date()))).toThrow();
  });
}

const capabilityWindow: RateWindow = { id: 'api', key: 'api', requests: 2, periodMs: 1_000 };
const functionWindow: RateWindow = { id: 'api\0post', key: 'api.post', requests: 1, periodMs: 5_000 };

/** Registers the rate-limit store's contract tests alone (a shared rate-limit store without the other stores). */
export function rateLimitContract(factory: Pick<StoreFactory, 'rateLimits'>): void {
  it('admits calls while the window has room, then says how long until it has', async () => {
    const store = await factory.rateLimits();
    expect(await store.admit([capabilityWindow], 10_000)).toEqual({ admitted: true });
    expect(await store.admit([capabilityWindow], 10_200)).toEqual({ admitted: true });
    expect(await store.admit([capabilityWindow], 10_500)).toEqual({ admitted: false, window: capabilityWindow, waitMs: 500 });
    expect(await store.admit([capabilityWindow], 11_000)).toEqual({ admitted: true });
  });

  it('counts a call in all its windows or in none, naming the one full longest', async () => {
    const store = await factory.rateLimits();
    expect(await store.admit([capabilityWindow, functionWindow], 0)).toEqual({ admitted: true });
    expect(await store.admit([capabilityWindow, functionWindow], 100)).toEqual({ admitted: false, window: functionWindow, waitMs: 4_900 });
    // The refused call was counted nowhere: the capability window still has one place.
    expect(await store.admit([capabilityWindow], 200)).toEqual({ admitted: true });
    expect(await store.admit([capabilityWindow], 300)).toEqual({ admitted: false, window: capabilityWindow, waitMs: 700 });
  });

  it('counts seeded calls (read back from the audit log) like admitted ones, in any order', async () => {
    const store = await factory.rateLimits();
    store.seed('api', [9_800, 9_500]);
    expect(await store.admit([capabilityWindow], 10_000)).toEqual({ admitted: false, window: capabilityWindow, waitMs: 500 });
    expect(await store.admit([capabilityWindow], 10_500)).toEqual({ admitted: true });
  });

  it('keeps windows apart by id', async () => {
    const store = await factory.rateLimits();
    const other: RateWindow = { ...capabilityWindow, id: 'other', key: 'other' };
    store.seed('api', [0, 1]);
    expect(await store.admit([other], 2)).toEqual({ admitted: true });
  });
}

function request(id: string): ApprovalRequest {
  return { id, capability: 'files', function: 'deleteFile', params: { path: id }, message: `Delete ${id}?`, runId: 'run-1' };
}

const approved: ApprovalOutcome = { approved: true, by: 'resolve', via: 'resolve' };
const never = new AbortController().signal;

function approvalContract(factory: StoreFactory): void {
  it('lists the waiting requests, oldest first, until each is answered or withdrawn', async () => {
    const store = await factory.approvals();
    expect(await store.pending()).toEqual([]);
    expect(await store.add(request('1'))).toBe(true);
    expect(await store.add(request('2'))).toBe(true);
    expect(await store.add(request('3'))).toBe(true);
    expect(await store.pending()).toEqual([request('1'), request('2'), request('3')]);
    expect(await store.answer('1', approved)).toBe(true);
    await store.withdraw('3');
    expect(await store.pending()).toEqual([request('2')]);
  });

  it('refuses a second request under the id of one on record, and takes one after it is settled', async () => {
    const store = await factory.approvals();
    expect(await store.add(request('1'))).toBe(true);
    expect(await store.add({ ...request('1'), message: 'another' })).toBe(false);
    expect(await store.pending()).toEqual([request('1')]);
    await store.withdraw('1');
    await store.withdraw('1');
    expect(await store.add({ ...request('1'), message: 'again' })).toBe(true);
    expect((await store.pending()).map((r) => r.message)).toEqual(['again']);
  });

  it('hands the answer to the call waiting for it, whether it came before or after the call waited', async () => {
    const store = await factory.approvals();
    await store.add(request('early'));
    await store.add(request('late'));
    expect(await store.answer('early', { approved: false, by: 'admin', reason: 'no', via: 'resolve' })).toBe(true);
    expect(await store.answered('early', never)).toEqual({ approved: false, by: 'admin', reason: 'no', via: 'resolve' });
    const waiting = store.answered('late', never);
    expect(await store.answer('late', { approved: true, by: 'approver', via: 'approver' })).toBe(true);
    expect(await waiting).toEqual({ approved: true, by: 'approver', via: 'approver' });
    expect(await store.pending()).toEqual([]);
  });

  it('takes the first answer only: a later one, or one to a request never made or withdrawn, is refused', async () => {
    const store = await factory.approvals();
    await store.add(request('1'));
    await store.add(request('2'));
    expect(await store.answer('1', approved)).toBe(true);
    expect(await store.answer('1', { approved: false, by: 'timeout', via: 'timeout' })).toBe(false);
    expect(await store.answer('never-made', approved)).toBe(false);
    await store.withdraw('2');
    expect(await store.answer('2', approved)).toBe(false);
    expect(await store.answered('1', never)).toEqual(approved);
  });

  it('lets exactly one of many concurrent answers win', async () => {
    const store = await factory.approvals();
    await store.add(request('raced'));
    const waiting = store.answered('raced', never);
    const answers = Array.from({ length: 8 }, (_, i) => ({ approved: i % 2 === 0, by: `answerer-${i}`, via: 'resolve' as const }));
    const won = await Promise.all(answers.map((a) => store.answer('raced', a)));
    expect(won.filter(Boolean)).toHaveLength(1);
    expect(await waiting).toEqual(answers[won.indexOf(true)]);
  });

  it('lets exactly one of concurrent requests under one id on record', async () => {
    const store = await factory.approvals();
    const added = await Promise.all(Array.from({ length: 8 }, (_, i) => store.add({ ...request('same'), message: `m${i}` })));
    expect(added.filter(Boolean)).toHaveLength(1);
    expect((await store.pending()).map((r) => r.message)).toEqual([`m${added.indexOf(true)}`]);
  });

  it('keeps the order of many requests added one after another', async () => {
    const store = await factory.approvals();
    const ids = Array.from({ length: 50 }, (_, i) => `r${i}`);
    for (const id of ids) await store.add(request(id));
    expect((await store.pending()).map((r) => r.id)).toEqual(ids);
  });

  it('stops waiting with ABORTED when the signal aborts, and a later answer reaches no one', async () => {
    const store = await factory.approvals();
    await store.add(request('1'));
    const controller = new AbortController();
    const waiting = store.answered('1', controller.signal);
    controller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ABORTED' });
    await store.withdraw('1');
    expect(await store.answer('1', approved)).toBe(false);
    expect(await store.pending()).toEqual([]);
  });
}

async function collect(records: AsyncIterable<AuditRecord>): Promise<AuditRecord[]> {
  const all: AuditRecord[] = [];
  for await (const record of records) all.push(record);
  return all;
}

function archiveContract(factory: StoreFactory): void {
  it("reads every space's records merged by time, or one space's, from `since` on, pending lines included", async () => {
    const now = Date.now();
    const [left, right] = [await factory.audit('archive-left'), await factory.audit('archive-right')];
    left.append(callEntry('l1', new Date(now - 3_000)));
    right.append(callEntry('r1', new Date(now - 2_000)));
    left.append({ time: new Date(now - 1_500).toISOString(), callId: 'l2', capability: 'mail', function: 'send', params: {}, pending: 'approval', decision: { kind: 'ask', by: 'requiresApproval', message: 'Send?' } });
    left.append(callEntry('l2', new Date(now - 1_000)));
    [left, right].forEach((store) => store.close());
    const archive = await factory.archive();
    const mine = (await collect(archive.records({ since: new Date(now - 60_000) }))).filter((r) => r.space.startsWith('archive-'));
    expect(mine.map((r) => [r.space, r.callId, r.pending ?? 'ended'])).toEqual([
      ['archive-left', 'l1', 'ended'],
      ['archive-right', 'r1', 'ended'],
      ['archive-left', 'l2', 'approval'],
      ['archive-left', 'l2', 'ended'],
    ]);
    expect((await collect(archive.records({ space: 'archive-left', since: new Date(now - 2_500) }))).map((r) => r.callId)).toEqual(['l2', 'l2']);
  });

  it('has no records of a space that never appended any', async () => {
    const archive = await factory.archive();
    expect(await collect(archive.records({ space: 'archive-nobody' }))).toEqual([]);
  });

  it('refuses a space name no store could hold with CONFIG_INVALID, before reading', async () => {
    const archive = await factory.archive();
    expect(() => archive.records({ space: '../escape' })).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
}

function ledgerCall(callId: string, ok = true): RunCall {
  return { callId, capability: 'mail', function: 'send', outcome: ok ? { ok: true } : { ok: false, code: 'POLICY_DENIED', message: 'no' }, durationMs: 1.25 };
}

function runContract(factory: StoreFactory): void {
  const started = (id: string, fields: Record<string, string> = {}) => ({ id, space: 'contract', script: `export default '${id}';`, startedAt: '2026-11-27T10:00:00.000Z', ...fields });

  it('keeps runs durably apart from their records: replaced whole, selected like records, forgotten on demand', async () => {
    const store = await factory.runs();
    const replay = { clock: { seed: 7, startedAt: 1 }, calls: [{ capability: 'mail', function: 'send', params: '{"to":"bob"}', approvalId: 'a-1' }], replayable: true };
    await store.keep({ ...started('kept-1', { sessionId: 's-1' }), status: 'paused', replay });
    await store.keep({ ...started('kept-2'), status: 'paused', replay });
    await store.keep({ ...started('kept-1', { sessionId: 's-1' }), status: 'running', replay: { ...replay, calls: [] } });
    expect(await store.kept('kept-1')).toMatchObject({ status: 'running', sessionId: 's-1', replay: { calls: [] } });
    expect((await store.keptRuns({ sessionId: 's-1' })).map((r) => r.id)).toEqual(['kept-1']);
    expect((await store.keptRuns({ status: 'paused' })).map((r) => [r.id, r.replay.calls[0]?.approvalId])).toEqual([['kept-2', 'a-1']]);
    expect(await store.get('kept-1')).toBeUndefined();
    await store.forget('kept-1');
    await store.forget('never-kept');
    expect(await store.kept('kept-1')).toBeUndefined();
    for (const hostile of ['../kept-2', 'kept-2/..', '', 'x'.repeat(500)]) expect(await store.kept(hostile)).toBeUndefined();
    expect((await store.keptRuns()).map((r) => r.id)).toEqual(['kept-2']);
    // Runs of a session that started in the same millisecond come back in the order they started.
    for (const [id, order] of [['z-second', 2.5], ['a-first', 1.25], ['m-third', 3.75]] as const) {
      await store.keep({ ...started(id, { sessionId: 's-2' }), status: 'succeeded', replay, order });
    }
    expect((await store.keptRuns({ sessionId: 's-2' })).map((r) => r.id)).toEqual(['a-first', 'z-second', 'm-third']);
  });

  it('keeps a run from its start to its end, with its calls in the order they ended', async () => {
    const store = await factory.runs();
    await store.start(started('run-1', { owner: 'alice', sessionId: 's-1' }));
    expect(await store.get('run-1')).toEqual({ ...started('run-1', { owner: 'alice', sessionId: 's-1' }), status: 'running', calls: [] });
    await store.addCall('run-1', ledgerCall('1'));
    await store.addCall('run-1', ledgerCall('2', false));
    await store.end('run-1', { status: 'failed', endedAt: '2026-11-27T10:00:01.000Z', error: { code: 'SCRIPT_ERROR', message: 'boom' } });
    expect(await store.get('run-1')).toEqual({
      ...started('run-1', { owner: 'alice', sessionId: 's-1' }),
      status: 'failed',
      endedAt: '2026-11-27T10:00:01.000Z',
      error: { code: 'SCRIPT_ERROR', message: 'boom' },
      calls: [ledgerCall('1'), ledgerCall('2', false)],
    });
    expect(await store.get('no-such-run')).toBeUndefined();
  });

  it('refuses a second start under one id, and calls or an end for a run that is not running', async () => {
    const store = await factory.runs();
    await store.start(started('run-1'));
    // A write may fail synchronously or with a rejected promise: both are a refusal.
    const attempt = async (write: () => void | Promise<void>) => write();
    await expect(attempt(() => store.start(started('run-1')))).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(attempt(() => store.addCall('never-started', ledgerCall('1')))).rejects.toMatchObject({ code: 'INTERNAL' });
    await store.end('run-1', { status: 'succeeded', endedAt: '2026-11-27T10:00:01.000Z' });
    await expect(attempt(() => store.addCall('run-1', ledgerCall('1')))).rejects.toMatchObject({ code: 'INTERNAL' });
    await expect(attempt(() => store.end('run-1', { status: 'succeeded', endedAt: '2026-11-27T10:00:02.000Z' }))).rejects.toMatchObject({ code: 'INTERNAL' });
    expect((await store.get('run-1'))?.status).toBe('succeeded');
  });

  it('hands out copies: changing a record read back changes nothing stored', async () => {
    const store = await factory.runs();
    await store.start(started('run-1'));
    await store.addCall('run-1', ledgerCall('1'));
    const read = (await store.get('run-1'))!;
    read.calls.push(ledgerCall('forged'));
    read.status = 'succeeded';
    expect(await store.get('run-1')).toMatchObject({ status: 'running', calls: [ledgerCall('1')] });
  });

  it('lists the runs a query selects, oldest start first', async () => {
    const store = await factory.runs();
    await store.start(started('b', { startedAt: '2026-11-27T10:00:02.000Z', owner: 'bob' }));
    await store.start(started('a', { startedAt: '2026-11-27T10:00:01.000Z', owner: 'alice' }));
    await store.start(started('c', { startedAt: '2026-11-27T10:00:03.000Z', owner: 'alice', space: 'other' }));
    await store.end('b', { status: 'succeeded', endedAt: '2026-11-27T10:00:04.000Z' });
    expect((await store.list()).map((r) => r.id)).toEqual(['a', 'b', 'c']);
    expect((await store.list({ owner: 'alice' })).map((r) => r.id)).toEqual(['a', 'c']);
    expect((await store.list({ space: 'contract', status: 'running' })).map((r) => r.id)).toEqual(['a']);
    expect((await store.list({ status: 'succeeded' })).map((r) => r.id)).toEqual(['b']);
  });

  it('keeps every call of concurrent runs in its own ledger, in order', async () => {
    const store = await factory.runs();
    const ids = ['x', 'y', 'z'];
    await Promise.all(ids.map((id) => store.start(started(id))));
    for (let n = 0; n < 20; n++) await Promise.all(ids.map((id) => store.addCall(id, ledgerCall(`${id}${n}`))));
    for (const id of ids) expect((await store.get(id))!.calls.map((c) => c.callId)).toEqual(Array.from({ length: 20 }, (_, n) => `${id}${n}`));
  });
}

function sessionContract(factory: StoreFactory): void {
  const session = (id: string, fields: Partial<{ owner: string; space: string; createdAt: string }> = {}) => ({
    id,
    owner: 'alice',
    space: 'default',
    createdAt: '2026-11-27T10:00:00.000Z',
    metadata: { runs: 0 },
    ...fields,
  });

  it('keeps a session from its creation, used last as it was created, until it ends', async () => {
    const store = await factory.sessions();
    expect(await store.create(session('s-1'))).toBe(true);
    expect(await store.get('s-1')).toEqual({ ...session('s-1'), lastUsedAt: '2026-11-27T10:00:00.000Z' });
    expect(await store.end('s-1')).toBe(true);
    expect(await store.get('s-1')).toBeUndefined();
    expect(await store.end('s-1')).toBe(false);
  });

  it('refuses a second session under one id', async () => {
    const store = await factory.sessions();
    expect(await store.create(session('s-1'))).toBe(true);
    expect(await store.create(session('s-1', { owner: 'mallory' }))).toBe(false);
    expect((await store.get('s-1'))?.owner).toBe('alice');
  });

  it('moves the last use forward only, and sets the metadata fields given, keeping the others', async () => {
    const store = await factory.sessions();
    await store.create({ ...session('s-1'), metadata: { runs: 0, conversation: false } });
    expect(await store.touch('s-1', '2026-11-27T10:05:00.000Z', { runs: 1 })).toBe(true);
    expect(await store.touch('s-1', '2026-11-27T10:01:00.000Z')).toBe(true);
    expect(await store.get('s-1')).toMatchObject({ lastUsedAt: '2026-11-27T10:05:00.000Z', metadata: { runs: 1, conversation: false } });
    expect(await store.touch('no-such-session', '2026-11-27T10:05:00.000Z')).toBe(false);
  });

  it('lists the sessions a query selects, most recently used first', async () => {
    const store = await factory.sessions();
    await store.create(session('a'));
    await store.create(session('b', { owner: 'bob' }));
    await store.create(session('c', { space: 'other' }));
    await store.touch('a', '2026-11-27T10:03:00.000Z');
    await store.touch('c', '2026-11-27T10:02:00.000Z');
    expect((await store.list()).map((s) => s.id)).toEqual(['a', 'c', 'b']);
    expect((await store.list({ owner: 'alice' })).map((s) => s.id)).toEqual(['a', 'c']);
    expect((await store.list({ owner: 'alice', space: 'default' })).map((s) => s.id)).toEqual(['a']);
  });

  it('hands out copies: changing a record read back changes nothing stored', async () => {
    const store = await factory.sessions();
    await store.create(session('s-1'));
    const read = (await store.get('s-1'))!;
    read.metadata.runs = 99;
    read.lastUsedAt = '2099-01-01T00:00:00.000Z';
    expect(await store.get('s-1')).toMatchObject({ lastUsedAt: '2026-11-27T10:00:00.000Z', metadata: { runs: 0 } });
  });

  it('lets exactly one of concurrent creations under one id win', async () => {
    const store = await factory.sessions();
    const created = await Promise.all(Array.from({ length: 8 }, (_, i) => store.create(session('same', { owner: `o${i}` }))));
    expect(created.filter(Boolean)).toHaveLength(1);
    expect((await store.get('same'))?.owner).toBe(`o${created.indexOf(true)}`);
  });
}
