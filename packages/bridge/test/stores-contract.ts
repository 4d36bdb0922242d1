/**
 * The contract every implementation of the bridge's stores passes: run `storeContract` with a factory of fresh
 * stores (the embedded ones in stores.test.ts; a PostgreSQL or Redis one later).
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalOutcome, ApprovalRequest, ApprovalStore, AuditEntry, AuditStore, RateLimitStore, RateWindow } from '../src/index.js';

/** Makes fresh, empty stores; `audit(space)` a store for the audit records of `space`. */
export interface StoreFactory {
  audit(space: string): AuditStore | Promise<AuditStore>;
  rateLimits(): RateLimitStore | Promise<RateLimitStore>;
  approvals(): ApprovalStore | Promise<ApprovalStore>;
}

/** Registers the contract tests of the three stores, each test with stores from `factory`. */
export function storeContract(name: string, factory: StoreFactory): void {
  describe(`${name}: audit store`, () => auditContract(factory));
  describe(`${name}: rate-limit store`, () => rateLimitContract(factory));
  describe(`${name}: approval store`, () => approvalContract(factory));
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

function rateLimitContract(factory: StoreFactory): void {
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
