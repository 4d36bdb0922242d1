import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  FileAuditArchive,
  FileApprovalStore,
  FileAuditStore,
  FileRunStore,
  FileSessionStore,
  MemoryApprovalStore,
  MemoryRateLimitStore,
  MemoryRunStore,
  MemorySessionStore,
  auditLogFile,
  createBridge,
  readAuditLog,
} from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';
import { storeContract } from './stores-contract.js';

let dir: string;
beforeAll(async () => {
  ({ dir } = await makeProject());
});

storeContract('embedded stores', {
  audit: (space) => new FileAuditStore(dir, space),
  archive: () => new FileAuditArchive(dir),
  rateLimits: () => new MemoryRateLimitStore(),
  approvals: () => new MemoryApprovalStore(),
  runs: () => new MemoryRunStore({ keepEnded: 100 }),
  sessions: () => new MemorySessionStore(),
});

let durableDir: string;
beforeAll(async () => {
  ({ dir: durableDir } = await makeProject());
});

storeContract('durable stores (files)', {
  audit: (space) => new FileAuditStore(durableDir, space),
  archive: () => new FileAuditArchive(durableDir),
  rateLimits: () => new MemoryRateLimitStore(),
  approvals: async () => new FileApprovalStore((await makeProject()).dir, { pollMs: 5 }),
  runs: async () => new FileRunStore((await makeProject()).dir, { keepEnded: 100 }),
  sessions: async () => new FileSessionStore((await makeProject()).dir),
});

describe('the embedded audit store', () => {
  it('keeps the log of a space in <outDir>/audit/<space>.jsonl', () => {
    const store = new FileAuditStore(dir, 'where');
    store.close();
    expect(store.file).toBe(auditLogFile(dir, 'where'));
    expect(store.file).toBe(join(dir, 'audit', 'where.jsonl'));
  });
});

describe('the embedded run store', () => {
  const started = (id: string) => ({ id, space: 'default', script: 'export default 1;', startedAt: new Date().toISOString() });

  it('forgets a run as it ends by default, so a space holds nothing of its finished runs', async () => {
    const store = new MemoryRunStore();
    await store.start(started('run-1'));
    expect((await store.get('run-1'))?.status).toBe('running');
    await store.end('run-1', { status: 'succeeded', endedAt: new Date().toISOString() });
    expect(await store.get('run-1')).toBeUndefined();
    expect(await store.list()).toEqual([]);
  });

  it('keeps the last `keepEnded` ended runs, and every running one', async () => {
    const store = new MemoryRunStore({ keepEnded: 2 });
    for (const id of ['a', 'b', 'c', 'd']) await store.start(started(id));
    for (const id of ['a', 'b', 'c']) await store.end(id, { status: 'succeeded', endedAt: new Date().toISOString() });
    expect((await store.list()).map((r) => r.id)).toEqual(['b', 'c', 'd']);
  });
});

