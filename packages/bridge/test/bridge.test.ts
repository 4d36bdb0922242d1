import { describe, expect, it } from 'vitest';
import { AgentSpacesError, type CallMessage, type CallOutcome, type HandlerContext, type ObjectSchema } from '@agent-spaces/capabilities';
import { createBridge, type AuditEntry, type CallEvent } from '../src/index.js';
import { errorOf, memoryCapability, msg } from './fixtures.js';

const signal = new AbortController().signal;

const trains = () => {
  const seen: Array<{ params: Record<string, unknown>; context: HandlerContext }> = [];
  const capability = memoryCapability('train-schedule', [
    {
      name: 'getSchedule',
      sourceName: 'get_schedule',
      parameters: {
        type: 'object',
        properties: {
          station: { type: 'string' },
          date: { type: 'string', format: 'date' },
          unit: { type: 'string', enum: ['km', 'mi'] },
          limit: { type: 'integer', minimum: 1 },
        },
      },
      run: (params, context) => {
        seen.push({ params, context });
        return [{ id: 't1', station: params.station ?? null }];
      },
    },
    {
      name: 'getTrainDetails',
      parameters: { type: 'object', properties: { trainId: { type: 'string' } }, required: ['trainId'] },
      run: (params) => ({ id: params.trainId, operator: 'Rail' }),
    },
  ]);
  return { capability, seen };
};

describe('lookup', () => {
  it('runs a configured function and returns its value', async () => {
    const { capability, seen } = trains();
    const bridge = createBridge({ capabilities: [capability] });
    const outcome = await bridge.call(msg('train-schedule', 'getSchedule', { station: 'Central' }), signal);
    expect(outcome).toEqual({ ok: true, value: [{ id: 't1', station: 'Central' }] });
    expect(seen[0]!.context).toEqual({ capability: 'train-schedule', function: 'get_schedule', signal, progress: expect.any(Function) });
    expect(bridge.capabilities).toEqual([capability]);
  });

  it.each(['nope', '__proto__', 'constructor', 'toString', 'hasOwnProperty', '', 'train-schedule '])(
    'refuses the forged capability name %j',
    async (name) => {
      const { capability, seen } = trains();
      const error = errorOf(await createBridge({ capabilities: [capability] }).call(msg(name, 'getSchedule'), signal));
      expect(error).toMatchObject({ code: 'CAPABILITY_NOT_FOUND', capability: name, function: 'getSchedule' });
      expect(seen).toHaveLength(0);
    },
  );

  it.each(['nope', '__proto__', 'constructor', 'valueOf', 'get_schedule', 'getSchedule.call'])(
    'refuses the forged function name %j',
    async (name) => {
      const { capability, seen } = trains();
      const error = errorOf(await createBridge({ capabilities: [capability] }).call(msg('train-schedule', name), signal));
      expect(error).toMatchObject({ code: 'FUNCTION_NOT_FOUND', capability: 'train-schedule', function: name });
      expect(error.data?.available).toEqual(['getSchedule', 'getTrainDetails']);
      expect(seen).toHaveLength(0);
    },
  );

  it('refuses names that are not strings and messages that are not objects, without rejecting', async () => {
    const bridge = createBridge({ capabilities: [trains().capability] });
    expect(errorOf(await bridge.call(msg(42, 'getSchedule'), signal)).code).toBe('CAPABILITY_NOT_FOUND');
    expect(errorOf(await bridge.call(msg({ toString: () => 'train-schedule' }, 'x'), signal)).code).toBe('CAPABILITY_NOT_FOUND');
    expect(errorOf(await bridge.call(null as unknown as CallMessage, signal)).code).toBe('INTERNAL');
  });

  it('rejects two capabilities with the same id', () => {
    expect(() => createBridge({ capabilities: [trains().capability, trains().capability] })).toThrowError(
      expect.objectContaining({ code: 'NAME_COLLISION' }),
    );
  });
});

/** The issues of an INVALID_PARAMS failure (fails the test on any other outcome). */
function issues(outcome: CallOutcome): Array<{ path: string; message: string }> {
  const error = errorOf(outcome);
  expect(error.code).toBe('INVALID_PARAMS');
  return error.data?.errors as Array<{ path: string; message: string }>;
}

