// The principal a call is made for, through the bridge: policy rules on it (who / except), who may answer an approval
// (others / groups), per-user rate limits and the principal on audit lines.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { AgentSpacesError, LOCAL_PRINCIPAL, type PoliciesConfig, type Principal } from '@agent-spaces/capabilities';
import {
  ApprovalService,
  createBridge,
  createGate,
  createPolicy,
  FileApprovalStore,
  type ApprovalStore,
  type AuditEntry,
  type BridgeOptions,
  type CallOrigin,
  type PendingCall,
} from '../src/index.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

const alice: Principal = { id: 'user:alice', subject: 'alice', clientId: 'app-a', scopes: ['crm:read'], groups: ['interns'] };
const bob: Principal = { id: 'user:bob', subject: 'bob', clientId: 'app-b', scopes: ['crm:read', 'crm:write'], groups: ['admins', 'staff'] };
const carol: Principal = { id: 'user:carol', subject: 'carol', scopes: [], groups: ['staff'] };
const shared: Principal = { id: 'token:0123456789abcdef', scopes: [], groups: [] };
const never = new AbortController().signal;

const crm = memoryCapability('crm', [{ name: 'deleteRecord', run: () => 'deleted' }, { name: 'readRecord', run: () => 'read' }]);

/** What `policies` decides for `crm.<fn>(params)` made for `principal` (none: a call without one): action and rule. */
function decide(policies: PoliciesConfig, principal: Principal | undefined, params: Record<string, unknown> = {}, fn = 'deleteRecord') {
  const call: PendingCall = { id: '1', capability: crm, function: crm.functions.get(fn)!, params, signal: never, ...(principal ? { principal } : {}) };
  const decision = createPolicy(policies).decide(call) as { kind: string; by?: string; approvers?: unknown };
  return { kind: decision.kind, by: decision.by, approvers: decision.approvers };
}

