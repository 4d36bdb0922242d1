import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import type { ObjectSchema } from '@agent-spaces/capabilities';
import { createBridge, loadCapabilities, type ApprovalRequest, type RuntimeHandlers } from '../src/index.js';
import { loadValidatorsCompiler } from '../src/validate.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { errorOf, msg, startServer, writeCapability } from './fixtures.js';

const signal = new AbortController().signal;
const rejection = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: { code: string; message: string; data?: Record<string, unknown> }) => error,
  );

let outDir: string;
beforeEach(async () => ({ dir: outDir } = await makeProject()));

describe('module executor', () => {
  it('imports host.mjs on the first call only and runs the export named after the source name', async () => {
    const marker = join(outDir, 'imports.log');
    await writeCapability(outDir, {
      id: 'train-schedule',
      executor: { kind: 'module', module: 'capabilities/train-schedule.mjs' },
      functions: [
        {
          name: 'getSchedule',
          sourceName: 'get_schedule',
          parameters: { type: 'object', properties: { station: { type: 'string' } } },
        },
      ],
      host: `import { appendFileSync } from 'node:fs';
appendFileSync(${JSON.stringify(marker)}, 'imported\\n');
export async function get_schedule(params, context) {
  return { station: params.station, capability: context.capability, fn: context.function };
}`,
    });
    const [capability] = await loadCapabilities(outDir, ['train-schedule']);
    expect([...capability!.functions.keys()]).toEqual(['getSchedule']);
    await expect(readFile(marker, 'utf8')).rejects.toMatchObject({ code: 'ENOENT' });

    const bridge = createBridge({ capabilities: [capability!] });
    for (const station of ['Central', 'North']) {
      expect(await bridge.call(msg('train-schedule', 'getSchedule', { station }), signal)).toEqual({
        ok: true,
        value: { station, capability: 'trainSchedule', fn: 'get_schedule' },
      });
    }
    expect(await readFile(marker, 'utf8')).toBe('imported\n');
  });

  it('runs defineTool() handlers and uses their approvalMessage', async () => {
    await writeCapability(outDir, {
      id: 'files',
      executor: { kind: 'module', module: 'capabilities/files.ts', export: 'files' },
      functions: [
        { name: 'readFile', parameters: { type: 'object', properties: { path: { type: 'string' } } } },
        { name: 'deleteFile', requiresApproval: true, parameters: { type: 'object', properties: { path: { type: 'string' } } } },
      ],
      host: `export const files = { name: 'files', functions: {
  readFile: { description: 'Read', handler: async ({ path }) => 'content of ' + path },
  deleteFile: { description: 'Delete', requiresApproval: true,
    approvalMessage: (p) => 'Delete file: ' + p.path + '?', handler: async ({ path }) => ({ deleted: path }) },
} };`,
    });
    const capabilities = await loadCapabilities(outDir, ['files']);
    const requests: ApprovalRequest[] = [];
    const bridge = createBridge({ capabilities, onApproval: (r) => (requests.push(r), true) });
    expect(await bridge.call(msg('files', 'readFile', { path: 'a' }), signal)).toEqual({ ok: true, value: 'content of a' });
    expect(await bridge.call(msg('files', 'deleteFile', { path: 'b' }), signal)).toEqual({ ok: true, value: { deleted: 'b' } });
    expect(requests.map((r) => r.message)).toEqual(['Delete file: b?']);
  });

  it('fails a call whose handler is missing with NO_HANDLER and a broken module with HANDLER_ERROR', async () => {
    await writeCapability(outDir, {
      id: 'partial',
      executor: { kind: 'module', module: 'x.mjs' },
      functions: [{ name: 'present' }, { name: 'absent' }],
      host: 'export const present = () => "here"; export const absentButNotAFunction = 1;',
    });
    await writeCapability(outDir, {
      id: 'broken',
      executor: { kind: 'module', module: 'x.mjs' },
      functions: [{ name: 'f' }],
      host: 'throw new Error("module crashed at import");',
    });
    const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['partial', 'broken']) });
    expect((await bridge.call(msg('partial', 'present'), signal)).ok).toBe(true);
    expect(errorOf(await bridge.call(msg('partial', 'absent'), signal))).toMatchObject({ code: 'NO_HANDLER', function: 'absent' });
    const broken = errorOf(await bridge.call(msg('broken', 'f'), signal));
    expect(broken.code).toBe('HANDLER_ERROR');
    expect(broken.message).toContain('module crashed at import');
  });

  it('refuses to load a module capability without host.mjs', async () => {
    await writeCapability(outDir, { id: 'nohost', executor: { kind: 'module', module: 'x.mjs' }, functions: [{ name: 'f' }] });
    const error = await rejection(loadCapabilities(outDir, ['nohost']));
    expect(error.code).toBe('CAPABILITY_NOT_FOUND');
    expect(error.data?.file).toBe(join(outDir, 'nohost', 'host.mjs'));
  });
});