describe('params validation', () => {
  const call = async (fn: string, params: unknown) => {
    const { capability, seen } = trains();
    const outcome = await createBridge({ capabilities: [capability] }).call(msg('train-schedule', fn, params), signal);
    return { outcome, seen };
  };

  it('reports a missing required property at its path', async () => {
    const { outcome } = await call('getTrainDetails', {});
    expect(issues(outcome)).toEqual([{ path: '/trainId', message: "must have required property 'trainId'" }]);
  });

  it('reports a wrong type, an enum miss and a bad format, all at once', async () => {
    const { outcome, seen } = await call('getSchedule', { station: 5, unit: 'parsec', date: '15/01/2025', limit: 0 });
    const byPath = Object.fromEntries(issues(outcome).map((i) => [i.path, i.message]));
    expect(byPath['/station']).toBe('must be string');
    expect(byPath['/unit']).toBe('must be equal to one of the allowed values: "km", "mi"');
    expect(byPath['/date']).toBe('must match format "date"');
    expect(byPath['/limit']).toBe('must be >= 1');
    expect(errorOf(outcome).message).toContain('params/station: must be string');
    expect(seen).toHaveLength(0);
  });

  it('treats missing params as {} when every property is optional, and as missing properties otherwise', async () => {
    expect((await call('getSchedule', undefined)).outcome.ok).toBe(true);
    expect(issues((await call('getTrainDetails', undefined)).outcome)[0]!.path).toBe('/trainId');
  });

  it.each([
    ['an array', [1, 2]],
    ['null', null],
    ['a string', 'Central'],
    ['a number', 7],
    ['a Map', new Map([['station', 'Central']])],
    ['a Date', new Date(0)],
    ['a class instance', new (class Params {})()],
  ])('refuses params that are %s', async (_, params) => {
    const { outcome, seen } = await call('getSchedule', params);
    expect(issues(outcome)).toEqual([{ path: '', message: 'must be a plain object' }]);
    expect(seen).toHaveLength(0);
  });

  it('refuses an own __proto__ key at any depth without touching any prototype', async () => {
    for (const json of ['{"station":"Central","__proto__":{"polluted":true}}', '{"station":"Central","filter":{"__proto__":{"polluted":true}}}']) {
      const { outcome, seen } = await call('getSchedule', JSON.parse(json));
      expect(issues(outcome)).toEqual([{ path: expect.stringMatching(/__proto__$/), message: 'the key "__proto__" is not allowed' }]);
      expect(seen).toHaveLength(0);
    }
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('validates 2020-12 schemas with 2020-12 keywords and draft-07 schemas with draft-07 ones', async () => {
    const capability = memoryCapability('drafts', [
      {
        name: 'modern',
        parameters: {
          $schema: 'https://json-schema.org/draft/2020-12/schema',
          type: 'object',
          properties: { point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }], items: false } },
        },
      },
      {
        name: 'classic',
        parameters: {
          $schema: 'http://json-schema.org/draft-07/schema#',
          type: 'object',
          properties: { point: { type: 'array', items: [{ type: 'number' }, { type: 'number' }], additionalItems: false } },
        },
      },
    ]);
    const bridge = createBridge({ capabilities: [capability] });
    for (const fn of ['modern', 'classic']) {
      expect((await bridge.call(msg('drafts', fn, { point: [1, 2] }), signal)).ok).toBe(true);
      expect(issues(await bridge.call(msg('drafts', fn, { point: [1, 'x'] }), signal))[0]!.path).toBe('/point/1');
      expect(errorOf(await bridge.call(msg('drafts', fn, { point: [1, 2, 3] }), signal)).code).toBe('INVALID_PARAMS');
    }
  });

  it('compiles a schema on the first call and keeps that validator', async () => {
    const parameters = { type: 'object' as const, properties: { a: { type: 'string' as const } } };
    const bridge = createBridge({ capabilities: [memoryCapability('c', [{ name: 'f', parameters }])] });
    expect((await bridge.call(msg('c', 'f', { a: 'x' }), signal)).ok).toBe(true);
    Object.assign(parameters, { required: ['b'] });
    expect((await bridge.call(msg('c', 'f', { a: 'x' }), signal)).ok).toBe(true);
  });

  it('reports a schema that does not compile as INTERNAL on call, not when the bridge is created', async () => {
    const broken = memoryCapability('c', [{ name: 'f', parameters: { type: 'object', properties: { a: { type: 'nope' as 'string' } } } }]);
    const bridge = createBridge({ capabilities: [broken] });
    const error = errorOf(await bridge.call(msg('c', 'f', {}), signal));
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toContain('c.f');
  });

  it('refuses malformed schemas without a meta-schema check: wrong keyword types, bad patterns, missing refs', async () => {
    const malformed: unknown[] = [
      { type: 'object', properties: { a: { type: 'string', required: true } } },
      { type: 'object', properties: [] },
      { type: 'object', properties: { a: { enum: 'x' } } },
      { type: 'object', properties: { a: { type: 'string', pattern: '(' } } },
      { type: 'object', properties: { a: { $ref: '#/$defs/missing' } } },
    ];
    const functions = malformed.map((parameters, i) => ({ name: `f${i}`, parameters: parameters as ObjectSchema }));
    const bridge = createBridge({ capabilities: [memoryCapability('bad', functions)] });
    for (const { name } of functions) {
      const error = errorOf(await bridge.call(msg('bad', name, {}), signal));
      expect([error.code, error.message]).toEqual(['INTERNAL', expect.stringContaining(`The params schema of bad.${name} does not compile`)]);
    }
  });
});