describe('policy rules on the principal', () => {
  it('asks everyone but admins (except)', () => {
    const policies: PoliciesConfig = { rules: { 'crm.deleteRecord': [{ then: 'ask', except: { groups: 'admins' } }] } };
    expect(decide(policies, alice)).toMatchObject({ kind: 'ask', by: 'policies.rules["crm.deleteRecord"][0]' });
    expect(decide(policies, carol).kind).toBe('ask');
    expect(decide(policies, undefined).kind).toBe('ask');
    expect(decide(policies, bob)).toEqual({ kind: 'allow', by: 'default', approvers: undefined });
  });

  it('denies interns everything (who on "*"), and nobody else', () => {
    const policies: PoliciesConfig = { rules: { '*': [{ who: { groups: 'interns' }, then: 'deny' }] } };
    expect(decide(policies, alice)).toMatchObject({ kind: 'deny', by: 'policies.rules["*"][0]' });
    expect(decide(policies, alice, {}, 'readRecord').kind).toBe('deny');
    for (const other of [bob, carol, shared, undefined]) expect(decide(policies, other).kind).toBe('allow');
  });

  it.each([
    ['a subject', { users: 'alice' }, [alice], [bob, carol, shared, undefined]],
    ['a principal id', { users: 'user:alice' }, [alice], [bob, carol, undefined]],
    ['local (a call without a principal, or LOCAL_PRINCIPAL)', { users: 'local' }, [undefined, LOCAL_PRINCIPAL], [alice, shared]],
    ['the shared token', { users: 'token:0123456789abcdef' }, [shared], [alice, undefined]],
    ['any of several users', { users: ['bob', 'carol'] }, [bob, carol], [alice, undefined]],
    ['a group of several', { groups: ['interns', 'nobody'] }, [alice], [bob, carol, undefined]],
    ['any of the principal\'s groups', { groups: 'staff' }, [bob, carol], [alice, shared]],
    ['a scope', { scopes: 'crm:write' }, [bob], [alice, carol, undefined]],
    ['a client', { clients: ['app-a', 'app-x'] }, [alice], [bob, carol, undefined]],
    ['every key given (AND)', { groups: 'staff', scopes: 'crm:write' }, [bob], [carol, alice]],
    ['every key given, one failing', { users: 'carol', clients: 'app-b' }, [], [carol, bob]],
  ] as const)('who matches %s', (_, who, matching, others) => {
    const policies: PoliciesConfig = { rules: { crm: [{ who, then: 'deny' }] } };
    for (const principal of matching) expect(decide(policies, principal).kind, principal?.id ?? 'none').toBe('deny');
    for (const principal of others) expect(decide(policies, principal).kind, principal?.id ?? 'none').toBe('allow');
  });

  it.each([
    ['local', 'local'],
    ['token:0123456789abcdef', 'token:0123456789abcdef'],
    ['user:alice', 'user:alice'],
    ['a subject that looks like an id', 'user:bob'],
  ])('a user whose sub is %s is not taken for the principal of that name', (_, sub) => {
    const impostor: Principal = { id: `user:${sub}`, subject: sub, scopes: [], groups: [] };
    const policies: PoliciesConfig = { rules: { crm: [{ who: { users: sub }, then: 'allow' }, { then: 'deny' }] } };
    expect(decide(policies, impostor).kind).toBe('deny');
    expect(decide({ rules: { crm: [{ who: { users: `user:${sub}` }, then: 'allow' }, { then: 'deny' }] } }, impostor).kind).toBe('allow');
  });

  it('combines who, except and when; a rule that does not apply lets the next one decide', () => {
    const policies: PoliciesConfig = {
      rules: {
        crm: [
          { when: { amount: { gt: 100 } }, who: { groups: 'staff' }, except: { users: 'bob' }, then: 'deny' },
          { when: { amount: { gt: 100 } }, then: 'ask' },
        ],
      },
    };
    expect(decide(policies, carol, { amount: 500 })).toMatchObject({ kind: 'deny', by: 'policies.rules["crm"][0]' });
    expect(decide(policies, carol, { amount: 5 }).kind).toBe('allow');
    expect(decide(policies, bob, { amount: 500 })).toMatchObject({ kind: 'ask', by: 'policies.rules["crm"][1]' });
    expect(decide(policies, alice, { amount: 500 })).toMatchObject({ kind: 'ask', by: 'policies.rules["crm"][1]' });
  });

  it('the most specific key still wins over a principal rule of a wider key', () => {
    const policies: PoliciesConfig = { rules: { 'crm.readRecord': 'allow', '*': [{ who: { groups: 'interns' }, then: 'deny' }] } };
    expect(decide(policies, alice, {}, 'readRecord').kind).toBe('allow');
    expect(decide(policies, alice, {}, 'deleteRecord').kind).toBe('deny');
  });

  it('a rule\'s approvers go with its ask decision', () => {
    const policies: PoliciesConfig = { rules: { crm: [{ then: 'ask', approvers: { others: true, groups: 'admins' } }] } };
    expect(decide(policies, alice).approvers).toEqual({ others: true, groups: ['admins'] });
  });

  it.each([
    [{ rules: { crm: [{ who: 'admins', then: 'deny' }] } }, 'policies.rules["crm"][0].who: must be an object'],
    [{ rules: { crm: [{ who: {}, then: 'deny' }] } }, 'policies.rules["crm"][0].who: needs at least one of'],
    [{ rules: { crm: [{ who: { group: 'admins' }, then: 'deny' }] } }, 'policies.rules["crm"][0].who.group: unknown key'],
    [{ rules: { crm: [{ except: { users: '' }, then: 'deny' }] } }, 'policies.rules["crm"][0].except.users: must be a non-empty string'],
    [{ rules: { crm: [{ except: { groups: [] }, then: 'deny' }] } }, 'policies.rules["crm"][0].except.groups: must be a non-empty string'],
    [{ rules: { crm: [{ who: { scopes: ['a', 3] }, then: 'deny' }] } }, 'policies.rules["crm"][0].who.scopes'],
    [{ rules: { crm: [{ who: { clients: null }, then: 'deny' }] } }, 'policies.rules["crm"][0].who.clients'],
    [{ rules: { crm: [{ then: 'deny', approvers: { others: true } }] } }, 'policies.rules["crm"][0].approvers: only an ask rule'],
    [{ rules: { crm: [{ then: 'ask', approvers: { others: 'yes' } }] } }, 'policies.rules["crm"][0].approvers.others: must be a boolean'],
    [{ approvers: { groups: '' } }, 'policies.approvers.groups: must be a non-empty string'],
    [{ approvers: { group: 'admins' } }, 'policies.approvers.group: unknown key'],
    [{ approvers: true }, 'policies.approvers: must be an object'],
    [{ rateLimits: { crm: { requests: 1, period: 'minute', per: 'person' } } }, 'policies.rateLimits["crm"].per: must be "space" or "user"'],
    [{ rateLimits: { crm: { requests: 1, period: 'minute', per: null } } }, 'policies.rateLimits["crm"].per'],
  ])('refuses %j (CONFIG_INVALID naming the field)', (policies, field) => {
    let error: unknown;
    try {
      createPolicy(policies as PoliciesConfig);
    } catch (thrown) {
      error = thrown;
    }
    expect(error).toBeInstanceOf(AgentSpacesError);
    expect((error as AgentSpacesError).code).toBe('CONFIG_INVALID');
    expect((error as AgentSpacesError).message).toContain(field);
  });
});

