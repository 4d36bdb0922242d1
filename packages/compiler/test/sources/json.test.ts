import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readJsonSource } from '../../src/sources/json.js';
import { findJsonSyntaxError } from '../../src/sources/json-syntax.js';
import { makeProject } from '../../../../test/fixtures/project.js';
import { codes, sourceContext } from '../helpers.js';

/** Reads `capabilities/<name>` from a temp project holding `files`. */
async function read(name: string, files: Record<string, string>) {
  const project = await makeProject(files);
  return readJsonSource(join(project.dir, 'capabilities', name), sourceContext(project.dir));
}

const tool = { name: 'get_weather', description: 'Weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } };

describe('capability format', () => {
  it('reads name, version, functions, approval fields and config; module id from the file name', async () => {
    const definition = {
      name: 'trainSchedule',
      version: '1.2.0',
      functions: [
        { name: 'get_schedule', description: 'All trains', parameters: { properties: { station: { type: 'string' } } } },
        { name: 'cancel', parameters: { type: 'object', properties: { id: { type: 'string' } } }, requiresApproval: true, approvalMessage: 'Cancel {id}?' },
      ],
      config: { requiresApproval: false, rateLimit: { requests: 100, period: 'minute' } },
    };
    const result = await read('Train_Schedule.json', { 'capabilities/Train_Schedule.json': JSON.stringify(definition) });
    expect(result.diagnostics).toEqual([]);
    const [capability] = result.capabilities;
    expect(capability).toMatchObject({
      id: 'train-schedule',
      exportName: 'trainSchedule',
      sourceName: 'trainSchedule',
      version: '1.2.0',
      source: { kind: 'json', file: 'capabilities/Train_Schedule.json' },
      config: { requiresApproval: false, rateLimit: { requests: 100, period: 'minute' } },
      executor: { kind: 'runtime' },
    });
    expect(capability!.functions.map((f) => [f.name, f.sourceName, f.pointer])).toEqual([
      ['getSchedule', 'get_schedule', '/functions/0'],
      ['cancel', 'cancel', '/functions/1'],
    ]);
    expect(capability!.functions[0]!.parameters).toEqual({ type: 'object', properties: { station: { type: 'string' } } });
    expect(capability!.functions[1]).toMatchObject({ requiresApproval: true, approvalMessage: 'Cancel {id}?' });
  });

  it('warns about an approval placeholder that is not a parameter', async () => {
    const definition = { name: 'x', functions: [{ ...tool, approvalMessage: 'Get {town}?' }] };
    const result = await read('x.json', { 'capabilities/x.json': JSON.stringify(definition) });
    expect(result.diagnostics.map((d) => [d.severity, d.pointer])).toEqual([['warning', '/functions/0/approvalMessage']]);
    expect(result.capabilities).toHaveLength(1);
  });
});

describe('OpenAI-style tool', () => {
  it('reads a bare tool: export name from the file, function name camelCased', async () => {
    const result = await read('weather.json', { 'capabilities/weather.json': JSON.stringify(tool) });
    expect(result.diagnostics).toEqual([]);
    expect(result.capabilities[0]).toMatchObject({ id: 'weather', exportName: 'weather', sourceName: 'weather', version: '0.0.0' });
    expect(result.capabilities[0]!.functions[0]).toMatchObject({ name: 'getWeather', sourceName: 'get_weather', pointer: '' });
  });

  it('reads a tool wrapped in { type: "function", function }', async () => {
    const result = await read('weather.json', { 'capabilities/weather.json': JSON.stringify({ type: 'function', function: tool }) });
    expect(result.capabilities[0]!.functions[0]).toMatchObject({ name: 'getWeather', pointer: '/function', description: 'Weather' });
  });
});

describe('executors', () => {
  it('bundles a handler module into host.mjs and records its files as inputs', async () => {
    const result = await read('weather.json', {
      'capabilities/weather.json': JSON.stringify({ ...tool, executor: { kind: 'module', module: './weather.handlers.mjs' } }),
      'capabilities/weather.handlers.mjs': "import { scale } from './lib/scale.mjs';\nexport async function get_weather({ city }) { return { city, t: scale(20) }; }\n",
      'capabilities/lib/scale.mjs': 'export const scale = (c) => c * 2;\n',
    });
    expect(result.diagnostics).toEqual([]);
    expect(result.capabilities[0]!.executor).toEqual({ kind: 'module', module: 'host.mjs' });
    const host = result.hostModules.weather!;
    expect(host).toContain('get_weather');
    expect(host).toContain('c * 2');
    expect(result.inputs.map((f) => f.slice(f.indexOf('capabilities/')))).toEqual([
      'capabilities/weather.json',
      'capabilities/lib/scale.mjs',
      'capabilities/weather.handlers.mjs',
    ]);
  });

  it('keeps an HTTP executor and defaults to runtime handlers', async () => {
    const http = { kind: 'http', url: 'http://127.0.0.1:8080/call', headers: { authorization: 'Bearer ${TOKEN}' } };
    const result = await read('w.json', { 'capabilities/w.json': JSON.stringify({ ...tool, executor: http }) });
    expect(result.capabilities[0]!.executor).toEqual(http);
  });

  it('reports a bad executor kind, URL and a handler module that does not exist', async () => {
    const bad = async (executor: unknown) =>
      codes((await read('w.json', { 'capabilities/w.json': JSON.stringify({ ...tool, executor }) })).diagnostics);
    expect(await bad({ kind: 'lambda' })).toEqual(['INVALID_DEFINITION /executor/kind']);
    expect(await bad({ kind: 'http', url: 'ftp://x' })).toEqual(['INVALID_DEFINITION /executor/url']);
    expect(await bad({ kind: 'module', module: './nope.mjs' })).toEqual(['INVALID_DEFINITION /executor/module']);
  });
});

describe('errors', () => {
  it('reports invalid JSON with its line and column', async () => {
    const result = await read('bad.json', { 'capabilities/bad.json': '{\n  "name": "x",\n  "functions": [,]\n}' });
    expect(codes(result.diagnostics)).toEqual(['INVALID_JSON']);
    expect(result.diagnostics[0]!.message).toContain('line 3, column 17');
    expect(result.diagnostics[0]!.file).toBe('capabilities/bad.json');
    expect(result.capabilities).toEqual([]);
  });

  it('reports every invalid field with its JSON pointer', async () => {
    const definition = {
      name: 7,
      functions: [{ description: 'no name' }, { name: 'f', parameters: { type: 'string' }, requiresApproval: 'yes' }, 'x'],
      config: { rateLimit: { requests: 0, period: 'fortnight' } },
    };
    const result = await read('bad.json', { 'capabilities/bad.json': JSON.stringify(definition) });
    expect(codes(result.diagnostics).sort()).toEqual(
      [
        'INVALID_DEFINITION /name',
        'INVALID_DEFINITION /functions/0/name',
        'INVALID_DEFINITION /functions/1/parameters/type',
        'INVALID_DEFINITION /functions/1/requiresApproval',
        'INVALID_DEFINITION /functions/2',
        'INVALID_DEFINITION /config/rateLimit/requests',
        'INVALID_DEFINITION /config/rateLimit/period',
      ].sort(),
    );
    expect(result.capabilities).toEqual([]);
  });

  it('says what a file in neither format is missing', async () => {
    const result = await read('x.json', { 'capabilities/x.json': '{ "name": "x", "functions": {} }' });
    expect(codes(result.diagnostics)).toEqual(['INVALID_DEFINITION /functions']);
    expect(codes((await read('y.json', { 'capabilities/y.json': '[1]' })).diagnostics)).toEqual(['INVALID_DEFINITION']);
  });

  it('reports a missing file as SOURCE_NOT_FOUND', async () => {
    const result = await read('gone.json', {});
    expect(codes(result.diagnostics)).toEqual(['SOURCE_NOT_FOUND']);
  });
});

describe('findJsonSyntaxError', () => {
  it('finds the first error in objects, arrays, strings and literals', () => {
    expect(findJsonSyntaxError('{"a": 1}')).toBeUndefined();
    expect(findJsonSyntaxError('{"a" 1}')).toMatchObject({ line: 1, column: 6 });
    expect(findJsonSyntaxError('[1, 2,\n 3 4]')).toMatchObject({ line: 2, column: 4 });
    expect(findJsonSyntaxError('{"a": tru}')).toMatchObject({ line: 1, column: 7 });
    expect(findJsonSyntaxError('{"a": "x\\q"}')).toMatchObject({ line: 1, column: 10 });
    expect(findJsonSyntaxError('{"a": 1} x')).toMatchObject({ line: 1, column: 10 });
    expect(findJsonSyntaxError('{"a": 1')?.message).toContain('end of input');
  });
});
