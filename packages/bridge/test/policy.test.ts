import { describe, expect, it } from 'vitest';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { createBridge, type ApprovalRequest, type PendingCall } from '../src/index.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

const signal = new AbortController().signal;

describe('policy and approval', () => {
  const gated = (config: { requiresApproval?: boolean } = {}, fnApproval = true) => {
    const ran: unknown[] = [];
    const capability = memoryCapability(
      'files',
      [
        {
          name: 'deleteFile',
          parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
          requiresApproval: fnApproval,
          approvalMessage: (p) => `Delete file: ${String(p.path)}?`,
          run: (params) => ran.push(params),
        },
      ],
      config,
    );
    return { capability, ran };
  };
  const del = msg('files', 'deleteFile', { path: 'a.txt' });

  it('denies a gated call with APPROVAL_DENIED when there is no approver, saying so', async () => {
    const { capability, ran } = gated();
    const error = errorOf(await createBridge({ capabilities: [capability] }).call(del, signal));
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toContain('no approver');
    expect(ran).toHaveLength(0);
  });

  it('asks the approver with the function message and runs the call when approved', async () => {
    const { capability, ran } = gated();
    const requests: ApprovalRequest[] = [];
    const bridge = createBridge({ capabilities: [capability], onApproval: (r) => (requests.push(r), true) });
    expect(await bridge.call(del, signal)).toEqual({ ok: true, value: 1 });
    expect(requests).toEqual([
      {
        id: expect.any(String),
        capability: 'files',
        function: 'deleteFile',
        params: { path: 'a.txt' },
        message: 'Delete file: a.txt?',
        createdAt: expect.any(String),
        expiresAt: expect.any(String),
      },
    ]);
    expect(Date.parse(requests[0]!.expiresAt!) - Date.parse(requests[0]!.createdAt!)).toBe(300_000);
    expect(ran).toEqual([{ path: 'a.txt' }]);
  });

  it('asks when only the capability config requires approval', async () => {
    const { capability, ran } = gated({ requiresApproval: true }, false);
    const bridge = createBridge({ capabilities: [capability], onApproval: async () => false });
    expect(errorOf(await bridge.call(del, signal)).code).toBe('APPROVAL_DENIED');
    expect(ran).toHaveLength(0);
  });

  it('denies when the approver says no or throws', async () => {
    const { capability, ran } = gated();
    const no = createBridge({ capabilities: [capability], onApproval: () => false });
    const broken = createBridge({
      capabilities: [capability],
      onApproval: () => {
        throw new Error('prompt crashed');
      },
    });
    expect(errorOf(await no.call(del, signal)).code).toBe('APPROVAL_DENIED');
    const error = errorOf(await broken.call(del, signal));
    expect(error.code).toBe('APPROVAL_DENIED');
    expect(error.message).toContain('prompt crashed');
    expect(ran).toHaveLength(0);
  });

  it('lets a policy allow a gated call, deny an ungated one, and ask with its own message', async () => {
    const { capability, ran } = gated();
    const seen: PendingCall[] = [];
    const asked: string[] = [];
    const bridge = createBridge({
      capabilities: [capability],
      onApproval: (r) => (asked.push(r.message), true),
      policy: {
        decide(call) {
          seen.push(call);
          const path = String(call.params.path);
          if (path.startsWith('/tmp/')) return { kind: 'allow' };
          if (path === 'keep.txt') return { kind: 'deny', reason: 'keep.txt is protected' };
          return Promise.resolve({ kind: 'ask', message: `Really delete ${path}?` });
        },
      },
    });
    expect((await bridge.call(msg('files', 'deleteFile', { path: '/tmp/x' }), signal)).ok).toBe(true);
    const denied = errorOf(await bridge.call(msg('files', 'deleteFile', { path: 'keep.txt' }), signal));
    expect(denied).toMatchObject({ code: 'POLICY_DENIED', data: { reason: 'keep.txt is protected' } });
    expect((await bridge.call(msg('files', 'deleteFile', { path: 'b.txt' }), signal)).ok).toBe(true);
    expect(asked).toEqual(['Really delete b.txt?']);
    expect(ran).toEqual([{ path: '/tmp/x' }, { path: 'b.txt' }]);
    expect(seen.map((c) => [c.capability.id, c.function.name, c.signal])).toEqual(Array(3).fill(['files', 'deleteFile', signal]));
  });

  it('never consults the policy for a call that fails validation', async () => {
    const { capability } = gated();
    let consulted = 0;
    const bridge = createBridge({ capabilities: [capability], policy: { decide: () => (consulted++, { kind: 'allow' }) } });
    expect(errorOf(await bridge.call(msg('files', 'deleteFile', {}), signal)).code).toBe('INVALID_PARAMS');
    expect(consulted).toBe(0);
  });

  it("keeps the code of an AgentSpacesError the policy throws and reports other throws as INTERNAL", async () => {
    const { capability, ran } = gated(undefined, false);
    const limited = createBridge({
      capabilities: [capability],
      policy: {
        decide: () => {
          throw new AgentSpacesError('RATE_LIMITED', 'Too many calls', { retryAfterMs: 1000 });
        },
      },
    });
    expect(errorOf(await limited.call(del, signal))).toMatchObject({ code: 'RATE_LIMITED', data: { retryAfterMs: 1000 } });
    const broken = createBridge({ capabilities: [capability], policy: { decide: () => Promise.reject(new Error('boom')) } });
    expect(errorOf(await broken.call(del, signal))).toMatchObject({ code: 'INTERNAL', message: expect.stringContaining('boom') });
    expect(ran).toHaveLength(0);
  });

  it('ends a call waiting for approval with ABORTED when the run aborts, and never runs it', async () => {
    const { capability, ran } = gated();
    const controller = new AbortController();
    const bridge = createBridge({
      capabilities: [capability],
      onApproval: () => {
        controller.abort();
        return new Promise<boolean>(() => {});
      },
    });
    expect(errorOf(await bridge.call(del, controller.signal)).code).toBe('ABORTED');
    expect(ran).toHaveLength(0);
  });
});