describe('http executor', () => {
  it('POSTs { capability, function, params } with the headers and returns the JSON body', async () => {
    const headers: Array<string | undefined> = [];
    const server = await startServer((body, req, res) => {
      headers.push(req.headers['x-api-key'] as string | undefined);
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ echoed: body }));
    });
    try {
      await writeCapability(outDir, {
        id: 'weather',
        executor: { kind: 'http', url: server.url, headers: { 'x-api-key': 'k1' } },
        functions: [{ name: 'getWeather', sourceName: 'get_weather', parameters: { type: 'object', properties: { city: { type: 'string' } } } }],
      });
      const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['weather']) });
      const outcome = await bridge.call(msg('weather', 'getWeather', { city: 'Oslo' }), signal);
      const sent = { capability: 'weather', function: 'get_weather', params: { city: 'Oslo' } };
      expect(outcome).toEqual({ ok: true, value: { echoed: sent } });
      expect(server.requests).toEqual([sent]);
      expect(headers).toEqual(['k1']);
    } finally {
      await server.close();
    }
  });

  it('fails a non-2xx answer with HANDLER_ERROR carrying the status, and returns text bodies as text', async () => {
    const server = await startServer((body, _req, res) => {
      const fn = (body as { function: string }).function;
      if (fn === 'text') return void res.end('plain words');
      res.statusCode = 503;
      res.end('upstream down');
    });
    try {
      await writeCapability(outDir, { id: 'svc', executor: { kind: 'http', url: server.url }, functions: [{ name: 'text' }, { name: 'down' }] });
      const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['svc']) });
      expect(await bridge.call(msg('svc', 'text'), signal)).toEqual({ ok: true, value: 'plain words' });
      expect(errorOf(await bridge.call(msg('svc', 'down'), signal))).toMatchObject({
        code: 'HANDLER_ERROR',
        capability: 'svc',
        data: { status: 503, body: 'upstream down' },
      });
    } finally {
      await server.close();
    }
  });

  it('fails with HANDLER_ERROR when nothing listens', async () => {
    const server = await startServer(() => {});
    await server.close();
    await writeCapability(outDir, { id: 'gone', executor: { kind: 'http', url: server.url }, functions: [{ name: 'f' }] });
    const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['gone']) });
    expect(errorOf(await bridge.call(msg('gone', 'f'), signal)).message).toContain('ECONNREFUSED');
  });
});

