// A space keeps its state in the stores it is given (`createSpace({ stores })`): each run and the outcome of each of
// its calls in the run store, approval requests and their answers in the approval store, audit lines in the audit
// store. The embedded stores are the defaults; any other implementation of the interfaces takes their place.
import { describe, expect, it } from 'vitest';
import { defineTool } from '@agent-spaces/capabilities';
import {
  FileAuditStore,
  MemoryApprovalStore,
  MemoryRunStore,
  readAuditLog,
  type RunStore,
} from '@agent-spaces/sdk';
import { makeProject } from '../../../test/fixtures/project.js';

const executed: string[] = [];

const crm = defineTool({
  name: 'crm',
  functions: {
    lookup: { description: 'Look a customer up', parameters: { name: { type: 'string' } }, handler: ({ name }) => (executed.push(`lookup ${name}`), { name }) },
    openTicket: {
      description: 'Open a support ticket',
      parameters: { title: { type: 'string' } },
      requiresApproval: true,
      handler: ({ title }) => (executed.push(`ticket ${title}`), `ticket: ${title}`),
    },
  },
});

const LOOKUPS = `import { crm } from '@capabilities/crm';\nawait crm.lookup({ name: 'Ada' });\nreturn (await crm.lookup({ name: 'Bob' })).name;`;

describe('the run store a space is given', () => {
  it('holds each run from its start to its end, with the outcome of each of its calls', async () => {
    const project = await makeProject();
    const runs = new MemoryRunStore({ keepEnded: 10 });
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', stores: { runs } });
    const ok = await space.run(LOOKUPS, { owner: 'alice' });
    const failed = await space.run(`import { crm } from '@capabilities/crm';\nawait crm.lookup({ name: 7 });`);
    expect(ok.ok).toBe(true);
    expect(failed.ok).toBe(false);
    const [first, second] = await runs.list();
    expect(first).toMatchObject({ id: ok.events[0]!.runId, space: 'default', owner: 'alice', script: LOOKUPS, status: 'succeeded' });
    expect(first!.calls.map((c) => [c.capability, c.function, c.outcome.ok])).toEqual([
      ['crm', 'lookup', true],
      ['crm', 'lookup', true],
    ]);
    expect(second).toMatchObject({ id: failed.events[0]!.runId, status: 'failed', error: failed.ok ? {} : { code: failed.error.code, message: failed.error.message } });
    expect(second!.calls.map((c) => c.outcome)).toEqual([{ ok: false, code: 'INVALID_PARAMS', message: expect.stringContaining('params/name') }]);
  }, 60_000);

  it('records a session run with its session id', async () => {
    const project = await makeProject();
    const runs = new MemoryRunStore({ keepEnded: 10 });
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', stores: { runs } });
    const session = space.createSession();
    await session.run('const x = 1;');
    expect((await runs.list({ sessionId: session.id })).map((r) => r.script)).toEqual(['const x = 1;']);
  }, 60_000);

  it('refuses a run that cannot be put on record with INTERNAL, before any of its code runs', async () => {
    const project = await makeProject();
    const broken: RunStore = Object.assign(new MemoryRunStore(), {
      start: () => Promise.reject(new Error('the database is down')),
    });
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', stores: { runs: broken } });
    executed.length = 0;
    const result = await space.run(LOOKUPS);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.code).toBe('INTERNAL');
      expect(result.error.message).toContain('the database is down');
    }
    expect(executed).toEqual([]);
  }, 60_000);
  it('refuses the run as well when the store refuses at once (a write may fail synchronously)', async () => {
    const project = await makeProject();
    const broken: RunStore = Object.assign(new MemoryRunStore(), {
      start: () => {
        throw new Error('no room on record');
      },
    });
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', stores: { runs: broken } });
    executed.length = 0;
    const result = await space.run(LOOKUPS);
    expect(result).toMatchObject({ ok: false, error: { code: 'INTERNAL', message: expect.stringContaining('no room on record') } });
    expect(executed).toEqual([]);
  }, 60_000);

  it('writes to a store that answers later one write after another: every call on the ledger, in order, before the run ends', async () => {
    const project = await makeProject();
    const kept = new MemoryRunStore({ keepEnded: 10 });
    const later = <T>(write: () => T) => new Promise<T>((resolve) => setTimeout(() => resolve(write()), 5));
    const slow: RunStore = {
      start: (run) => later(() => kept.start(run)),
      addCall: (runId, call) => later(() => kept.addCall(runId, call)),
      end: (runId, end) => later(() => kept.end(runId, end)),
      get: (runId) => kept.get(runId),
      list: (query) => kept.list(query),
      keep: (run) => later(() => kept.keep(run)),
      kept: (runId) => kept.kept(runId),
      keptRuns: (query) => kept.keptRuns(query),
      forget: (runId) => later(() => kept.forget(runId)),
    };
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', stores: { runs: slow } });
    const script = `import { crm } from '@capabilities/crm';\nfor (const name of ['a', 'b', 'c', 'd']) await crm.lookup({ name });\nreturn 'done';`;
    const result = await space.run(script);
    expect(result).toMatchObject({ ok: true, result: 'done' });
    const [record] = await kept.list();
    expect(record).toMatchObject({ status: 'succeeded', script });
    const ids = result.events.filter((e) => e.type === 'capabilityResult').map((e) => e.callId);
    expect(record!.calls.map((c) => c.callId)).toEqual(ids);
    expect(ids).toHaveLength(4);
  }, 60_000);
});

describe('the approval store a space is given', () => {
  it('holds the waiting request that space.approvals lists and answers', async () => {
    const project = await makeProject();
    const approvals = new MemoryApprovalStore();
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', awaitApprovals: true, stores: { approvals } });
    const run = space.run(`import { crm } from '@capabilities/crm';\nreturn await crm.openTicket({ title: 'printer' });`);
    for (let i = 0; i < 400 && (await approvals.pending()).length === 0; i++) await new Promise((r) => setTimeout(r, 5));
    const [request] = await approvals.pending();
    expect(request).toMatchObject({ capability: 'crm', function: 'openTicket', params: { title: 'printer' } });
    expect(await space.approvals.pending()).toEqual([request]);
    expect(await space.approvals.resolve(request!.id, { approved: true, by: 'ops' })).toBe(true);
    expect(await run).toMatchObject({ ok: true, result: 'ticket: printer' });
    expect(await approvals.pending()).toEqual([]);
    expect(await space.approvals.resolve(request!.id, { approved: false })).toBe(false);
  }, 60_000);
});

describe('the audit store a space is given', () => {
  it('receives the audit lines instead of the space writing its own log file', async () => {
    const project = await makeProject();
    const audit = new FileAuditStore(project.path('elsewhere'), 'kept-elsewhere');
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', stores: { audit } });
    await space.run(LOOKUPS);
    await space.close();
    audit.close();
    expect(space.auditFile).toBeUndefined();
    expect(readAuditLog(audit.file).records.map((r) => [r.space, r.capability, r.function])).toEqual([
      ['kept-elsewhere', 'crm', 'lookup'],
      ['kept-elsewhere', 'crm', 'lookup'],
    ]);
  }, 60_000);
});
