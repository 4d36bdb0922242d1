// A run's record ends with the run, in a sandbox process too: an aborted run is ABORTED on record, whenever the call it
// had in flight ends (the call's outcome arrives from the bridge around the run's own end).
import { describe, expect, it } from 'vitest';
import { defineTool } from '@agent-spaces/capabilities';
import { MemoryRunStore } from '@agent-spaces/sdk';
import { makeProject } from '../../../test/fixtures/project.js';

const desk = defineTool({
  name: 'desk',
  functions: {
    lookup: { description: 'Look a name up', parameters: { name: { type: 'string' } }, handler: ({ name }) => ({ name }) },
    hold: {
      description: 'Wait until the call is aborted',
      parameters: {},
      handler: (_params, { signal }) => new Promise((resolve) => signal.addEventListener('abort', () => resolve('late'), { once: true })),
    },
  },
});

describe('the record of an aborted run', () => {
  it('ends ABORTED, on record too, and a call ending after the record is left off its ledger', async () => {
    const project = await makeProject();
    const runs = new MemoryRunStore({ keepEnded: 10 });
    const space = await project.space({ capabilities: [desk], typecheck: false, stores: { runs } });
    for (let attempt = 0; attempt < 3; attempt++) {
      const controller = new AbortController();
      const run = space.run(`import { desk } from '@capabilities/desk';\nawait desk.lookup({ name: 'Ada' });\nreturn await desk.hold({});`, { signal: controller.signal });
      for (let i = 0; i < 400 && !(await runs.list({ status: 'running' }))[0]?.calls.length; i++) await new Promise((r) => setTimeout(r, 5));
      controller.abort();
      const result = await run;
      expect(result).toMatchObject({ ok: false, error: { code: 'ABORTED' } });
      await new Promise((r) => setTimeout(r, 50));
      const record = (await runs.list()).find((r) => r.id === result.events[0]!.runId);
      expect(record).toMatchObject({ status: 'failed', error: { code: 'ABORTED' } });
      expect(record!.calls[0]).toMatchObject({ function: 'lookup', outcome: { ok: true } });
      expect(record!.calls.slice(1).map((c) => c.function)).toEqual(record!.calls.length > 1 ? ['hold'] : []);
    }
  }, 60_000);
});