describe('runtime executor', () => {
  it('finds handlers by id or exportName, then by name or source name, and reports missing ones at call time', async () => {
    await writeCapability(outDir, {
      id: 'notes',
      executor: { kind: 'runtime' },
      functions: [{ name: 'create', sourceName: 'create_note' }, { name: 'list' }, { name: 'toString' }],
    });
    await writeCapability(outDir, { id: 'crm-tool', exportName: 'crm', executor: { kind: 'runtime' }, functions: [{ name: 'search' }] });
    const handlers: RuntimeHandlers = {
      notes: { create_note: (p: { title?: string }) => `created ${p.title}`, list: () => ['a'] },
      crm: { search: (_p, context) => context.capability },
    };
    const bridge = createBridge({ capabilities: await loadCapabilities(outDir, ['notes', 'crm-tool'], handlers) });
    expect(await bridge.call(msg('notes', 'create', { title: 'x' }), signal)).toEqual({ ok: true, value: 'created x' });
    expect(await bridge.call(msg('notes', 'list'), signal)).toEqual({ ok: true, value: ['a'] });
    expect(await bridge.call(msg('crm-tool', 'search'), signal)).toEqual({ ok: true, value: 'crm' });
    expect(errorOf(await bridge.call(msg('notes', 'toString'), signal)).code).toBe('NO_HANDLER');
  });
});

describe('approval templates', () => {
  it('fills {param} placeholders from the params and leaves unknown ones as written', async () => {
    await writeCapability(outDir, {
      id: 'fs-tool',
      executor: { kind: 'runtime' },
      functions: [{ name: 'deleteFile', requiresApproval: true, approvalMessage: 'Delete {path} ({size} bytes, {owner})?' }],
    });
    const [capability] = await loadCapabilities(outDir, ['fs-tool']);
    const message = capability!.functions.get('deleteFile')!.approvalMessage!;
    expect(message({ path: 'a.txt', size: 12 })).toBe('Delete a.txt (12 bytes, {owner})?');
    expect(message({ path: 'b', size: 1, toString: 'x' })).toBe('Delete b (1 bytes, {owner})?');
    expect(message(JSON.parse('{"path":"c","owner":{"name":"x"}}'))).toBe('Delete c ({size} bytes, {"name":"x"})?');
  });
});

describe('built files', () => {
  const valid = { id: 'ok', executor: { kind: 'runtime' as const }, functions: [{ name: 'f' }] };

  it('fails with CAPABILITY_NOT_FOUND for an unbuilt capability or an id that is not one', async () => {
    const missing = await rejection(loadCapabilities(outDir, ['absent']));
    expect(missing).toMatchObject({ code: 'CAPABILITY_NOT_FOUND', data: { file: join(outDir, 'absent', 'meta.json') } });
    for (const id of ['../ok', '/etc', '.', '..', 'a/b', '']) {
      expect((await rejection(loadCapabilities(outDir, [id]))).code).toBe('CAPABILITY_NOT_FOUND');
    }
  });

  it('fails with INVALID_JSON naming a corrupt file', async () => {
    const dir = await writeCapability(outDir, valid);
    await writeFile(join(dir, 'schema.json'), '{"id": "ok", "functions": {');
    expect(await rejection(loadCapabilities(outDir, ['ok']))).toMatchObject({
      code: 'INVALID_JSON',
      data: { file: join(dir, 'schema.json') },
    });
  });

  it.each([
    ['meta.json', '/exportName', (m: Record<string, unknown>) => delete m.exportName],
    ['meta.json', '/id', (m: Record<string, unknown>) => (m.id = 'other')],
    ['meta.json', '/executor/kind', (m: Record<string, unknown>) => (m.executor = { kind: 'carrier-pigeon' })],
    ['meta.json', '/executor/url', (m: Record<string, unknown>) => (m.executor = { kind: 'http', url: 'not a url' })],
    ['meta.json', '/functions/0/requiresApproval', (m: Record<string, unknown>) => ((m.functions as object[])[0] = { name: 'f', sourceName: 'f', requiresApproval: 'yes' })],
    ['meta.json', '/config/rateLimit/requests', (m: Record<string, unknown>) => (m.config = { rateLimit: { requests: -1, period: 'minute' } })],
    ['schema.json', '/functions/f', (s: Record<string, unknown>) => (s.functions = {})],
    ['schema.json', '/functions/f/parameters/type', (s: Record<string, unknown>) => (s.functions = { f: { parameters: { type: 'array' } } })],
  ])('fails with INVALID_DEFINITION naming %s and the field %s', async (file, pointer, corrupt) => {
    const dir = await writeCapability(outDir, valid);
    const path = join(dir, file);
    const content = JSON.parse(await readFile(path, 'utf8')) as Record<string, unknown>;
    corrupt(content);
    await writeFile(path, JSON.stringify(content));
    const error = await rejection(loadCapabilities(outDir, ['ok']));
    expect(error).toMatchObject({ code: 'INVALID_DEFINITION', data: { file: path, pointer } });
    expect(error.message).toContain(path);
  });

  it('fails when a function is listed twice', async () => {
    await writeCapability(outDir, { ...valid, functions: [{ name: 'f' }, { name: 'f' }] });
    expect((await rejection(loadCapabilities(outDir, ['ok']))).code).toBe('INVALID_DEFINITION');
  });

  it('keeps config and per-function approval flags as built', async () => {
    await writeCapability(outDir, {
      ...valid,
      config: { requiresApproval: true, rateLimit: { requests: 100, period: 'minute' } },
      functions: [{ name: 'f', requiresApproval: true }, { name: 'g' }],
    });
    const [capability] = await loadCapabilities(outDir, ['ok']);
    expect(capability!.config).toEqual({ requiresApproval: true, rateLimit: { requests: 100, period: 'minute' } });
    expect([...capability!.functions.values()].map((f) => [f.name, f.requiresApproval])).toEqual([
      ['f', true],
      ['g', false],
    ]);
  });
});

