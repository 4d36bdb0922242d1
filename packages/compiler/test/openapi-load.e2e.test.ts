import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OpenApiExecutorSpec } from '@agent-spaces/capabilities';
import { readActionServers, readOpenApiSource, readOpenApiSourceFile } from '../src/sources/openapi/index.js';
import type { SourceContext } from '../src/sources/types.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const examples = join(resolve(import.meta.dirname, '../../..'), 'node_modules/@readme/oas-examples');

let project: Project;
beforeAll(async () => {
  project = await makeProject();
});

function context(extra: Partial<SourceContext> = {}): SourceContext {
  return { rootDir: project.dir, outDir: project.path('out'), relative: (file) => relative(project.dir, file), ...extra };
}

const ok = { 200: { description: 'OK' } };
const oas3 = (paths: Record<string, unknown>) => ({ openapi: '3.0.3', info: { title: 'Demo', version: '1.0.0' }, servers: [{ url: 'https://api.example.com/v1' }], paths });
const baseUrlOf = (result: { capabilities: Array<{ executor: unknown }> }) => (result.capabilities[0]!.executor as OpenApiExecutorSpec).baseUrl;

describe('discovery and the spec cache against a real server', () => {
  let server: Server;
  let url: string;
  const hits: string[] = [];
  const routes: Record<string, { type: string; body: string }> = {};
  const spec = JSON.stringify(oas3({ '/ping': { get: { operationId: 'ping', responses: ok } } }));

  beforeAll(async () => {
    server = createServer((request, response) => {
      hits.push(request.url ?? '');
      const route = routes[request.url ?? ''];
      response.writeHead(route ? 200 : 404, { 'content-type': route?.type ?? 'text/plain' });
      response.end(route?.body ?? 'not found');
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((done) => server.close(done)));

  it('tries /openapi.json, /, /api/openapi.json, /docs/openapi.json in order and reports which answered', async () => {
    routes['/'] = { type: 'text/html', body: '<html>home</html>' };
    routes['/api/openapi.json'] = { type: 'application/json', body: spec };
    hits.length = 0;
    const result = await readOpenApiSource({ name: 'pinger', url }, context({ outDir: project.path('discover-out') }));
    expect(hits).toEqual(['/openapi.json', '/', '/api/openapi.json']);
    expect(result.spec).toEqual({
      location: `${url}/api/openapi.json`,
      cache: 'miss',
      tried: [
        { url: `${url}/openapi.json`, outcome: '404' },
        { url: `${url}/`, outcome: 'not an OpenAPI document' },
        { url: `${url}/api/openapi.json`, outcome: '200' },
      ],
    });
    expect(result.capabilities[0]!.source.file).toBe(`${url}/api/openapi.json`);
    // The spec's own server wins over the discovery URL as base.
    expect(baseUrlOf(result)).toBe('https://api.example.com/v1');
  });

  it('fails with SOURCE_NOT_FOUND listing every attempt when no path answers', async () => {
    const result = await readOpenApiSource({ name: 'x', url: `${url}/nothing` }, context({ outDir: project.path('none-out') }));
    expect(result.diagnostics.map((d) => d.code)).toEqual(['SOURCE_NOT_FOUND']);
    expect(result.diagnostics[0]!.message).toContain('/nothing/docs/openapi.json: 404');
  });

  it('builds one capability per discoverable server of an action_servers.json', async () => {
    routes['/openapi.json'] = { type: 'application/json', body: spec };
    const file = project.path('action_servers.json');
    await writeFile(file, JSON.stringify({ servers: { shop: { name: 'shop', url, description: 'Shop', auto_discover: true }, old: { name: 'old', url, auto_discover: false } } }));
    const result = await readOpenApiSourceFile(file, context({ outDir: project.path('servers-out') }));
    delete routes['/openapi.json'];
    expect(result.capabilities.map((c) => [c.id, c.description, c.source.file, c.functions.map((f) => f.name)])).toEqual([['shop', 'Shop', 'action_servers.json', ['ping']]]);
    expect(result.diagnostics.map((d) => [d.severity, d.pointer])).toEqual([['warning', '/servers/old']]);
  });

  it('serves a fresh spec from the cache, refetches with refresh or when stale, falls back to a stale copy offline', async () => {
    routes['/spec.yaml'] = { type: 'application/yaml', body: `openapi: 3.0.3\ninfo: { title: Y, version: '1' }\npaths:\n  /ping:\n    get: { operationId: ping, responses: { '200': { description: OK } } }\n` };
    const outDir = project.path('cache-out');
    const source = { name: 'cached', spec: `${url}/spec.yaml` };
    const fetches = () => hits.filter((h) => h === '/spec.yaml').length;

    const first = await readOpenApiSource(source, context({ outDir }));
    expect([first.spec?.cache, fetches()]).toEqual(['miss', 1]);
    expect(baseUrlOf(first)).toBe(url);
    const second = await readOpenApiSource(source, context({ outDir }));
    expect([second.spec?.cache, fetches()]).toEqual(['fresh', 1]);
    expect(second.capabilities[0]!.functions.map((f) => f.name)).toEqual(['ping']);
    const refreshed = await readOpenApiSource(source, context({ outDir, refresh: true }));
    expect([refreshed.spec?.cache, fetches()]).toEqual(['miss', 2]);
    const expired = await readOpenApiSource({ ...source, cacheTtl: 0 }, context({ outDir }));
    expect([expired.spec?.cache, fetches()]).toEqual(['miss', 3]);

    delete routes['/spec.yaml'];
    const offline = await readOpenApiSource({ ...source, cacheTtl: 0 }, context({ outDir }));
    expect(offline.spec?.cache).toBe('stale');
    expect(offline.diagnostics.map((d) => [d.code, d.severity])).toEqual([['SOURCE_UNREADABLE', 'warning']]);
    expect(offline.capabilities).toHaveLength(1);
    const refreshOffline = await readOpenApiSource(source, context({ outDir, refresh: true }));
    expect(refreshOffline.diagnostics.map((d) => d.code)).toEqual(['SOURCE_UNREADABLE']);
  });
});

describe('source files', () => {
  it("reads seed 003's action_servers.json as is", async () => {
    const file = project.path('action_servers.json');
    await writeFile(
      file,
      JSON.stringify({
        servers: {
          email_mcp: { name: 'email_mcp', url: 'http://localhost:8001', description: 'Email', auto_discover: true },
          off: { name: 'off', url: 'http://localhost:8002', auto_discover: false },
          broken: { name: 'broken' },
        },
      }),
    );
    const { sources, diagnostics } = await readActionServers(file, 'action_servers.json');
    expect(sources).toEqual([{ name: 'email_mcp', url: 'http://localhost:8001', description: 'Email' }]);
    expect(diagnostics.map((d) => [d.severity, d.pointer])).toEqual([
      ['warning', '/servers/off'],
      ['error', '/servers/broken'],
    ]);
  });

  it('builds a capability from <name>.openapi.json, its spec path relative to the file', async () => {
    await mkdir(project.path('capabilities'), { recursive: true });
    await project.write({ 'capabilities/pets.openapi.json': { spec: '../specs/petstore.yaml', requiresApproval: false } });
    await mkdir(project.path('specs'), { recursive: true });
    await project.write({ 'specs/petstore.yaml': await readFile(join(examples, '3.0/yaml/petstore.yaml'), 'utf8') });
    const pets = await readOpenApiSourceFile(project.path('capabilities/pets.openapi.json'), context());
    expect(pets.capabilities.map((c) => [c.id, c.source.file, c.functions.length, c.functions.some((f) => f.requiresApproval)])).toEqual([
      ['pets', 'capabilities/pets.openapi.json', 18, false],
    ]);
    expect(pets.inputs).toEqual([project.path('capabilities/pets.openapi.json'), project.path('specs/petstore.yaml')]);
  });
});
