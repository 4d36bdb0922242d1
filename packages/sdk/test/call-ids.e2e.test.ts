// One call, one id: the bridge numbers every capability call of a space, and that id is what the run events, the
// approval request and its resolution, the audit line and the error carry, across runs and sessions.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, type RunEvent } from '@agent-spaces/capabilities';
import { createSpace, readAuditLog, type RunResult, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;
let space: Space;

const crm = defineTool({
  name: 'crm',
  functions: {
    lookup: { description: 'Look a customer up', parameters: { name: { type: 'string' } }, handler: ({ name }) => ({ name, tier: 'gold' }) },
    openTicket: {
      description: 'Open a support ticket',
      parameters: { title: { type: 'string' } },
      requiresApproval: true,
      handler: ({ title }) => `ticket: ${title}`,
    },
  },
});

beforeAll(async () => {
  project = await makeProject();
  space = await createSpace({
    rootDir: project.dir,
    capabilities: [crm],
    typecheck: false,
    // Tickets titled "deny" are refused: the same space shows an approved and a denied call.
    onApproval: (request) => ({ approved: (request.params as { title: string }).title !== 'deny', by: 'test-approver' }),
  });
}, 60_000);

afterAll(async () => {
  await space?.close();
});

const SCRIPT = (title: string) => `
import { crm } from '@capabilities/crm';
await crm.lookup({ name: 'Ada' });
return await crm.openTicket({ title: ${JSON.stringify(title)} });
`;

/** Every id one call is known by in a run: its events, approval request and resolution, and its error. */
function idsOf(run: RunResult) {
  const byType = (type: RunEvent['type']) => run.events.filter((e) => e.type === type);
  const ids = (events: RunEvent[]) => events.map((e) => ('callId' in e ? e.callId : 'id' in e ? e.id : undefined));
  return {
    calls: ids(byType('capabilityCall')),
    results: ids(byType('capabilityResult')),
    approvalRequired: ids(byType('approvalRequired')),
    approvalResolved: ids(byType('approvalResolved')),
  };
}

describe('one call id', () => {
  it('is carried by the events, the approval, the audit line and the error, across two runs and a session', async () => {
    const first = await space.run(SCRIPT('ok'));
    const second = await space.run(SCRIPT('deny'));
    const session = space.createSession();
    const third = await session.run(SCRIPT('deny'));
    // Agent code that catches the error sees the same id on it.
    const caught = await session.run(`
      import { crm } from '@capabilities/crm';
      try { await crm.openTicket({ title: 'deny' }); } catch (e) { if (e instanceof CapabilityError) return [e.code, e.callId]; }
    `);
    await session.close();
    expect(caught).toMatchObject({ ok: true, result: ['APPROVAL_DENIED', '7'] });

    expect(first.ok).toBe(true);
    // The approval request has an id of its own (unique beyond the space), resolved under that id.
    const approval = (run: RunResult, callId: string) => {
      const required = run.events.find((e) => e.type === 'approvalRequired' && e.callId === callId);
      return required?.type === 'approvalRequired' ? required.id : 'missing';
    };
    expect(idsOf(first)).toEqual({ calls: ['1', '2'], results: ['1', '2'], approvalRequired: ['2'], approvalResolved: [approval(first, '2')] });
    // The second run's calls continue the space's numbering: the ids never repeat within a space.
    expect(idsOf(second)).toEqual({ calls: ['3', '4'], results: ['3', '4'], approvalRequired: ['4'], approvalResolved: [approval(second, '4')] });
    expect(idsOf(third)).toEqual({ calls: ['5', '6'], results: ['5', '6'], approvalRequired: ['6'], approvalResolved: [approval(third, '6')] });
    expect(approval(first, '2')).toMatch(/^[0-9a-f-]{36}$/);

    for (const [run, callId] of [
      [second, '4'],
      [third, '6'],
    ] as const) {
      const result = run.events.find((e) => e.type === 'capabilityResult' && e.callId === callId);
      expect(result).toMatchObject({ ok: false, error: { code: 'APPROVAL_DENIED', callId } });
      expect(run.ok).toBe(false);
      // Uncaught in agent code, the denial ends the run as a script error that still names the call.
      if (!run.ok) expect(run.error).toMatchObject({ code: 'SCRIPT_ERROR', callId, data: { code: 'APPROVAL_DENIED' } });
    }

    const { records } = readAuditLog(space.auditFile!);
    expect(records.map((r) => [r.callId, r.function, r.outcome.ok])).toEqual([
      ['1', 'lookup', true],
      ['2', 'openTicket', true],
      ['3', 'lookup', true],
      ['4', 'openTicket', false],
      ['5', 'lookup', true],
      ['6', 'openTicket', false],
      ['7', 'openTicket', false],
    ]);
    // Each audit line names the run (and session) whose events carry the same call id.
    expect(records.map((r) => r.runId)).toEqual([first, first, second, second, third, third, caught].map((run) => run.events[0]!.runId));
    expect(records[5]).toMatchObject({ sessionId: session.id, decision: { kind: 'ask', approved: false, answeredBy: 'test-approver' } });
  });
});
