/**
 * The contract every implementation of the bridge's stores passes: run `storeContract` with a factory of fresh
 * stores (the embedded ones in stores.test.ts; a PostgreSQL or Redis one later).
 */
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest, ApprovalStore, AuditEntry, AuditStore, RateLimitStore, RateWindow } from '../src/index.js';

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

function approvalContract(factory: StoreFactory): void {
  it('lists the waiting requests, oldest first, until each is removed', async () => {
    const store = await factory.approvals();
    expect(store.pending()).toEqual([]);
    expect(store.add(request('1'))).toBe(true);
    expect(store.add(request('2'))).toBe(true);
    expect(store.pending()).toEqual([request('1'), request('2')]);
    store.remove('1');
    expect(store.pending()).toEqual([request('2')]);
  });

  it('refuses a second request under the id of a waiting one, and takes one after it is removed', async () => {
    const store = await factory.approvals();
    expect(store.add(request('1'))).toBe(true);
    expect(store.add({ ...request('1'), message: 'another' })).toBe(false);
    expect(store.pending()).toEqual([request('1')]);
    store.remove('1');
    store.remove('1');
    expect(store.add({ ...request('1'), message: 'again' })).toBe(true);
    expect(store.pending().map((r) => r.message)).toEqual(['again']);
  });
}
