import { describe, expect, it } from 'vitest';
import { DEFAULT_LIMITS, type RunLimits } from '../../src/limits.js';
import { ChildGuard, type ChildState, type GuardedRun } from '../../src/process/parent/child-guard.js';

const MAX_RSS_BYTES = 512 * 1024 * 1024;

/** A guard over one run (id 1) with `limits`, as a SupervisedChild holds it. */
function guarded(limits: Partial<RunLimits> = {}): { guard: ChildGuard<GuardedRun>; run: GuardedRun } {
  const run: GuardedRun = { limits: { ...DEFAULT_LIMITS, ...limits }, calls: 0, logBytes: 0 };
  return { guard: new ChildGuard(new Map([[1, run]]), MAX_RSS_BYTES), run };
}

const CALL = { kind: 'call', runId: 1, seq: 1, capability: 'math', function: 'add', params: { a: 1 } };
const LOG = { kind: 'log', runId: 1, entry: { level: 'info', message: 'hello', timestamp: '2026-01-01T00:00:00.000Z' } };
const END = { kind: 'end', runId: 1, outcome: { ok: true, value: 3, logs: [], stats: { durationMs: 1, capabilityCalls: 1, cpuTimeMs: 2 } }, rssBytes: 1024 };

describe('the child guard refuses forged messages', () => {
  it.each<[string, unknown]>([
    ['no object', null],
    ['a string', 'ready'],
    ['an unknown kind', { kind: 'exec', code: 'x' }],
    ['a call whose capability is no string', { kind: 'call', runId: 1, seq: 1, capability: 1, function: 'f' }],
    ['a call whose run id is a string', { kind: 'call', runId: '1', seq: 1, capability: 'c', function: 'f' }],
    ['a call whose seq is fractional', { ...CALL, seq: 1.5 }],
    ['a call without its seq', { kind: 'call', runId: 1, capability: 'math', function: 'add' }],
    ['a call whose function is missing', { kind: 'call', runId: 1, seq: 1, capability: 'math', params: {} }],
    ['a call whose names come in an array', { kind: 'call', runId: 1, seq: 1, capability: ['math', 'add'] }],
    ['a call whose function is an object', { ...CALL, function: { toString: () => 'add' } }],
    ['a log of an unknown level', { kind: 'log', runId: 1, entry: { level: 'shout', message: 'x', timestamp: '' } }],
    ['a log whose message is no string', { ...LOG, entry: { ...LOG.entry, message: { toString: 'x' } } }],
    ['a log without a timestamp', { ...LOG, entry: { level: 'info', message: 'x' } }],
    ['an end without stats', { kind: 'end', runId: 1, outcome: { ok: true, value: 1 }, rssBytes: 1 }],
    ['an end whose error code is not a run code', { kind: 'end', runId: 1, outcome: { ok: false, error: { code: 'X' }, stats: { cpuTimeMs: 1 } }, rssBytes: 1 }],
    ['an end whose CPU time is not finite', { ...END, outcome: { ...END.outcome, stats: { cpuTimeMs: Number.POSITIVE_INFINITY } } }],
    ['an end whose ok is neither true nor false', { ...END, outcome: { ...END.outcome, ok: 'yes' } }],
    ['an end without rssBytes', { ...END, rssBytes: undefined }],
    ['an end whose rssBytes is NaN', { ...END, rssBytes: Number.NaN }],
  ])('refuses %s as malformed', (_name, message) => {
    expect(guarded().guard.check(message, 'busy')).toEqual({ kind: 'breach', what: 'a malformed message' });
  });

  it.each(['call', 'log', 'end'] as const)('refuses a %s for a run the child is not running', (kind) => {
    const forged = { call: CALL, log: LOG, end: END }[kind];
    expect(guarded().guard.check({ ...forged, runId: 2 }, 'busy')).toEqual({ kind: 'breach', what: `a ${kind} for a run it is not running` });
  });

  it('takes ready once, while starting, and a pong only while settling', () => {
    const { guard } = guarded();
    expect(guard.check({ kind: 'ready' }, 'starting')).toEqual({ kind: 'ready' });
    for (const state of ['idle', 'busy', 'settling'] as ChildState[]) expect(guard.check({ kind: 'ready' }, state)).toEqual({ kind: 'breach', what: 'a second ready' });
    expect(guard.check({ kind: 'pong' }, 'settling')).toEqual({ kind: 'pong' });
    expect(guard.check({ kind: 'pong' }, 'busy')).toEqual({ kind: 'ignore' });
  });

  it('ignores everything once the child is dead', () => {
    const { guard, run } = guarded();
    for (const message of [CALL, LOG, END, { kind: 'ready' }, null]) expect(guard.check(message, 'dead')).toEqual({ kind: 'ignore' });
    expect(run.calls).toBe(0);
  });

});