describe('validators compiled by the build', () => {
  const parameters: ObjectSchema = { type: 'object', properties: { station: { type: 'string', minLength: 2 } }, required: ['station'] };
  const write = () =>
    writeCapability(outDir, { id: 'trains', executor: { kind: 'runtime' }, functions: [{ name: 'getSchedule', parameters }] });
  const handlers: RuntimeHandlers = { trains: { getSchedule: ({ station }) => `trips from ${station}` } };

  it('checks params with the validators file when the build wrote one, and refuses what it refuses', async () => {
    await write();
    const source = (await loadValidatorsCompiler())([{ name: 'getSchedule', parameters }]);
    await writeFile(join(outDir, 'trains', 'validators.cjs'), source);
    const [capability] = await loadCapabilities(outDir, ['trains'], handlers);
    expect(capability!.functions.get('getSchedule')!.validator!()).toBeTypeOf('function');
    const bridge = createBridge({ capabilities: [capability!] });
    expect(await bridge.call(msg('trains', 'getSchedule', { station: 'Central' }), signal)).toEqual({ ok: true, value: 'trips from Central' });
    expect(errorOf(await bridge.call(msg('trains', 'getSchedule', { station: 'C' }), signal))).toMatchObject({
      code: 'INVALID_PARAMS',
      data: { errors: [{ path: '/station', message: 'must NOT have fewer than 2 characters' }] },
    });
  });

  it('compiles the schemas at the first call when there is no validators file (an older build)', async () => {
    await write();
    const [capability] = await loadCapabilities(outDir, ['trains'], handlers);
    expect(capability!.functions.get('getSchedule')!.validator!()).toBeUndefined();
    expect(errorOf(await createBridge({ capabilities: [capability!] }).call(msg('trains', 'getSchedule', {}), signal)).code).toBe('INVALID_PARAMS');
  });

  it('loads the validators file only at the first call, and fails calls INTERNAL, naming the file, when it does not load', async () => {
    await write();
    await writeFile(join(outDir, 'trains', 'validators.cjs'), 'this is not javascript (');
    const [capability] = await loadCapabilities(outDir, ['trains'], handlers);
    const error = errorOf(await createBridge({ capabilities: [capability!] }).call(msg('trains', 'getSchedule', { station: 'Central' }), signal));
    expect(error.code).toBe('INTERNAL');
    expect(error.message).toContain(join('trains', 'validators.cjs'));
  });
});
