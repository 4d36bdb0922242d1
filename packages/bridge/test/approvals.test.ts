import { describe, expect, it } from 'vitest';
import { createBridge, type AuditEntry, type BridgeOptions, type CallEvent } from '../src/index.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

const signal = new AbortController().signal;

function setup(options: Partial<BridgeOptions> = {}) {
  const ran: unknown[] = [];
  const files = memoryCapability('files', [
    {
      name: 'deleteFile',
      requiresApproval: true,
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
      approvalMessage: (p) => `Delete file: ${String(p.path)}?`,
      run: (params) => (ran.push(params), `deleted ${String(params.path)}`),
    },
    { name: 'list', run: () => (ran.push('list'), ['a']) },
  ]);
  const bridge = createBridge({ capabilities: [files], awaitApprovals: true, ...options });
  const events: CallEvent[] = [];
  const origin = { runId: 'run-1', onEvent: (event: CallEvent) => event.type.startsWith('approval') && events.push(event) };
  const del = (path: string, s = signal) => bridge.call(msg('files', 'deleteFile', { path }), s, origin);
  return { bridge, ran, events, del };
}

/** Waits until the bridge has `count` pending approvals. */
async function pending(bridge: ReturnType<typeof setup>['bridge'], count = 1) {
  for (let i = 0; i < 2_000 && (await bridge.approvals.pending()).length < count; i++) await new Promise((r) => setTimeout(r, 5));
  return bridge.approvals.pending();
}

describe('the approval flow', () => {
  it('emits approvalRequired with the seed fields plus an id, and runs the call once resolved as approved', async () => {
    const { bridge, ran, events, del } = setup();
    const call = del('important.txt');
    const [request] = await pending(bridge);
    expect(events).toEqual([
      {
        type: 'approvalRequired',
        id: request!.id,
        callId: '1',
        source: 'capability',
        capability: 'files',
        function: 'deleteFile',
        params: { path: 'important.txt' },
        message: 'Delete file: important.txt?',
      },
    ]);
    expect(request).toMatchObject({ runId: 'run-1', message: 'Delete file: important.txt?' });
    expect(ran).toEqual([]);
    expect(await bridge.approvals.resolve(request!.id, { approved: true })).toBe(true);
    expect(await call).toEqual({ ok: true, value: 'deleted important.txt' });
    expect(events[1]).toEqual({ type: 'approvalResolved', id: request!.id, approved: true, by: 'resolve' });
    expect(await bridge.approvals.pending()).toEqual([]);
  });

  it('fails a denied call with APPROVAL_DENIED carrying the reason, and never runs it', async () => {
    const { bridge, ran, del } = setup();
    const call = del('important.txt');
    const [request] = await pending(bridge);
    await bridge.approvals.resolve(request!.id, { approved: false, reason: 'not today' });
    const error = errorOf(await call);
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toContain('not today');
    expect(ran).toEqual([]);
  });

  it('times out a pending approval as denied', async () => {
    const { ran, events, del } = setup({ approvalTimeoutMs: 50 });
    const error = errorOf(await del('slow.txt'));
    expect(error).toMatchObject({ code: 'APPROVAL_DENIED', data: { by: 'timeout' } });
    expect(events.at(-1)).toMatchObject({ type: 'approvalResolved', approved: false, by: 'timeout' });
    expect(ran).toEqual([]);
  });

  it('keeps other parallel calls running while one waits', async () => {
    const { bridge, ran, del } = setup();
    const gated = del('a.txt');
    await pending(bridge);
    const listed = await Promise.all([1, 2, 3].map(() => bridge.call(msg('files', 'list'), signal)));
    expect(listed.every((o) => o.ok)).toBe(true);
    expect(ran).toEqual(['list', 'list', 'list']);
    await bridge.approvals.resolve((await bridge.approvals.pending())[0]!.id, { approved: true });
    expect((await gated).ok).toBe(true);
  });

  it('applies an answer only to its own request: two racing calls, one approved, one denied', async () => {
    const { bridge, ran, del } = setup();
    const first = del('first.txt');
    const second = del('second.txt');
    const requests = await pending(bridge, 2);
    const byPath = new Map(requests.map((r) => [(r.params as { path: string }).path, r.id]));
    expect(await bridge.approvals.resolve(byPath.get('second.txt')!, { approved: true })).toBe(true);
    expect(await bridge.approvals.resolve(byPath.get('second.txt')!, { approved: false })).toBe(false);
    expect(await bridge.approvals.resolve('no-such-id', { approved: true })).toBe(false);
    expect(await bridge.approvals.resolve(byPath.get('first.txt')!, { approved: false })).toBe(true);
    expect(errorOf(await first).code).toBe('APPROVAL_DENIED');
    expect(await second).toEqual({ ok: true, value: 'deleted second.txt' });
    expect(ran).toEqual([{ path: 'second.txt' }]);
  });

  it('takes the first answer from onApproval or resolve, and records who gave it', async () => {
    const answers: string[] = [];
    const { bridge, del } = setup({
      onApproval: () => new Promise((resolve) => setTimeout(() => resolve({ approved: false, by: 'slow-ui' }), 200)),
      audit: { append: (e: AuditEntry) => void answers.push(e.pending ? 'asked' : e.decision?.kind === 'ask' ? `${e.decision.approved} by ${e.decision.answeredBy}` : '') },
    });
    const call = del('x.txt');
    const [request] = await pending(bridge);
    await bridge.approvals.resolve(request!.id, { approved: true, by: 'admin' });
    expect((await call).ok).toBe(true);
    expect(answers).toEqual(['asked', 'true by admin']);
  });

  it('ends a pending approval with ABORTED when the run aborts, leaving nothing pending', async () => {
    const { bridge, ran, del } = setup();
    const controller = new AbortController();
    const call = del('x.txt', controller.signal);
    await pending(bridge);
    controller.abort();
    expect(errorOf(await call).code).toBe('ABORTED');
    expect(await bridge.approvals.pending()).toEqual([]);
    expect(ran).toEqual([]);
  });

  it('denies at once, without events, when nobody can answer', async () => {
    const { ran, events, del } = setup({ awaitApprovals: false });
    expect(errorOf(await del('x.txt'))).toMatchObject({ code: 'APPROVAL_DENIED', data: { by: 'no-approver' } });
    expect(events).toEqual([]);
    expect(ran).toEqual([]);
  });
});
