// What the host keeps of a run is bounded, however much the agent sends: a run's events keep at most
// RUN_EVENT_PARAMS_BYTES of call params, and a session's history keeps a large result as a marker.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool, payloadBytes } from '@agent-spaces/capabilities';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;
let space: Space;

const sink = defineTool({
  name: 'sink',
  functions: {
    take: { description: 'Takes a blob, returns its length', parameters: { blob: { type: 'string' } }, handler: ({ blob }) => blob?.length ?? 0 },
  },
});

beforeAll(async () => {
  project = await makeProject();
  // The audit log would keep an 8 KiB preview of every call: off, so that only the run's own buffers are measured.
  space = await createSpace({ rootDir: project.dir, capabilities: [sink], typecheck: false, policies: { audit: false } });
}, 60_000);

afterAll(async () => {
  await space?.close();
});

describe('host memory', () => {
  it("keeps at most 1 MiB of a run's call params in its events, and marks the rest", async () => {
    const run = await space.run(`
      import { sink } from '@capabilities/sink';
      const blob = 'x'.repeat(1_000_000);
      let total = 0;
      for (let i = 0; i < 999; i++) total += await sink.take({ blob });
      return total;
    `);
    expect(run).toMatchObject({ ok: true, result: 999_000_000 });
    const calls = run.events.filter((e) => e.type === 'capabilityCall');
    expect(calls).toHaveLength(999);
    const kept = calls.filter((e) => !(e.params as { truncated?: boolean }).truncated);
    const marked = calls.filter((e) => (e.params as { truncated?: boolean }).truncated);
    expect(kept).toHaveLength(1);
    expect(kept.reduce((sum, e) => sum + payloadBytes(e.params, Infinity), 0)).toBeLessThanOrEqual(1024 * 1024);
    expect(marked).toHaveLength(998);
    expect(marked[0]!.params).toEqual({ truncated: true, bytes: expect.any(Number) });
    expect((marked[0]!.params as { bytes: number }).bytes).toBeGreaterThan(1_000_000);
  }, 60_000);

  it('keeps small params whole', async () => {
    const run = await space.run(`import { sink } from '@capabilities/sink';\nreturn await sink.take({ blob: 'abc' });`);
    expect(run.events.find((e) => e.type === 'capabilityCall')).toMatchObject({ params: { blob: 'abc' } });
  });
});
