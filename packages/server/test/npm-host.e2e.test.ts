// An npm package in `host` mode, end to end: a local package with its own .d.ts that calls an HTTP server on 127.0.0.1
// with a token from the host environment is built (schemas derived from its declarations), typechecked, and called
// from agent code through the bridge, under a policy rule and an approval.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilitySchemaFile } from '@agent-spaces/capabilities';
import { readBuiltJson } from '@agent-spaces/bridge/output';
import { buildCapabilities, configSources, loadConfig, type BuildReport } from '@agent-spaces/compiler';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { buildCatalog } from '../src/catalog.js';
import { formatSearch, searchCatalog } from '../src/search.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const TOKEN = 'weather-token-0123456789';

const PACKAGE = {
  'package.json': JSON.stringify({ name: '@acme/weather', version: '2.1.0', type: 'module', main: 'index.js', types: 'index.d.ts' }),
  'index.js': `const get = async (method, path) => {
  const res = await fetch(process.env.ACME_WEATHER_URL + path, { method, headers: { authorization: 'Bearer ' + process.env.ACME_WEATHER_TOKEN } });
  if (!res.ok) throw new Error('the weather service answered ' + res.status);
  return res.json();
};
export const forecast = (city, options = {}) => get('GET', '/forecast?city=' + encodeURIComponent(city) + '&days=' + (options.days ?? 1));
export const alerts = { clear: (region) => get('DELETE', '/alerts/' + region), list: () => get('GET', '/alerts') };
export const onUpdate = (callback) => callback;
export const VERSION = '2.1.0';
`,
  'index.d.ts': `import type { Forecast } from './types.js';
export type { Forecast };
export interface ForecastOptions { days?: number; units?: 'metric' | 'imperial' }
/** The forecast of a city for the next days. */
export declare function forecast(city: string, options?: ForecastOptions): Promise<Forecast>;
export declare const alerts: {
  /** Clears the alerts of a region. */
  clear(region: string): Promise<{ cleared: number }>;
  list(): Promise<string[]>;
};
export declare function onUpdate(callback: (forecast: Forecast) => void): void;
export declare const VERSION: string;
`,
  'types.d.ts': 'export interface Forecast { city: string; days: number; temperatures: number[] }\n',
};

let project: Project;
let server: Server;
let report: BuildReport;
let space: Space;
const asked: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    if (req.headers.authorization !== `Bearer ${TOKEN}`) return res.writeHead(401).end('{}');
    const url = new URL(req.url!, 'http://x');
    if (url.pathname === '/forecast') {
      const days = Number(url.searchParams.get('days'));
      return res.end(JSON.stringify({ city: url.searchParams.get('city'), days, temperatures: Array.from({ length: days }, (_, i) => 20 + i) }));
    }
    res.end(JSON.stringify(req.method === 'DELETE' ? { cleared: 3 } : ['storm']));
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  process.env.ACME_WEATHER_URL = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  process.env.ACME_WEATHER_TOKEN = TOKEN;
  project = await makeProject();
  for (const [file, text] of Object.entries(PACKAGE)) {
    await mkdir(project.path('node_modules/@acme/weather'), { recursive: true });
    await writeFile(join(project.dir, 'node_modules/@acme/weather', file), text);
  }
  await project.write({ 'agent-spaces.config.json': { capabilities: [{ package: '@acme/weather', mode: 'host' }] } });
  const { config, rootDir } = await loadConfig({ cwd: project.dir });
  report = await buildCapabilities({ rootDir, sources: config.capabilities, outDir: config.outDir, configSources: configSources(config) });
  space = await createSpace({
    rootDir: project.dir,
    isolation: 'in-process',
    policies: {
      rules: { 'acme-weather.alerts.clear': 'ask', 'acme-weather.forecast': [{ when: { city: 'Atlantis' }, then: 'deny' }] },
      secrets: ['ACME_WEATHER_TOKEN'],
    },
    onApproval: (request) => {
      asked.push(`${request.capability}.${request.function} ${JSON.stringify(request.params)}`);
      return (request.params as { region: string }).region !== 'north';
    },
  });
}, 60_000);

afterAll(async () => {
  await space?.close();
  server?.close();
  delete process.env.ACME_WEATHER_URL;
  delete process.env.ACME_WEATHER_TOKEN;
});

