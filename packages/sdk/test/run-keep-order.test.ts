// A run that paused for approval is kept as `running` again before the approved call runs (a restart then never runs
// it twice) — also when the run store's `keep` returns a promise (a shared store: PostgreSQL).
import { describe, expect, it } from 'vitest';
import { AgentSpacesError, defineTool } from '@agent-spaces/capabilities';
import { MemoryRunStore, type KeptRun } from '@agent-spaces/sdk';
import { makeProject } from '../../../test/fixtures/project.js';

const order: string[] = [];

const crm = defineTool({
  name: 'crm',
  functions: {
    openTicket: {
      description: 'Open a support ticket',
      parameters: { title: { type: 'string' } },
      requiresApproval: true,
      handler: ({ title }) => (order.push(`ticket ${title}`), `ticket: ${title}`),
    },
  },
});

/** A run store whose `keep` takes a while and resolves later, as a database's does. */
class SlowKeepStore extends MemoryRunStore {
  override async keep(run: KeptRun): Promise<void> {
    await new Promise((resolve) => setTimeout(resolve, 50));
    super.keep(run);
    order.push(`kept ${run.status}`);
  }
}

describe('a run store whose keep is asynchronous', () => {
  it('has the resumed run kept as running before the approved call runs', async () => {
    const project = await makeProject();
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', stores: { runs: new SlowKeepStore() } });
    const result = await space.run(`import { crm } from '@capabilities/crm';\nreturn await crm.openTicket({ title: 'A' });`, {
      onApproval: async () => {
        order.push('asked');
        return true;
      },
    });
    expect(result).toMatchObject({ ok: true, result: 'ticket: A' });
    expect(order.filter((step) => step !== 'asked')).toEqual(['kept paused', 'kept running', 'ticket A']);
  }, 60_000);

  it('does not run the approved call when the run cannot be kept as running', async () => {
    order.length = 0;
    class FailingKeepStore extends SlowKeepStore {
      override async keep(run: KeptRun): Promise<void> {
        if (run.status === 'running') throw new AgentSpacesError('STORE_UNAVAILABLE', 'PostgreSQL is unavailable: test', { store: 'postgres' });
        await super.keep(run);
      }
    }
    const project = await makeProject();
    const space = await project.space({ capabilities: [crm], typecheck: false, isolation: 'in-process', stores: { runs: new FailingKeepStore() } });
    const result = await space.run(`import { crm } from '@capabilities/crm';\nreturn await crm.openTicket({ title: 'B' });`, { onApproval: () => true });
    expect(result.ok).toBe(false);
    expect(order).not.toContain('ticket B');
    const failed = result.events.find((e) => e.type === 'capabilityResult');
    expect(failed).toMatchObject({ ok: false, error: { code: 'STORE_UNAVAILABLE' } });
  }, 60_000);
});
