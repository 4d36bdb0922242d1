import type { WireError } from '@agent-spaces/capabilities';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentIsolate } from '../../src/isolate/agent-isolate.js';
import { CallChannel, portSink } from '../../src/isolate/channel.js';
import type { SandboxContext } from '../../src/isolate/context.js';
import { DEFAULT_LIMITS } from '../../src/limits.js';
import { createPort } from '../helpers.js';

let isolate: AgentIsolate;
let context: SandboxContext;
beforeAll(async () => {
  isolate = await AgentIsolate.create(16);
  context = await isolate.newContext(new Map());
});
afterAll(() => {
  context.release();
  isolate.dispose();
});

function channel(limits = DEFAULT_LIMITS): { channel: CallChannel; port: ReturnType<typeof createPort>; failures: WireError[] } {
  const port = createPort();
  const failures: WireError[] = [];
  const ch = new CallChannel(context.settle, { limits, calls: portSink(port), fail: (e) => failures.push(e), stop: () => {}, done: () => {}, budgetMs: () => 1000, raised: (e) => failures.push({ code: 'INTERNAL', message: String(e) }) });
  return { channel: ch, port, failures };
}

describe('CallChannel', () => {
  it('accepts a well-formed call and hands it to the port', async () => {
    const { channel: ch, port } = channel();
    expect(ch.onCall(1, 'math', 'add', { a: 1, b: 2 })).toBeUndefined();
    await new Promise((resolve) => setTimeout(resolve, 10));
    expect(port.calls).toEqual([{ kind: 'call', capability: 'math', function: 'add', params: { a: 1, b: 2 } }]);
    expect(ch.calls).toBe(1);
  });

  it('refuses malformed calls and ids', () => {
    const { channel: ch, port } = channel();
    expect(ch.onCall(1, 42, 'add', {})).toMatchObject({ code: 'INTERNAL' });
    expect(ch.onCall(1, 'math', undefined, {})).toMatchObject({ code: 'INTERNAL' });
    expect(ch.onCall(1, { kind: 'call', capability: 'math', function: 'add' }, undefined, undefined)).toMatchObject({ code: 'INTERNAL' });
    expect(ch.onCall('1', 'math', 'add', {})).toMatchObject({ code: 'INTERNAL' });
    expect(ch.onCall(1.5, 'math', 'add', {})).toMatchObject({ code: 'INTERNAL' });
    expect(port.calls).toEqual([]);
    expect(ch.calls).toBe(0);
  });

  it('refuses unknown log levels and messages that are not strings', () => {
    const { channel: ch } = channel();
    expect(ch.onLog('trace', 'x')).toBe('INTERNAL');
    expect(ch.onLog('log', { toString: 'x' })).toBe('INTERNAL');
    expect(ch.onLog({ kind: 'log', level: 'log', message: 'x' }, undefined)).toBe('INTERNAL');
    expect(ch.logs).toEqual([]);
  });

  it('refuses everything once ended', () => {
    const { channel: ch, port } = channel();
    ch.end();
    expect(ch.onCall(1, 'math', 'add', {})).toMatchObject({ code: 'ABORTED' });
    expect(ch.onLog('log', 'late')).toBe('ABORTED');
    expect(port.calls).toEqual([]);
    expect(ch.logs).toEqual([]);
  });

  it('fails the run past the call limit without calling the port', () => {
    const { channel: ch, port, failures } = channel({ ...DEFAULT_LIMITS, maxCapabilityCalls: 1 });
    ch.onCall(1, 'math', 'add', { a: 1, b: 1 });
    expect(ch.onCall(2, 'math', 'add', { a: 1, b: 1 })).toMatchObject({ code: 'MAX_CALLS' });
    expect(failures.map((f) => f.code)).toEqual(['MAX_CALLS']);
    expect(port.calls).toHaveLength(1);
  });
});

describe('SandboxContext.link', () => {
  it('refuses agent-spaces:bridge to the agent module even if the import check were bypassed', async () => {
    const own = await isolate.newContext(new Map());
    const script = { code: `import { call } from 'agent-spaces:bridge';\nexport default async function __main__() { return call; }`, imports: [], declarations: [] };
    expect(() => own.link(script, new Map(), 1000)).toThrow(expect.objectContaining({ code: 'IMPORT_NOT_FOUND' }));
    own.release();
  });
});