/** A bridge asking for every `crm` call under `policies`, its approvals kept in `store` until answered. */
async function askingBridge(policies: PoliciesConfig, options: Partial<BridgeOptions> = {}) {
  const store: ApprovalStore = options.approvalStore ?? new FileApprovalStore((await makeProject()).dir, { pollMs: 5 });
  const audit: AuditEntry[] = [];
  const bridge = createBridge({
    capabilities: [crm],
    policy: createPolicy({ rules: { crm: 'ask' }, ...policies }),
    awaitApprovals: true,
    approvalStore: store,
    audit: { append: (entry) => void audit.push(entry) },
    ...(policies.approvers ? { approvers: { ...(policies.approvers.others ? { others: true } : {}), ...(policies.approvers.groups ? { groups: [policies.approvers.groups].flat() } : {}) } } : {}),
    ...options,
  });
  const service = new ApprovalService({ approvals: store });
  return { bridge, store, service, audit };
}

/** Resolves with the first pending request once there is one. */
async function pendingRequest(store: ApprovalStore) {
  for (let i = 0; i < 200; i++) {
    const [first] = await store.pending();
    if (first) return first;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('no request became pending');
}

const answer = (approved: boolean) => ({ approved, by: 'named by the body', from: 'http 127.0.0.1' });

async function codeOf(promise: Promise<unknown>): Promise<string | undefined> {
  try {
    await promise;
    return undefined;
  } catch (error) {
    return (error as AgentSpacesError).code;
  }
}

describe('who may approve: others', () => {
  const policies: PoliciesConfig = { approvers: { others: true } };

  it('refuses the requester, does not ask the requester\'s client, and takes another principal\'s answer', async () => {
    const { bridge, store, service, audit } = await askingBridge(policies);
    const asked: string[] = [];
    const origin: CallOrigin = { principal: alice, onApproval: (request) => (asked.push(request.id), true) };
    const outcome = bridge.call(msg('crm', 'deleteRecord', {}), never, origin);
    const request = await pendingRequest(store);
    expect(request.requestedBy).toEqual({ id: 'user:alice', subject: 'alice', groups: ['interns'] });
    expect(request.approvers).toEqual({ others: true });
    expect(asked).toEqual([]);
    expect(await codeOf(service.answer(request.id, answer(true), alice))).toBe('APPROVER_NOT_ALLOWED');
    const error = await service.answer(request.id, answer(true), alice).catch((e: AgentSpacesError) => e);
    expect((error as AgentSpacesError).data).toEqual({ id: request.id, requirement: { others: true } });
    const view = await service.answer(request.id, answer(true), bob);
    expect(view.answer).toMatchObject({ approved: true, by: 'user:bob', from: 'http 127.0.0.1' });
    expect(await outcome).toEqual({ ok: true, value: 'deleted' });
    expect(asked).toEqual([]);
    const ended = audit.find((entry) => entry.pending === undefined)!;
    expect(ended.principal).toEqual({ id: 'user:alice', subject: 'alice', clientId: 'app-a', groups: ['interns'] });
    expect(ended.decision).toMatchObject({ kind: 'ask', approved: true, answeredBy: 'user:bob', answeredFrom: 'http 127.0.0.1' });
    expect(audit.find((entry) => entry.pending !== undefined)?.principal?.id).toBe('user:alice');
  });

  it('the shared token and local are refused on their own requests, and keep the name they give on others\'', async () => {
    for (const requester of [shared, undefined]) {
      const { bridge, store, service } = await askingBridge(policies);
      const outcome = bridge.call(msg('crm', 'deleteRecord', {}), never, requester ? { principal: requester } : {});
      const request = await pendingRequest(store);
      expect(await codeOf(service.answer(request.id, answer(true), requester ?? LOCAL_PRINCIPAL))).toBe('APPROVER_NOT_ALLOWED');
      const other = requester ? LOCAL_PRINCIPAL : shared;
      expect((await service.answer(request.id, answer(false), other)).answer).toMatchObject({ approved: false, by: 'named by the body' });
      expect(errorOf(await outcome).code).toBe('APPROVAL_DENIED');
    }
  });

  it('the operator (no answerer) may answer, and so may space.approvals.resolve', async () => {
    const { bridge, store, service } = await askingBridge(policies);
    const first = bridge.call(msg('crm', 'deleteRecord', {}), never, { principal: alice });
    const one = await pendingRequest(store);
    expect((await service.answer(one.id, { approved: true, by: 'ann', from: 'cli on host' })).answer).toMatchObject({ approved: true, by: 'ann' });
    expect((await first).ok).toBe(true);
    const second = bridge.call(msg('crm', 'deleteRecord', {}), never, { principal: alice });
    const two = await pendingRequest(store);
    expect(await bridge.approvals.resolve(two.id, { approved: true, by: 'operator' })).toBe(true);
    expect((await second).ok).toBe(true);
  });

  it('an excluded requester\'s request times out unanswered: the client\'s approver is never asked', async () => {
    const { bridge } = await askingBridge(policies, { approvalTimeoutMs: 60, awaitApprovals: false });
    let asked = 0;
    const outcome = await bridge.call(msg('crm', 'deleteRecord', {}), never, { principal: alice, onApproval: () => (asked++, true) });
    expect(errorOf(outcome)).toMatchObject({ code: 'APPROVAL_DENIED', data: { by: 'timeout' } });
    expect(asked).toBe(0);
  });

  it('without a requirement, the client\'s own approver answers as before', async () => {
    const { bridge } = await askingBridge({});
    let asked = 0;
    const outcome = await bridge.call(msg('crm', 'deleteRecord', {}), never, { principal: alice, onApproval: () => (asked++, true) });
    expect(outcome.ok).toBe(true);
    expect(asked).toBe(1);
  });
});

describe('who may approve: groups', () => {
  const policies: PoliciesConfig = { approvers: { groups: ['admins', 'security'] } };

  it('a member answers, a non-member is refused, and each sees only what it made or may answer', async () => {
    const { bridge, store, service } = await askingBridge(policies);
    const outcome = bridge.call(msg('crm', 'deleteRecord', {}), never, { principal: alice, onApproval: () => true });
    const request = await pendingRequest(store);
    expect((await service.list(alice)).map((view) => view.id)).toEqual([request.id]);
    expect((await service.list(bob)).map((view) => view.id)).toEqual([request.id]);
    expect((await service.list()).map((view) => view.id)).toEqual([request.id]);
    expect(await service.list(carol)).toEqual([]);
    expect(await service.list(shared)).toEqual([]);
    expect(await codeOf(service.show(request.id, carol))).toBe('APPROVAL_NOT_FOUND');
    expect((await service.show(request.id, alice)).status).toBe('pending');
    for (const outsider of [alice, carol, shared, LOCAL_PRINCIPAL]) expect(await codeOf(service.answer(request.id, answer(true), outsider))).toBe('APPROVER_NOT_ALLOWED');
    expect(await codeOf(service.answer(request.id, answer(true), carol))).toBe('APPROVER_NOT_ALLOWED');
    expect((await service.answer(request.id, answer(true), bob)).status).toBe('approved');
    expect((await outcome).ok).toBe(true);
  });

  it('a member of the group may answer their own request unless others is set too', async () => {
    const admin: Principal = { ...bob, id: 'user:dave', subject: 'dave' };
    for (const [approvers, ok] of [[{ groups: 'admins' }, true], [{ groups: 'admins', others: true }, false]] as const) {
      const { bridge, store, service } = await askingBridge({ approvers });
      void bridge.call(msg('crm', 'deleteRecord', {}), never, { principal: admin });
      const request = await pendingRequest(store);
      expect(await codeOf(service.answer(request.id, answer(false), admin))).toBe(ok ? undefined : 'APPROVER_NOT_ALLOWED');
      if (!ok) await service.answer(request.id, answer(false));
    }
  });

  it('a rule\'s approvers replace the space\'s', async () => {
    const { bridge, store, service } = await askingBridge({ approvers: { groups: 'security' }, rules: { crm: [{ then: 'ask', approvers: { groups: 'staff' } }] } });
    const outcome = bridge.call(msg('crm', 'deleteRecord', {}), never, { principal: alice });
    const request = await pendingRequest(store);
    expect(request.approvers).toEqual({ groups: ['staff'] });
    expect((await service.answer(request.id, answer(true), carol)).answer?.by).toBe('user:carol');
    expect((await outcome).ok).toBe(true);
  });
});

describe('per-user rate limits', () => {
  const limited = (per?: 'user' | 'space', history?: BridgeOptions['rateLimitHistory']) =>
    createBridge({
      capabilities: [crm],
      rateLimits: { 'crm.readRecord': { requests: 2, period: 'minute', ...(per ? { per } : {}) } },
      ...(history ? { rateLimitHistory: history } : {}),
    });
  const read = async (bridge: ReturnType<typeof limited>, principal?: Principal) => {
    const outcome = await bridge.call(msg('crm', 'readRecord', {}), never, principal ? { principal } : {});
    return outcome.ok ? 'ok' : errorOf(outcome).code;
  };

  it('per: user counts each principal apart (local too)', async () => {
    const bridge = limited('user');
    expect([await read(bridge, alice), await read(bridge, alice), await read(bridge, alice)]).toEqual(['ok', 'ok', 'RATE_LIMITED']);
    expect([await read(bridge, bob), await read(bridge, bob), await read(bridge, bob)]).toEqual(['ok', 'ok', 'RATE_LIMITED']);
    expect([await read(bridge), await read(bridge, LOCAL_PRINCIPAL), await read(bridge)]).toEqual(['ok', 'ok', 'RATE_LIMITED']);
    const error = errorOf(await bridge.call(msg('crm', 'readRecord', {}), never, { principal: alice }));
    expect(error.message).toContain('per user user:alice');
  });

  it.each([undefined, 'space'] as const)('per: %s is one window shared by everyone', async (per) => {
    const bridge = limited(per);
    expect([await read(bridge, alice), await read(bridge, bob), await read(bridge, carol), await read(bridge)]).toEqual(['ok', 'ok', 'RATE_LIMITED', 'RATE_LIMITED']);
  });

  it('history from the audit log counts toward its principal\'s window', async () => {
    const at = Date.now() - 1_000;
    const bridge = limited('user', [
      { capability: 'crm', function: 'readRecord', at, principal: 'user:alice' },
      { capability: 'crm', function: 'readRecord', at, principal: 'user:alice' },
      { capability: 'crm', function: 'readRecord', at },
    ]);
    expect(await read(bridge, alice)).toBe('RATE_LIMITED');
    expect([await read(bridge, bob), await read(bridge, bob)]).toEqual(['ok', 'ok']);
    expect([await read(bridge), await read(bridge)]).toEqual(['ok', 'RATE_LIMITED']);
  });

  it('a space started after calls of a per-user limit reads them back from its audit log, per principal', async () => {
    const { dir } = await makeProject();
    const policies: PoliciesConfig = { rules: { '*': 'allow' }, rateLimits: { 'crm.readRecord': { requests: 1, period: 'hour', per: 'user' } } };
    const first = await createGate({ name: 'limits', outDir: dir, policies }, [crm]);
    const before = createBridge({ capabilities: [crm], ...first.bridgeOptions });
    expect((await before.call(msg('crm', 'readRecord', {}), never, { principal: alice })).ok).toBe(true);
    first.close();
    const second = await createGate({ name: 'limits', outDir: dir, policies }, [crm]);
    const after = createBridge({ capabilities: [crm], ...second.bridgeOptions });
    expect(errorOf(await after.call(msg('crm', 'readRecord', {}), never, { principal: alice })).code).toBe('RATE_LIMITED');
    expect((await after.call(msg('crm', 'readRecord', {}), never, { principal: bob })).ok).toBe(true);
    second.close();
  });
});

describe('audit lines name the principal (file)', () => {
  it('writes each call\'s principal, and none for a call without one or of local', async () => {
    const { dir } = await makeProject();
    const gate = await createGate({ name: 'who', outDir: dir, policies: { rules: { '*': 'allow' } } }, [crm]);
    const bridge = createBridge({ capabilities: [crm], ...gate.bridgeOptions });
    for (const principal of [alice, bob, shared, undefined, LOCAL_PRINCIPAL]) await bridge.call(msg('crm', 'readRecord', {}), never, principal ? { principal } : {});
    gate.close();
    const lines = readFileSync(gate.auditFile!, 'utf8').trim().split('\n').map((line) => JSON.parse(line) as { principal?: unknown });
    expect(lines.map((line) => line.principal)).toEqual([
      { id: 'user:alice', subject: 'alice', clientId: 'app-a', groups: ['interns'] },
      { id: 'user:bob', subject: 'bob', clientId: 'app-b', groups: ['admins', 'staff'] },
      { id: 'token:0123456789abcdef' },
      undefined,
      undefined,
    ]);
    expect(JSON.stringify(lines)).not.toContain('crm:write');
  });
});
