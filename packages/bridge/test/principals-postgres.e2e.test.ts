// The principal on the shared stores: approval requests keep who asked and who may answer (so another replica can
// check an answer), audit rows name each call's principal, and a per-user limit counts each principal apart after a
// restart from the shared audit.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@agent-spaces/capabilities';
import { ApprovalService, createBridge, createGate, createPolicy, type AuditRecord } from '../src/index.js';
import { PostgresAuditArchive, SharedDatabase } from '../src/shared-entry.js';
import { startPostgres, type PostgresServer } from '../../../test/services/postgres.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

const alice: Principal = { id: 'user:alice', subject: 'alice', clientId: 'app-a', scopes: ['crm'], groups: ['interns'] };
const bob: Principal = { id: 'user:bob', subject: 'bob', scopes: [], groups: ['admins'] };
const never = new AbortController().signal;
const crm = memoryCapability('crm', [{ name: 'deleteRecord', run: () => 'deleted' }]);

let server: PostgresServer;
const opened: SharedDatabase[] = [];

beforeAll(async () => {
  server = await startPostgres();
}, 60_000);

afterAll(async () => {
  await Promise.all(opened.map((database) => database.close()));
  await server?.close();
});

async function open(url?: string): Promise<SharedDatabase> {
  const database = await SharedDatabase.open(url ?? (await server.createDatabase()), { applicationName: 'principals-postgres-test' });
  opened.push(database);
  return database;
}

describe('the principal on PostgreSQL', () => {
  it('a request made on one replica keeps requestedBy and approvers, and another replica checks answers against them', async () => {
    const url = await server.createDatabase();
    const [one, two] = [await open(url), await open(url)];
    const gate = await createGate(
      { name: 'crm', outDir: '/nonexistent', policies: { rules: { crm: 'ask' }, approvers: { others: true, groups: 'admins' } }, awaitApprovals: true, stores: { audit: (space) => one.audit(space), approvals: one.approvals } },
      [crm],
    );
    const bridge = createBridge({ capabilities: [crm], ...gate.bridgeOptions });
    const outcome = bridge.call(msg('crm', 'deleteRecord', {}), never, { principal: alice, onApproval: () => true });
    const service = new ApprovalService({ approvals: two.approvals });
    let views = await service.list();
    for (let i = 0; views.length === 0 && i < 100; i++) views = (await new Promise((resolve) => setTimeout(resolve, 10)), await service.list());
    const [view] = views;
    expect(view?.request.requestedBy).toEqual({ id: 'user:alice', subject: 'alice', groups: ['interns'] });
    expect(view?.request.approvers).toEqual({ others: true, groups: ['admins'] });
    await expect(service.answer(view!.id, { approved: true, by: 'x', from: 'http' }, alice)).rejects.toMatchObject({ code: 'APPROVER_NOT_ALLOWED' });
    expect(await service.list(alice)).toHaveLength(1);
    expect(await service.list({ ...bob, id: 'user:eve', groups: [] })).toHaveLength(0);
    expect((await service.answer(view!.id, { approved: true, by: 'x', from: 'http' }, bob)).answer).toMatchObject({ approved: true, by: 'user:bob' });
    expect(await outcome).toEqual({ ok: true, value: 'deleted' });
    const kept = await two.approvals.get(view!.id);
    expect(kept?.request.requestedBy?.id).toBe('user:alice');
    expect(kept?.answer?.by).toBe('user:bob');
    const records: AuditRecord[] = [];
    for await (const record of new PostgresAuditArchive(two).records({ space: 'crm' })) records.push(record);
    expect(records.map((record) => [record.pending ?? 'ended', record.principal])).toEqual([
      ['approval', { id: 'user:alice', subject: 'alice', clientId: 'app-a', groups: ['interns'] }],
      ['ended', { id: 'user:alice', subject: 'alice', clientId: 'app-a', groups: ['interns'] }],
    ]);
  });

  it('audit rows name each principal, and a per-user limit started from them counts each apart', async () => {
    const database = await open();
    const policies = { rules: { '*': 'allow' as const }, rateLimits: { crm: { requests: 1, period: 'hour' as const, per: 'user' as const } } };
    const first = await createGate({ name: 'limits', outDir: '/nonexistent', policies, stores: { audit: (space) => database.audit(space) } }, [crm]);
    const before = createBridge({ capabilities: [crm], ...first.bridgeOptions, policy: createPolicy(policies) });
    for (const principal of [alice, bob]) expect((await before.call(msg('crm', 'deleteRecord', {}), never, { principal })).ok).toBe(true);
    expect((await before.call(msg('crm', 'deleteRecord', {}), never)).ok).toBe(true);
    const rows = await database.query<{ entry: { principal?: { id: string } } }>('SELECT entry FROM agent_spaces_audit ORDER BY id');
    expect(rows.map((row) => row.entry.principal?.id)).toEqual(['user:alice', 'user:bob', undefined]);
    const after = createBridge({ capabilities: [crm], ...(await createGate({ name: 'limits', outDir: '/nonexistent', policies, stores: { audit: (space) => database.audit(space) } }, [crm])).bridgeOptions });
    for (const principal of [alice, bob, undefined]) {
      expect(errorOf(await after.call(msg('crm', 'deleteRecord', {}), never, principal ? { principal } : {})).code).toBe('RATE_LIMITED');
    }
    const carol: Principal = { id: 'user:carol', subject: 'carol', scopes: [], groups: [] };
    expect((await after.call(msg('crm', 'deleteRecord', {}), never, { principal: carol })).ok).toBe(true);
  });
});