describe('an npm package in host mode', () => {
  it('builds each function with a params schema derived from its declarations, leaving out what cannot cross', () => {
    expect(report.capabilities).toMatchObject([{ id: 'acme-weather', status: 'built' }]);
    expect(report.capabilities[0]!.diagnostics.map((d) => [d.severity, d.message])).toEqual([
      ['warning', 'onUpdate: parameter callback takes a function, which cannot cross the bridge; the function is left out'],
    ]);
    const schema = readBuiltJson(project.path('.agent-spaces/capabilities'), 'acme-weather', 'schema.json') as CapabilitySchemaFile;
    expect(Object.keys(schema.functions)).toEqual(['forecast', 'alerts.clear', 'alerts.list']);
    expect(schema.functions.forecast!.parameters).toEqual({
      type: 'object',
      properties: {
        city: { type: 'string' },
        options: { type: 'object', properties: { days: { type: 'number' }, units: { type: 'string', enum: ['metric', 'imperial'] } } },
      },
      required: ['city'],
      additionalProperties: false,
    });
  });

  it('runs the calls on the host with the secret from its environment, with the package own signatures', async () => {
    const result = await space.run(`import { forecast, alerts, type Forecast } from '@capabilities/acme-weather';
const f: Forecast = await forecast('Paris', { days: 2 });
const list: string[] = await alerts.list();
export default { f, list, env: typeof (globalThis as Record<string, unknown>).process };`);
    expect(result).toMatchObject({
      ok: true,
      result: { f: { city: 'Paris', days: 2, temperatures: [20, 21] }, list: ['storm'], env: 'undefined' },
      stats: { capabilityCalls: 2 },
    });
  });

  it('catches a type error on the agent line, and the bridge validates what the types did not stop', async () => {
    const typed = await space.run(`import { forecast } from '@capabilities/acme-weather';\nconst n: number = await forecast('Paris');\nexport default n;`);
    expect(typed).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR', message: expect.stringMatching(/agent\.ts:2/) } });
    const untyped = await space.run(`import { forecast } from '@capabilities/acme-weather';
let code = 'none';
try { await (forecast as any)(42, { days: 'two' }); } catch (e) { code = (e as CapabilityError).code; }
export default code;`);
    expect(untyped).toMatchObject({ ok: true, result: 'INVALID_PARAMS' });
  });

  it('lists its functions for search with their own signatures, each named as the space offers it', async () => {
    const catalog = await buildCatalog(space, { rootDir: project.dir });
    const hits = searchCatalog(catalog, 'clear the alerts of a region');
    expect(hits[0]!.entry).toMatchObject({ module: '@capabilities/acme-weather', path: 'alerts.clear', function: 'alerts.clear' });
    expect(formatSearch('clear the alerts of a region', hits, 'full', 1, catalog)).toMatch(
      /^\/\/ import \{ alerts \} from '@capabilities\/acme-weather'\n\/\*\*\n \* Clears the alerts of a region\.\n \*\/\nalerts\.clear\(region: string\): Promise<\{ cleared: number \}>;\n/,
    );
    const forecast = catalog.entries.find((e) => e.path === 'forecast');
    expect(forecast).toMatchObject({ signature: 'forecast(city: string, options?: ForecastOptions): Promise<Forecast>', summary: 'The forecast of a city for the next days.' });
    expect(forecast!.related).toEqual([
      'export interface ForecastOptions { days?: number; units?: \'metric\' | \'imperial\' }',
      'export interface Forecast { city: string; days: number; temperatures: number[] }',
    ]);
    // What a space hides is hidden from its search too, a member of an exported object included.
    const narrow = await createSpace({ rootDir: project.dir, isolation: 'in-process', hideFunctions: (fn) => fn.function === 'alerts.clear' });
    try {
      expect((await buildCatalog(narrow, { rootDir: project.dir })).entries.filter((e) => e.module === '@capabilities/acme-weather').map((e) => e.path)).toEqual(['forecast', 'alerts.list']);
    } finally {
      await narrow.close();
    }
  });

  it('applies a policy rule and an approval to host functions', async () => {
    const result = await space.run(`import { forecast, alerts } from '@capabilities/acme-weather';
const code = async (f: () => Promise<unknown>) => { try { return await f(); } catch (e) { return (e as CapabilityError).code; } };
export default [await code(() => forecast('Atlantis')), await code(() => alerts.clear('south')), await code(() => alerts.clear('north'))];`);
    expect(result).toMatchObject({ ok: true, result: ['POLICY_DENIED', { cleared: 3 }, 'APPROVAL_DENIED'] });
    expect(asked).toEqual(['acme-weather.alerts.clear {"region":"south"}', 'acme-weather.alerts.clear {"region":"north"}']);
  });
});
