import { describe, expect, it } from 'vitest';
import { createBridge, type ApprovalContext, type Approver, type AuditEntry, type BridgeOptions, type CallEvent, type CallOrigin } from '../src/index.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

function setup(options: Partial<BridgeOptions> = {}) {
  const ran: unknown[] = [];
  const vault = memoryCapability('vault', [
    { name: 'wipe', requiresApproval: true, approvalMessage: () => 'Wipe the vault?', run: () => (ran.push('wipe'), 'wiped') },
  ]);
  const audit: AuditEntry[] = [];
  const bridge = createBridge({ capabilities: [vault], audit: { append: (entry: AuditEntry) => void audit.push(entry) }, ...options });
  const wipe = (origin: CallOrigin = {}, signal = new AbortController().signal) => bridge.call(msg('vault', 'wipe'), signal, origin);
  return { bridge, ran, audit, wipe };
}

/** An approver that never answers by itself and records the context it was given. */
function hangingApprover(): { approver: Approver; contexts: ApprovalContext[] } {
  const contexts: ApprovalContext[] = [];
  return { contexts, approver: (_request, context) => (contexts.push(context), new Promise<boolean>(() => undefined)) };
}

/** Resolves once `contexts` holds one entry. */
async function asked(contexts: readonly ApprovalContext[]): Promise<ApprovalContext> {
  await expect.poll(() => contexts.length).toBe(1);
  return contexts[0]!;
}

describe('an approval request withdrawn from its approver', () => {
  it('aborts the approver’s signal, with the reason, when the request times out', async () => {
    const { approver, contexts } = hangingApprover();
    const { ran, wipe } = setup({ onApproval: approver, approvalTimeoutMs: 50 });
    expect(errorOf(await wipe())).toMatchObject({ code: 'APPROVAL_DENIED', data: { by: 'timeout' } });
    const { signal } = await asked(contexts);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('no answer within 50 ms');
    expect(ran).toEqual([]);
  });

  it('aborts it when approvals.resolve() answers first', async () => {
    const { approver, contexts } = hangingApprover();
    const { bridge, ran, wipe } = setup({ onApproval: approver });
    const call = wipe();
    const { signal } = await asked(contexts);
    expect(signal.aborted).toBe(false);
    expect(await bridge.approvals.resolve((await bridge.approvals.pending())[0]!.id, { approved: true, by: 'admin' })).toBe(true);
    expect(await call).toEqual({ ok: true, value: 'wiped' });
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('answered through approvals.resolve()');
    expect(ran).toEqual(['wipe']);
  });

  it('aborts it when the call is aborted', async () => {
    const { approver, contexts } = hangingApprover();
    const { bridge, ran, wipe } = setup({ onApproval: approver });
    const controller = new AbortController();
    const call = wipe({}, controller.signal);
    const { signal } = await asked(contexts);
    controller.abort();
    expect(errorOf(await call).code).toBe('ABORTED');
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('the call was aborted');
    expect(await bridge.approvals.pending()).toEqual([]);
    expect(ran).toEqual([]);
  });

  it('never aborts it once the approver has answered (an answered prompt is not withdrawn)', async () => {
    const contexts: ApprovalContext[] = [];
    const { wipe } = setup({ onApproval: (_request, context) => (contexts.push(context), true) });
    expect(await wipe()).toEqual({ ok: true, value: 'wiped' });
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(contexts[0]!.signal.aborted).toBe(false);
  });

  it('ignores a late answer of an approver that did not stop: the request stays settled as it was', async () => {
    let answer: (approved: boolean) => void = () => undefined;
    const { ran, audit, wipe } = setup({ onApproval: () => new Promise<boolean>((resolve) => (answer = resolve)), approvalTimeoutMs: 30 });
    expect(errorOf(await wipe()).code).toBe('APPROVAL_DENIED');
    answer(true);
    await new Promise((resolve) => setTimeout(resolve, 20));
    expect(ran).toEqual([]);
    expect(audit.map((e) => e.decision)).toEqual([
      expect.objectContaining({ kind: 'ask', message: expect.any(String) }),
      expect.objectContaining({ kind: 'ask', approved: false, answeredBy: 'timeout' }),
    ]);
  });
});

describe('an approver of the call’s origin', () => {
  it('answers instead of the bridge’s approver, which is never asked', async () => {
    const bridgeAsked: string[] = [];
    const { ran, audit, wipe } = setup({ onApproval: (request) => (bridgeAsked.push(request.id), false) });
    const outcome = await wipe({ runId: 'run-1', onApproval: (request) => ({ approved: request.runId === 'run-1', by: 'alice' }) });
    expect(outcome).toEqual({ ok: true, value: 'wiped' });
    expect(bridgeAsked).toEqual([]);
    expect(ran).toEqual(['wipe']);
    expect(audit.map((e) => e.pending ?? 'ended')).toEqual(['approval', 'ended']);
    expect(audit[1]!.decision).toMatchObject({ kind: 'ask', approved: true, answeredBy: 'alice' });
  });

  it('makes a bridge without any approver ask, with approvalRequired and approvalResolved events', async () => {
    const events: CallEvent[] = [];
    const { wipe } = setup();
    const onEvent = (event: CallEvent) => void (event.type.startsWith('approval') && events.push(event));
    expect(errorOf(await wipe({ onEvent }))).toMatchObject({ code: 'APPROVAL_DENIED', data: { by: 'no-approver' } });
    expect(events).toEqual([]);
    expect(await wipe({ onEvent, onApproval: () => true })).toEqual({ ok: true, value: 'wiped' });
    expect(events.map((e) => e.type)).toEqual(['approvalRequired', 'approvalResolved']);
    expect(events[1]).toMatchObject({ approved: true, by: 'approver' });
  });

  it('denies, naming the failure, when the origin’s approver throws or answers garbage', async () => {
    const { ran, wipe } = setup();
    const throwing: Approver = () => {
      throw new Error('prompt crashed');
    };
    expect(errorOf(await wipe({ onApproval: throwing })).message).toContain('prompt crashed');
    for (const garbage of [undefined, 'yes', 1, { approved: 'true' }, null]) {
      const error = errorOf(await wipe({ onApproval: () => garbage as unknown as boolean }));
      expect(error.code).toBe('APPROVAL_DENIED');
    }
    expect(ran).toEqual([]);
  });
});
