// Trace spans through @opentelemetry/api: a host app that registers an OpenTelemetry SDK gets one span per run and
// one per capability call (a child of its run), with capability, function, outcome and duration — never params.
import { trace } from '@opentelemetry/api';
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor, type ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBridge } from '@agent-spaces/bridge';
import { defineTool, type CallMessage } from '@agent-spaces/capabilities';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const SECRET = 'hunter2-do-not-trace';
const exporter = new InMemorySpanExporter();
const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] });
let project: Project;
let space: Space;

const vault = defineTool({
  name: 'vault',
  functions: {
    open: {
      description: 'Open the vault',
      parameters: { password: { type: 'string', required: true, minLength: 3 } },
      returns: {} as string,
      handler: async ({ password }) => `opened with ${password.length} characters`,
    },
    fail: { description: 'Always fails', returns: {} as string, handler: async () => Promise.reject(new Error(`boom ${SECRET}`)) },
  },
});

beforeAll(async () => {
  trace.setGlobalTracerProvider(provider);
  project = await makeProject();
  space = await createSpace({ rootDir: project.dir, name: 'traced', capabilities: [vault], typecheck: false });
});

afterAll(async () => {
  await space?.close();
  trace.disable();
  await provider.shutdown();
});

const attributesOf = (span: ReadableSpan) => span.attributes;
const everything = (spans: ReadableSpan[]) => JSON.stringify(spans.map((s) => [s.name, s.attributes, s.status, s.events]));

describe('trace spans', () => {
  it('makes a run span with a child span per call: capability, function, outcome, duration; never params or secrets', async () => {
    exporter.reset();
    const result = await space.run(`
      import { vault } from '@capabilities/vault';
      const opened = await vault.open({ password: '${SECRET}' });
      const bad = await vault.open({ password: 'x' }).catch((e) => e.code);
      const failed = await vault.fail().catch((e) => e.code);
      export default { opened, bad, failed };
    `);
    expect(result).toMatchObject({ ok: true, result: { bad: 'INVALID_PARAMS', failed: 'HANDLER_ERROR' } });
    const spans = exporter.getFinishedSpans();
    const run = spans.find((s) => s.name === 'agent_spaces.run')!;
    expect(attributesOf(run)).toMatchObject({ 'agent_spaces.space': 'traced', 'agent_spaces.outcome': 'ok', 'agent_spaces.capability_calls': 3 });
    const calls = spans.filter((s) => s.name === 'agent_spaces.call');
    expect(calls.map((s) => [s.attributes['agent_spaces.function'], s.attributes['agent_spaces.outcome']])).toEqual([
      ['open', 'ok'],
      ['open', 'INVALID_PARAMS'],
      ['fail', 'HANDLER_ERROR'],
    ]);
    for (const call of calls) {
      expect(call.parentSpanContext?.spanId).toBe(run.spanContext().spanId);
      expect(call.spanContext().traceId).toBe(run.spanContext().traceId);
      expect(call.attributes).toMatchObject({ 'agent_spaces.capability': 'vault', 'agent_spaces.duration_ms': expect.any(Number) });
    }
    expect(calls[1]!.status).toMatchObject({ code: 2, message: 'INVALID_PARAMS' });
    expect(everything(spans)).not.toContain(SECRET);
    expect(everything(spans)).not.toContain('password');
  });

  it("ends a failed run's span with its error code", async () => {
    exporter.reset();
    const result = await space.run(`throw new Error('${SECRET}')`);
    expect(result.ok).toBe(false);
    const [run] = exporter.getFinishedSpans();
    expect(run).toMatchObject({ name: 'agent_spaces.run', status: { code: 2 } });
    expect(run!.attributes['agent_spaces.outcome']).toBe(result.ok ? 'ok' : result.error.code);
    expect(everything(exporter.getFinishedSpans())).not.toContain(SECRET);
  });

  it.each([
    ['a huge name', 'x'.repeat(5000), 128],
    ['a name that is not a string', 42, 0],
  ])('keeps %s of a forged call short in its span (the bridge refuses the call)', async (_, capability, length) => {
    exporter.reset();
    const bridge = createBridge({ capabilities: [] });
    const outcome = await bridge.call({ kind: 'call', capability, function: 'f', params: { password: SECRET } } as unknown as CallMessage, new AbortController().signal);
    expect(outcome).toMatchObject({ ok: false, error: { code: expect.stringMatching(/NOT_FOUND|INVALID/) } });
    const [call] = exporter.getFinishedSpans();
    expect(call!.attributes['agent_spaces.capability']).toHaveLength(length);
    expect(call!.attributes['agent_spaces.outcome']).toBe(outcome.ok ? 'ok' : outcome.error.code);
    expect(call!.parentSpanContext).toBeUndefined();
    expect(everything([call!])).not.toContain(SECRET);
  });
});