describe('the child guard passes on what the parent reads', () => {
  it('keeps only the fields the parent reads, and passes params on unread', () => {
    const params = { a: 1, nested: { deep: [1, 2] } };
    const checked = guarded().guard.check({ ...CALL, seq: 2, extra: 1, params }, 'busy');
    expect(checked).toMatchObject({ kind: 'call', seq: 2, message: { kind: 'call', capability: 'math', function: 'add', params } });
    expect(checked.kind === 'call' && Object.keys(checked.message)).toEqual(['kind', 'capability', 'function', 'params']);
    expect(checked.kind === 'call' && checked.message.params).toBe(params);
    const log = guarded().guard.check({ ...LOG, entry: { ...LOG.entry, extra: 1 } }, 'busy');
    expect(log).toMatchObject({ kind: 'log', entry: LOG.entry });
    expect(log.kind === 'log' && Object.keys(log.entry)).toEqual(['level', 'message', 'timestamp']);
  });

  it('takes the child’s CPU time only: the parent measures the duration and counts the calls', () => {
    const checked = guarded().guard.check(END, 'busy');
    expect(checked).toMatchObject({ kind: 'end', outcome: { ok: true, value: 3, logs: [], stats: { durationMs: 0, capabilityCalls: 0, cpuTimeMs: 2 } }, rssMb: undefined });
  });

  it('counts calls and refuses the one past maxCapabilityCalls', () => {
    const { guard, run } = guarded({ maxCapabilityCalls: 2 });
    expect(guard.check(CALL, 'busy').kind).toBe('call');
    expect(guard.check({ ...CALL, seq: 2 }, 'busy').kind).toBe('call');
    expect(guard.check({ ...CALL, seq: 3 }, 'busy')).toEqual({ kind: 'breach', what: 'more calls than maxCapabilityCalls' });
    expect(run.calls).toBe(3);
  });

  it('counts console bytes and refuses the line past maxLogBytes', () => {
    const { guard, run } = guarded({ maxLogBytes: 11 });
    expect(guard.check(LOG, 'busy').kind).toBe('log');
    expect(guard.check({ ...LOG, entry: { ...LOG.entry, message: 'wörld!' } }, 'busy')).toEqual({ kind: 'breach', what: 'more console output than maxLogBytes' });
    expect(run.logBytes).toBe(5 + 7);
  });

  it('refuses a result over maxPayloadBytes', () => {
    const big = { ...END, outcome: { ...END.outcome, value: 'x'.repeat(2_000) } };
    expect(guarded({ maxPayloadBytes: 1_000 }).guard.check(big, 'busy')).toEqual({ kind: 'breach', what: 'a result over maxPayloadBytes' });
  });

  it('takes a failed run’s error as a wire error of a run code, and names an RSS past the ceiling', () => {
    const failedRun = { ...END, outcome: { ok: false, error: { code: 'SCRIPT_ERROR', message: 'boom', extra: 1 }, stats: { cpuTimeMs: 1 } }, rssBytes: 600 * 1024 * 1024 };
    const checked = guarded().guard.check(failedRun, 'busy');
    expect(checked).toMatchObject({ kind: 'end', outcome: { ok: false, error: { code: 'SCRIPT_ERROR', message: 'boom' } }, rssMb: 600 });
  });
});
