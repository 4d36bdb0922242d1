import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { CapabilityIR, FunctionIR, ObjectSchema } from '@agent-spaces/capabilities';
import { emitDeclarations } from '../../src/emit/declarations.js';
import { identifier } from '../../src/ir/names.js';
import { readJsonSource } from '../../src/sources/json.js';
import { sourceContext } from '../helpers.js';
import { strictErrors } from '../typescript-host.js';
import { SCHEMA_CASES } from './schema-cases.js';

const testDir = join(import.meta.dirname, '..');

/** One capability with a function per schema case, taking the case as parameters and returning it. */
function kitchenSink(): CapabilityIR {
  const functions: FunctionIR[] = Object.entries(SCHEMA_CASES).map(([name, schema], index) => ({
    name: identifier(name),
    sourceName: name,
    description: `Case ${name}`,
    parameters: schema as unknown as ObjectSchema,
    returns: { ...schema, title: undefined } as unknown as FunctionIR['returns'],
    pointer: `/functions/${index}`,
  }));
  return {
    id: 'kitchen-sink',
    exportName: 'kitchenSink',
    sourceName: 'kitchenSink',
    version: '1.0.0',
    source: { kind: 'json', file: 'kitchen-sink.json' },
    functions,
    config: {},
    executor: { kind: 'runtime' },
  };
}

async function fixtureDeclarations(name: string): Promise<string> {
  const result = await readJsonSource(join(testDir, 'fixtures', name), sourceContext(testDir));
  return emitDeclarations(result.capabilities[0]!).text;
}

describe('emitted declarations compile under tsc --strict', () => {
  it('compiles the golden seed capabilities together with agent code that uses them', async () => {
    const usage = `
import { trainSchedule, getTrainDetails } from '@capabilities/train-schedule';
import { getWeather, type WeatherResult } from '@capabilities/weather';
export async function main(): Promise<string> {
  const trips = await trainSchedule.getSchedule({ station: 'Central' });
  const first = trips.filter((t) => (t.hour ?? 0) < 12)[0];
  const details = await getTrainDetails({ trainId: first?.id ?? 'x' });
  const weather: WeatherResult = await getWeather({ location: 'Paris', unit: 'celsius' });
  // @ts-expect-error unit is a literal union
  await getWeather({ location: 'Paris', unit: 'kelvin' });
  // @ts-expect-error location is required
  await getWeather({});
  return \`\${details.operator ?? ''} \${weather.temperature.toFixed(1)}\`;
}
`;
    const errors = strictErrors({
      '/project/train-schedule.d.ts': await fixtureDeclarations('train-schedule.json'),
      '/project/weather.d.ts': await fixtureDeclarations('weather.json'),
      '/project/agent.ts': usage,
    });
    expect(errors).toEqual([]);
  });

  it('compiles a module using every schema feature, and its types are real (not any)', () => {
    const { text, diagnostics } = emitDeclarations(kitchenSink());
    expect(diagnostics).toEqual([]);
    const usage = `
import * as k from '@capabilities/kitchen-sink';
export async function main(): Promise<void> {
  const tree: k.RecursiveDefsResult = await k.recursiveDefs({ tree: { value: 1, next: { value: 2, next: null } } });
  await k.rootRef({ name: 'a', children: [{ name: 'b', children: [] }] });
  await k.unions({ id: 3, shape: { kind: 'circle', r: 1 }, both: { name: 'n', age: 2 } });
  await k.literals({ level: 'low', code: 2, mixed: null, fixed: 'v1', note: null });
  await k.tuples({ point: [1, 2], range: ['a'], head: ['h', 1, 2, 3] });
  await k.indexSignatures({ labels: { a: 'b' }, counted: { total: 1, other: 'x' }, headers: { 'x-id': '1' }, closed: {} });
  await k.quotedKeys({ 'x-api-key': 'k', default: 'd' });
  await k.kitchenSink.nested({ rows: [{ a: 'x' }], matrix: [[1]], tags: ['t', 1] });
  const owner: k.Owner | undefined = (await k.titled()).owner;
  // @ts-expect-error shape must match one member of the union
  await k.unions({ shape: { kind: 'circle', side: 1 } });
  // @ts-expect-error a closed tuple has two elements
  await k.tuples({ point: [1, 2, 3] });
  // @ts-expect-error x-api-key is required
  await k.quotedKeys({});
  void tree; void owner;
}
`;
    expect(strictErrors({ '/project/kitchen-sink.d.ts': text, '/project/agent.ts': usage })).toEqual([]);
  });
});
