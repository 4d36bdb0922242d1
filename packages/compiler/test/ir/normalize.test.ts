import { describe, expect, it } from 'vitest';
import type { CapabilityIR } from '@agent-spaces/capabilities';
import { checkCapabilityNames, exportsAlone, findIdCollisions, normalizeParameters, normalizeSchema } from '../../src/ir/normalize.js';
import { capabilityWith, codes } from '../helpers.js';

describe('normalizeParameters', () => {
  it('gives a tool without parameters an empty object schema', () => {
    expect(normalizeParameters(undefined)).toEqual({ ok: true, schema: { type: 'object', properties: {} } });
  });

  it('adds type object to a schema with properties and refuses other types', () => {
    expect(normalizeParameters({ properties: { a: { type: 'string' } } })).toEqual({ ok: true, schema: { type: 'object', properties: { a: { type: 'string' } } } });
    expect(normalizeParameters({ type: 'string' }).ok).toBe(false);
    expect(normalizeParameters([1]).ok).toBe(false);
  });
});

describe('normalizeSchema', () => {
  it('moves draft 3 "required": true into the parent required array, at any depth, without mutating the input', () => {
    const input = {
      type: 'object',
      properties: { a: { type: 'string', required: true }, b: { type: 'object', properties: { c: { type: 'number', required: true }, d: { required: false } } } },
    };
    const before = JSON.stringify(input);
    expect(normalizeSchema(input)).toEqual({
      type: 'object',
      properties: { a: { type: 'string' }, b: { type: 'object', properties: { c: { type: 'number' }, d: {} }, required: ['c'] } },
      required: ['a'],
    });
    expect(JSON.stringify(input)).toBe(before);
  });
});

describe('name collisions', () => {
  it('reports two functions that become one identifier, naming both', () => {
    const capability = capabilityWith({});
    const fn = capability.functions[0]!;
    capability.functions = [
      { ...fn, name: 'listChannels', sourceName: 'list_channels', pointer: '/functions/0' },
      { ...fn, name: 'listChannels', sourceName: 'listChannels', pointer: '/functions/1' },
    ];
    const diagnostics = checkCapabilityNames(capability);
    expect(codes(diagnostics)).toEqual(['NAME_COLLISION /functions/1']);
    expect(diagnostics[0]!.message).toContain('"list_channels"');
    expect(diagnostics[0]!.message).toContain('"listChannels"');
  });

  it('accepts a function named like the capability object (a member only, not exported alone)', () => {
    const capability = capabilityWith({});
    capability.functions[0]!.name = 'demo';
    expect(codes(checkCapabilityNames(capability))).toEqual([]);
    expect(exportsAlone(capability, capability.functions[0]!)).toBe(false);
    expect(exportsAlone(capability, { name: 'other' })).toBe(true);
  });

  it('reports every capability claiming a module id, naming the other sources', () => {
    const a: CapabilityIR = { ...capabilityWith({}), source: { kind: 'json', file: 'a/weather.json' } };
    const b: CapabilityIR = { ...capabilityWith({}), source: { kind: 'define-tool', file: 'b/weather.ts' } };
    const found = findIdCollisions([a, b], new Map());
    expect(found.get(a)?.message).toContain('b/weather.ts');
    expect(found.get(b)?.message).toContain('a/weather.json');
    expect(findIdCollisions([a], new Map([['demo', 'kept.json']])).get(a)?.message).toContain('kept.json');
    expect(findIdCollisions([a], new Map()).size).toBe(0);
  });
});