describe('the bridge keeps its state in the stores it is given', () => {
  const signal = new AbortController().signal;

  it('counts the calls of two bridges sharing a rate-limit store in one window', async () => {
    const api = () => memoryCapability('api', [{ name: 'post', run: () => 'posted' }], { rateLimit: { requests: 2, period: 'minute' } });
    const rateLimitStore = new MemoryRateLimitStore();
    const [a, b] = [createBridge({ capabilities: [api()], rateLimitStore }), createBridge({ capabilities: [api()], rateLimitStore })];
    expect((await a.call(msg('api', 'post', {}), signal)).ok).toBe(true);
    expect((await b.call(msg('api', 'post', {}), signal)).ok).toBe(true);
    expect(errorOf(await a.call(msg('api', 'post', {}), signal)).code).toBe('RATE_LIMITED');
  });

  it('keeps a waiting approval request in the approval store until it is answered', async () => {
    const files = memoryCapability('files', [{ name: 'deleteFile', requiresApproval: true, run: () => 'deleted' }]);
    const approvalStore = new MemoryApprovalStore();
    const bridge = createBridge({ capabilities: [files], awaitApprovals: true, approvalStore });
    const outcome = bridge.call(msg('files', 'deleteFile', { path: 'a' }), signal);
    for (let i = 0; i < 200 && (await approvalStore.pending()).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    expect((await approvalStore.pending()).map((r) => r.function)).toEqual(['deleteFile']);
    expect(await bridge.approvals.pending()).toEqual(await approvalStore.pending());
    expect(await bridge.approvals.resolve((await approvalStore.pending())[0]!.id, { approved: true })).toBe(true);
    expect((await outcome).ok).toBe(true);
    expect(await approvalStore.pending()).toEqual([]);
  });

  it('appends each call to the audit store it is given', async () => {
    const audit = new FileAuditStore(dir, 'bridge-audit');
    const bridge = createBridge({ capabilities: [memoryCapability('mail', [{ name: 'send', run: () => 'sent' }])], audit });
    await bridge.call(msg('mail', 'send', {}), signal);
    audit.close();
    expect(readAuditLog(audit.file).records.map((r) => [r.space, r.capability, r.function, r.outcome.ok])).toEqual([['bridge-audit', 'mail', 'send', true]]);
  });
});

describe('the durable stores', () => {
  it('keep their records readable by the process user only, and never name a file after a hostile id', async () => {
    const { dir: outDir } = await makeProject();
    const runs = new FileRunStore(outDir);
    runs.keep({ id: 'run-1', space: 's', script: '', startedAt: '2026-11-27T00:00:00.000Z', status: 'paused', replay: { clock: { seed: 1, startedAt: 0 }, calls: [], replayable: true } });
    const approvals = new FileApprovalStore(outDir);
    await approvals.add({ id: 'approval-1', capability: 'c', function: 'f', params: {}, message: 'm' });
    for (const file of [join(outDir, 'state/runs/run-1.json'), join(outDir, 'state/approvals/approval-1.json')]) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(statSync(join(outDir, 'state/runs')).mode & 0o777).toBe(0o700);
    for (const hostile of ['../run-1', 'a/b', '..', 'x'.repeat(200), 'id with spaces']) {
      expect(await approvals.answer(hostile, { approved: true, by: 'x' })).toBe(false);
      expect(await approvals.get(hostile)).toBeUndefined();
      await expect(approvals.add({ id: hostile, capability: 'c', function: 'f', params: {}, message: 'm' })).rejects.toMatchObject({ code: 'INTERNAL' });
    }
  });
});

describe('the durable run store finds a session\'s kept runs by its index', () => {
  const kept = (id: string, sessionId: string | undefined, minute: number) => ({
    id,
    space: 's',
    script: `export default ${minute}`,
    startedAt: `2026-11-27T00:${String(minute).padStart(2, '0')}:00.000Z`,
    status: 'succeeded' as const,
    endedAt: new Date().toISOString(),
    replay: { clock: { seed: 1, startedAt: 0 }, calls: [], replayable: true },
    ...(sessionId ? { sessionId } : {}),
  });

  it('among many sessions, across keep, forget and a reopen (a restart), and a paused plain run beside them', async () => {
    const { dir: outDir } = await makeProject();
    const runs = new FileRunStore(outDir);
    for (let session = 0; session < 50; session++) for (let run = 0; run < 4; run++) runs.keep(kept(`s${session}-r${run}`, `session-${session}`, run));
    runs.keep({ ...kept('plain', undefined, 1), status: 'paused' });
    expect((await runs.keptRuns({ sessionId: 'session-7' })).map((r) => r.id)).toEqual(['s7-r0', 's7-r1', 's7-r2', 's7-r3']);
    runs.forget('s7-r1');
    expect((await runs.keptRuns({ sessionId: 'session-7' })).map((r) => r.id)).toEqual(['s7-r0', 's7-r2', 's7-r3']);
    for (const id of ['s7-r0', 's7-r2', 's7-r3']) runs.forget(id);
    expect(await runs.keptRuns({ sessionId: 'session-7' })).toEqual([]);
    expect(await runs.keptRuns({ sessionId: 'no-such-session' })).toEqual([]);

    const reopened = new FileRunStore(outDir);
    expect((await reopened.keptRuns({ sessionId: 'session-8' })).map((r) => r.id)).toEqual(['s8-r0', 's8-r1', 's8-r2', 's8-r3']);
    expect(await reopened.keptRuns({ sessionId: 'session-7' })).toEqual([]);
    expect((await reopened.keptRuns({ status: 'paused' })).map((r) => r.id)).toEqual(['plain']);
  });

  it('finds runs another process kept later through the other queries at once, and by session after a reopen', async () => {
    const { dir: outDir } = await makeProject();
    const runs = new FileRunStore(outDir);
    runs.keep(kept('mine', 'session-a', 1));
    // Written beside it by another process, after this store opened.
    writeFileSync(join(outDir, 'state/runs/theirs.json'), JSON.stringify(kept('theirs', 'session-a', 2)), { mode: 0o600 });
    expect((await runs.keptRuns({ sessionId: 'session-a' })).map((r) => r.id)).toEqual(['mine']);
    expect((await runs.keptRuns({ status: 'succeeded' })).map((r) => r.id)).toEqual(['mine', 'theirs']);
    expect((await new FileRunStore(outDir).keptRuns({ sessionId: 'session-a' })).map((r) => r.id)).toEqual(['mine', 'theirs']);
  });
});