describe('execution', () => {
  const throwing = (error: unknown) =>
    createBridge({
      capabilities: [
        memoryCapability('c', [
          {
            name: 'f',
            run: () => {
              throw error;
            },
          },
        ]),
      ],
    });

  it('turns a thrown handler error into HANDLER_ERROR with its message and no host stack', async () => {
    const error = errorOf(await throwing(new Error('disk full')).call(msg('c', 'f'), signal));
    expect(error).toEqual({ code: 'HANDLER_ERROR', message: 'disk full', callId: '1', capability: 'c', function: 'f' });
    expect(errorOf(await throwing('plain string').call(msg('c', 'f'), signal)).message).toBe('plain string');
  });

  it('keeps the code and data of an AgentSpacesError a handler throws', async () => {
    const error = errorOf(await throwing(new AgentSpacesError('ACCESS_DENIED', 'no', { host: 'x' })).call(msg('c', 'f'), signal));
    expect(error).toEqual({ code: 'ACCESS_DENIED', message: 'no', data: { host: 'x' }, callId: '1', capability: 'c', function: 'f' });
  });

  it('does not run a call whose run is already aborted, and reports a handler failing after abort as ABORTED', async () => {
    let ran = 0;
    const controller = new AbortController();
    const bridge = createBridge({
      capabilities: [
        memoryCapability('c', [
          {
            name: 'f',
            run: (_, context) => {
              ran++;
              controller.abort();
              context.signal.throwIfAborted();
            },
          },
        ]),
      ],
    });
    expect(errorOf(await bridge.call(msg('c', 'f'), controller.signal)).code).toBe('ABORTED');
    expect(errorOf(await bridge.call(msg('c', 'f'), controller.signal)).code).toBe('ABORTED');
    expect(ran).toBe(1);
  });

  it('runs parallel calls at the same time', async () => {
    let started = 0;
    let release!: () => void;
    const bothStarted = new Promise<void>((resolve) => (release = resolve));
    const bridge = createBridge({
      capabilities: [
        memoryCapability('c', [
          {
            name: 'wait',
            run: async () => {
              if (++started === 2) release();
              const fallback = new Promise<string>((resolve) => setTimeout(resolve, 5000, 'serialized'));
              return Promise.race([bothStarted.then(() => 'overlapped'), fallback]);
            },
          },
        ]),
      ],
    });
    const outcomes = await Promise.all([bridge.call(msg('c', 'wait'), signal), bridge.call(msg('c', 'wait'), signal)]);
    expect(outcomes).toEqual([
      { ok: true, value: 'overlapped' },
      { ok: true, value: 'overlapped' },
    ]);
  });

  it('tells origin.onEvent of every call under one bridge-wide id, and ignores a listener that throws', async () => {
    const events: CallEvent[] = [];
    const { capability } = trains();
    const bridge = createBridge({ capabilities: [capability] });
    const origin = {
      onEvent: (e: CallEvent) => {
        events.push(e);
        throw new Error('observer bug');
      },
    };
    expect((await bridge.call(msg('train-schedule', 'getSchedule', {}), signal, origin)).ok).toBe(true);
    const failed = errorOf(await bridge.call(msg('train-schedule', 'nope'), signal, origin));
    expect(failed).toMatchObject({ code: 'FUNCTION_NOT_FOUND', callId: '2' });
    expect(events.map((e) => [e.type, 'callId' in e ? e.callId : undefined])).toEqual([
      ['capabilityCall', '1'],
      ['capabilityResult', '1'],
      ['capabilityCall', '2'],
      ['capabilityResult', '2'],
    ]);
    expect(events[0]).toEqual({ type: 'capabilityCall', callId: '1', capability: 'train-schedule', function: 'getSchedule', params: {} });
    expect(events[1]).toMatchObject({ type: 'capabilityResult', callId: '1', ok: true });
    expect((events[1] as { durationMs: number }).durationMs).toBeGreaterThanOrEqual(0);
    expect(events[3]).toMatchObject({ type: 'capabilityResult', callId: '2', ok: false, error: { code: 'FUNCTION_NOT_FOUND', callId: '2' } });
  });

  it('turns context.progress reports of a handler into progress events of the call', async () => {
    const events: CallEvent[] = [];
    const capability = memoryCapability('c', [
      {
        name: 'slow',
        run: (_params, context) => {
          context.progress({ progress: 1, total: 2 });
          context.progress({ progress: 2, total: 2, message: 'done' });
          context.progress({ progress: 'bad' } as never);
          return 'ok';
        },
      },
    ]);
    const bridge = createBridge({ capabilities: [capability] });
    await bridge.call(msg('c', 'slow'), signal, { onEvent: (e) => events.push(e) });
    expect(events.filter((e) => e.type === 'progress')).toEqual([
      { type: 'progress', callId: '1', capability: 'c', function: 'slow', progress: 1, total: 2 },
      { type: 'progress', callId: '1', capability: 'c', function: 'slow', progress: 2, total: 2, message: 'done' },
    ]);
    // Without a listener, progress reports go nowhere and harm nothing.
    expect(await bridge.call(msg('c', 'slow'), signal)).toEqual({ ok: true, value: 'ok' });
  });

  it('drops progress a handler reports after its call ended', async () => {
    const events: CallEvent[] = [];
    let late: (() => void) | undefined;
    const capability = memoryCapability('c', [
      {
        name: 'leaky',
        run: (_params, context) => {
          late = () => context.progress({ progress: 9 });
          return 'done';
        },
      },
    ]);
    await createBridge({ capabilities: [capability] }).call(msg('c', 'leaky'), signal, { onEvent: (e) => events.push(e) });
    late!();
    expect(events.map((e) => e.type)).toEqual(['capabilityCall', 'capabilityResult']);
  });

  it('records the approver answer in the decision of the audit entry', async () => {
    const entries: AuditEntry[] = [];
    const capability = memoryCapability('c', [{ name: 'f', requiresApproval: true, run: () => 'done' }]);
    const bridge = createBridge({ capabilities: [capability], onApproval: () => true, audit: { append: (e) => void entries.push(e) } });
    await bridge.call(msg('c', 'f'), signal);
    // The question is on record before it is asked; the call's own line follows with the answer.
    expect(entries.map((e) => [e.callId, e.pending ?? 'ended'])).toEqual([
      ['1', 'approval'],
      ['1', 'ended'],
    ]);
    expect(entries[1]!.decision).toEqual({ kind: 'ask', by: 'requiresApproval', approved: true, answeredBy: 'approver' });
  });
});
