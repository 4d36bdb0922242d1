import { readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityIR, FunctionIR, OpenApiExecutorSpec } from '@agent-spaces/capabilities';
import { emitDeclarations } from '../src/emit/declarations.js';
import { readOpenApiSource, type OpenApiSourceConfig } from '../src/sources/openapi/index.js';
import type { SourceContext } from '../src/sources/types.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const repo = resolve(import.meta.dirname, '../../..');
const examples = join(repo, 'node_modules/@readme/oas-examples');
const githubSpec = join(repo, 'node_modules/@octokit/openapi/generated/api.github.com.json');

let project: Project;
beforeAll(async () => {
  project = await makeProject();
});

function context(extra: Partial<SourceContext> = {}): SourceContext {
  return { rootDir: project.dir, outDir: project.path('out'), relative: (file) => relative(project.dir, file), ...extra };
}

let specs = 0;
/** Writes an inline spec to a file and reads it as the source `name`. */
async function read(document: unknown, source: Partial<OpenApiSourceConfig> = {}) {
  const file = project.path(`spec-${++specs}.json`);
  await writeFile(file, JSON.stringify(document));
  return readOpenApiSource({ name: 'demo', spec: file, ...source }, context());
}

/** The capability of an inline spec, failing the test when it did not build. */
async function capability(document: unknown, source: Partial<OpenApiSourceConfig> = {}): Promise<CapabilityIR> {
  const result = await read(document, source);
  expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
  return result.capabilities[0]!;
}

const fn = (cap: CapabilityIR, name: string): FunctionIR => cap.functions.find((f) => f.name === name)!;
const executor = (cap: CapabilityIR) => cap.executor as OpenApiExecutorSpec;
const oas3 = (paths: Record<string, unknown>, components: Record<string, unknown> = {}) => ({
  openapi: '3.0.3',
  info: { title: 'Demo', version: '1.0.0' },
  servers: [{ url: 'https://api.example.com/v1' }],
  paths,
  components,
});
const ok = { 200: { description: 'OK' } };

/** Every diagnostic of a strict program made of `files` (in memory), as `file: message`. */
function strictErrors(files: Record<string, string>): string[] {
  const options: ts.CompilerOptions = { strict: true, noEmit: true, target: ts.ScriptTarget.ES2022, module: ts.ModuleKind.ESNext, types: [] };
  const host = ts.createCompilerHost(options);
  const readHost = host.readFile.bind(host);
  host.readFile = (file) => files[file] ?? readHost(file);
  host.fileExists = (file) => file in files || ts.sys.fileExists(file);
  host.getSourceFile = (file, language) => {
    const text = host.readFile(file);
    return text === undefined ? undefined : ts.createSourceFile(file, text, language);
  };
  const program = ts.createProgram(Object.keys(files), options, host);
  return ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
}

describe('real specs compile to declarations that pass tsc --strict', () => {
  const petstores = ['2.0/json/petstore.json', '2.0/yaml/petstore.yaml', '3.0/json/petstore.json', '3.0/yaml/petstore.yaml', '3.1/json/petstore.json', '3.1/yaml/petstore.yaml'];

  const declared: Record<string, string> = {};

  it.each(petstores.map((file, i) => [file, i] as const))('%s', async (file, i) => {
    const result = await readOpenApiSource({ name: `petstore v${i}`, spec: join(examples, file) }, context());
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    // The form and upload operations are refused, one warning each; the 18 others build.
    expect(result.diagnostics.filter((d) => d.code === 'UNSUPPORTED_OPERATION').map((d) => d.pointer)).toEqual([
      '/paths/~1pet~1{petId}/post',
      '/paths/~1pet~1{petId}~1uploadImage/post',
    ]);
    const cap = result.capabilities[0]!;
    expect(cap.functions).toHaveLength(18);
    expect(cap.functions.slice(0, 4).map((f) => f.name)).toEqual(['addPet', 'updatePet', 'findPetsByStatus', 'findPetsByTags']);
    expect(executor(cap).baseUrl).toBe('http://petstore.swagger.io/v2');
    const declarations = emitDeclarations(cap);
    expect(declarations.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    declared[`/petstore-v${i}.d.ts`] = declarations.text;
  });

  it('every petstore variant types an agent script under tsc --strict', () => {
    expect(Object.keys(declared)).toHaveLength(petstores.length);
    const agent = (i: number, petId: string) => `import { petstoreV${i} as petstore } from '@capabilities/petstore-v${i}';
const pet = await petstore.getPetById({ petId: ${petId} });
const name: string = pet.name;
await petstore.addPet({ name, photoUrls: [] });
export {};`;
    const agents = Object.fromEntries(petstores.map((_, i) => [`/agent-${i}.ts`, agent(i, '1')]));
    expect(strictErrors({ ...declared, ...agents })).toEqual([]);
    expect(strictErrors({ ...declared, '/agent-0.ts': agent(0, "'one'") })).toEqual([
      "/agent-0.ts: Type 'string' is not assignable to type 'number'.",
    ]);
  });

  it('a slice of GitHub REST (issues and pulls, circular schemas included)', async () => {
    const github = JSON.parse(await readFile(githubSpec, 'utf8')) as { paths: Record<string, unknown> };
    const paths = Object.fromEntries(Object.entries(github.paths).filter(([path]) => /^\/repos\/\{owner\}\/\{repo\}\/(issues|pulls)(\/\{[a-z_]+\})?$/.test(path)));
    const file = project.path('github-slice.json');
    await writeFile(file, JSON.stringify({ ...github, paths }));
    const result = await readOpenApiSource({ name: 'github', spec: file }, context());
    expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const cap = result.capabilities[0]!;
    expect(cap.functions.map((f) => f.name)).toEqual(expect.arrayContaining(['issuesListForRepo', 'issuesCreate', 'issuesGet', 'pullsList', 'pullsGet']));
    expect(executor(cap).baseUrl).toBe('https://api.github.com');
    const declarations = emitDeclarations(cap);
    expect(declarations.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
    const agent = `import { github } from '@capabilities/github';
const issues = await github.issuesListForRepo({ owner: 'octocat', repo: 'hello', state: 'open', per_page: 5 });
const titles: string[] = issues.map((issue) => issue.title);
await github.issuesCreate({ owner: 'octocat', repo: 'hello', title: titles.join(', ') });
export {};`;
    expect(strictErrors({ '/github.d.ts': declarations.text, '/agent.ts': agent })).toEqual([]);
  });
});

describe('naming', () => {
  it('camelCases operationIds, names the rest from method and path, and suffixes collisions in spec order', async () => {
    const result = await read(
      oas3({
        '/users/{id}': { get: { responses: ok }, delete: { operationId: 'delete', responses: ok } },
        '/': { get: { responses: ok } },
        '/pets': { get: { operationId: 'list_pets', responses: ok }, post: { operationId: 'repos/list-pets', responses: ok } },
        '/pets/all': { get: { operationId: 'listPets', responses: ok }, put: { operationId: 'list-pets', responses: ok } },
      }),
    );
    expect(result.capabilities[0]!.functions.map((f) => [f.name, f.sourceName])).toEqual([
      ['getUsersById', 'GET /users/{id}'],
      ['delete_', 'delete'],
      ['getRoot', 'GET /'],
      ['listPets', 'list_pets'],
      ['reposListPets', 'repos/list-pets'],
      ['listPets2', 'listPets'],
      ['listPets3', 'list-pets'],
    ]);
    expect(result.diagnostics.filter((d) => d.code === 'NAME_COLLISION').map((d) => d.pointer)).toEqual([
      '/paths/~1pets~1all/get',
      '/paths/~1pets~1all/put',
    ]);
    expect(Object.keys(executor(result.capabilities[0]!).operations)).toContain('listPets3');
  });

  it('derives the capability id and export name from the source name, and reads info', async () => {
    const cap = await capability(oas3({ '/a': { get: { summary: 'Read A', description: 'All of it.', responses: ok } } }), { name: 'todo api' });
    expect([cap.id, cap.exportName, cap.version, cap.description, cap.source.kind]).toEqual(['todo-api', 'todoApi', '1.0.0', 'Demo', 'openapi']);
    expect(cap.functions[0]!.description).toBe('Read A\n\nAll of it.');
  });
});

describe('params', () => {
  it('merges path, query, header and cookie parameters into one object, renaming a clash by location', async () => {
    const cap = await capability(
      oas3({
        '/items/{id}': {
          parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
          get: {
            operationId: 'getItem',
            parameters: [
              { name: 'fields', in: 'query', schema: { type: 'array', items: { type: 'string' } }, explode: false },
              { name: 'X-Request-Id', in: 'header', required: true, schema: { type: 'string' }, description: 'Trace id' },
              { name: 'id', in: 'header', schema: { type: 'string' } },
              { name: 'session', in: 'cookie', schema: { type: 'string' } },
            ],
            responses: ok,
          },
        },
      }),
    );
    const getItem = fn(cap, 'getItem');
    expect(Object.keys(getItem.parameters.properties!)).toEqual(['id', 'fields', 'X-Request-Id', 'headerId', 'session']);
    expect(getItem.parameters.required).toEqual(['id', 'X-Request-Id']);
    expect(getItem.parameters.properties!['X-Request-Id']).toEqual({ type: 'string', description: 'Trace id' });
    expect(executor(cap).operations.getItem).toEqual({
      method: 'GET',
      path: '/items/{id}',
      params: [
        { key: 'id', name: 'id', in: 'path' },
        { key: 'fields', name: 'fields', in: 'query', explode: false },
        { key: 'X-Request-Id', name: 'X-Request-Id', in: 'header' },
        { key: 'headerId', name: 'id', in: 'header' },
        { key: 'session', name: 'session', in: 'cookie' },
      ],
    });
  });

  it('flattens an unambiguous object body, required or not (read-only fields optional), and keeps a `body` field otherwise', async () => {
    const todo = { type: 'object', properties: { title: { type: 'string' }, done: { type: 'boolean' } }, required: ['title'] };
    const json = (schema: unknown, required = true) => ({ required, content: { 'application/json': { schema } } });
    const cap = await capability(
      oas3(
        {
          '/todos': { post: { operationId: 'flat', requestBody: json({ $ref: '#/components/schemas/NewTodo' }), responses: ok } },
          '/todos/{title}': {
            put: { operationId: 'clash', parameters: [{ name: 'title', in: 'path', required: true, schema: { type: 'string' } }], requestBody: json(todo), responses: ok },
          },
          '/bulk': { post: { operationId: 'array', requestBody: json({ type: 'array', items: todo }), responses: ok } },
          '/optional': { patch: { operationId: 'optional', requestBody: json(todo, false), responses: ok } },
          '/mixed': { post: { operationId: 'mixed', requestBody: json({ oneOf: [todo, { type: 'string' }] }), responses: ok } },
        },
        { schemas: { NewTodo: { ...todo, properties: { id: { type: 'integer', readOnly: true }, ...todo.properties }, required: ['id', 'title'] } } },
      ),
    );
    // The read-only id is not required of the caller.
    expect(fn(cap, 'flat').parameters).toEqual({ type: 'object', properties: { id: { type: 'integer', readOnly: true }, ...todo.properties }, required: ['title'] });
    expect(executor(cap).operations.flat!.body).toEqual({ mode: 'flat', required: true });
    expect(Object.keys(fn(cap, 'clash').parameters.properties!)).toEqual(['title', 'body']);
    expect(fn(cap, 'clash').parameters.required).toEqual(['title', 'body']);
    expect(executor(cap).operations.clash!.body).toEqual({ mode: 'field', key: 'body', required: true });
    expect(fn(cap, 'array').parameters.properties!.body).toMatchObject({ type: 'array' });
    // An optional body with required fields is flattened too: its required fields are required of every call.
    expect(fn(cap, 'optional').parameters).toEqual({ type: 'object', properties: todo.properties, required: ['title'] });
    expect(executor(cap).operations.optional!.body).toEqual({ mode: 'flat', required: false });
    expect(fn(cap, 'mixed').parameters.properties!.body).toHaveProperty('oneOf');
  });

  it('reads Swagger 2.0 body, query and collectionFormat parameters', async () => {
    const cap = await capability({
      swagger: '2.0',
      info: { title: 'Old', version: '2' },
      host: 'old.example.com',
      basePath: '/api',
      schemes: ['http', 'https'],
      paths: {
        '/things': {
          post: {
            operationId: 'createThing',
            parameters: [
              { name: 'tags', in: 'query', type: 'array', items: { type: 'string' }, collectionFormat: 'pipes' },
              { name: 'thing', in: 'body', required: true, schema: { $ref: '#/definitions/Thing' } },
            ],
            responses: { 201: { description: 'Created', schema: { $ref: '#/definitions/Thing' } } },
          },
        },
      },
      definitions: { Thing: { type: 'object', properties: { name: { type: 'string', 'x-nullable': true } }, required: ['name'] } },
    });
    const create = fn(cap, 'createThing');
    expect(create.parameters.properties).toEqual({ tags: { type: 'array', items: { type: 'string' } }, name: { type: ['string', 'null'] } });
    expect(create.returns).toEqual({ $ref: '#/$defs/Thing', $defs: { Thing: { type: 'object', properties: { name: { type: ['string', 'null'] } }, required: ['name'] } } });
    expect(executor(cap)).toMatchObject({ baseUrl: 'https://old.example.com/api', operations: { createThing: { params: [{ key: 'tags', style: 'pipeDelimited', explode: false }] } } });
  });
});

describe('results, compositions and circular references', () => {
  it('takes the first of 200, 201, 2xx, default as the result', async () => {
    const body = (schema: unknown) => ({ description: 'x', content: { 'application/json': { schema } } });
    const cap = await capability(
      oas3({
        '/a': { get: { operationId: 'a', responses: { 404: body({ type: 'null' }), 201: body({ type: 'string' }), 202: body({ type: 'number' }) } } },
        '/b': { get: { operationId: 'b', responses: { default: body({ type: 'boolean' }) } } },
        '/c': { get: { operationId: 'c', responses: { 204: { description: 'No content' } } } },
        '/d': { get: { operationId: 'd', responses: { 200: { description: 'x', content: { 'text/plain': {} } } } } },
      }),
    );
    expect(cap.functions.map((f) => f.returns)).toEqual([{ type: 'string' }, { type: 'boolean' }, undefined, { type: 'string' }]);
  });

  it('keeps circular component schemas as named $defs', async () => {
    const result = await readOpenApiSource({ name: 'circular', spec: join(examples, '3.0/json/circular.json') }, context());
    const returns = result.capabilities[0]!.functions[0]!.returns;
    // 404 is no success: the only 2xx (200) has no content.
    expect(returns).toBeUndefined();
    const cap = await capability(
      oas3(
        { '/nodes': { get: { operationId: 'tree', responses: { 200: { description: 'x', content: { 'application/json': { schema: { $ref: '#/components/schemas/Node' } } } } } } } },
        { schemas: { Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/components/schemas/Node' } } } } } },
      ),
    );
    expect(fn(cap, 'tree').returns).toEqual({
      $ref: '#/$defs/Node',
      $defs: { Node: { type: 'object', properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } } } },
    });
    const declarations = emitDeclarations(cap);
    expect(declarations.text).toMatch(/children\?: Node\[\]/);
    expect(strictErrors({ '/demo.d.ts': declarations.text })).toEqual([]);
  });

  it('keeps allOf, oneOf and discriminator; nullable becomes a null type', async () => {
    const cap = await capability(
      oas3(
        { '/pets': { get: { operationId: 'pet', responses: { 200: { description: 'x', content: { 'application/json': { schema: { $ref: '#/components/schemas/AnyPet' } } } } } } } },
        {
          schemas: {
            AnyPet: { oneOf: [{ $ref: '#/components/schemas/Cat' }, { $ref: '#/components/schemas/Dog' }], discriminator: { propertyName: 'kind', mapping: { cat: '#/components/schemas/Cat' } } },
            Base: { type: 'object', properties: { kind: { type: 'string' } }, required: ['kind'] },
            Cat: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { lives: { type: 'integer', nullable: true } } }] },
            Dog: { allOf: [{ $ref: '#/components/schemas/Base' }, { type: 'object', properties: { bark: { type: 'boolean' } } }] },
          },
        },
      ),
    );
    const defs = (fn(cap, 'pet').returns as { $defs: Record<string, unknown> }).$defs;
    expect(Object.keys(defs)).toEqual(['AnyPet', 'Base', 'Cat', 'Dog']);
    expect(defs.AnyPet).toEqual({ oneOf: [{ $ref: '#/$defs/Cat' }, { $ref: '#/$defs/Dog' }], discriminator: { propertyName: 'kind', mapping: { cat: '#/$defs/Cat' } } });
    expect(defs.Cat).toMatchObject({ allOf: [{}, { properties: { lives: { type: ['integer', 'null'] } } }] });
    expect(strictErrors({ '/demo.d.ts': emitDeclarations(cap).text })).toEqual([]);
  });
});

describe('refused operations', () => {
  it('skips multipart, octet-stream and formData operations with a warning each; the rest builds', async () => {
    const result = await read(
      oas3({
        '/upload': {
          post: { operationId: 'upload', requestBody: { content: { 'multipart/form-data': { schema: { type: 'object' } } } }, responses: ok },
          put: { operationId: 'raw', requestBody: { content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } }, responses: ok },
        },
        '/either': { post: { operationId: 'either', requestBody: { content: { 'multipart/form-data': {}, 'application/json': { schema: { type: 'object', properties: { a: { type: 'string' } } } } } }, responses: ok } },
        '/list': { get: { operationId: 'list', responses: ok } },
      }),
    );
    expect(result.capabilities[0]!.functions.map((f) => f.name)).toEqual(['either', 'list']);
    expect(result.diagnostics.map((d) => [d.code, d.severity, d.pointer])).toEqual([
      ['UNSUPPORTED_OPERATION', 'warning', '/paths/~1upload/post'],
      ['UNSUPPORTED_OPERATION', 'warning', '/paths/~1upload/put'],
    ]);
    const swagger = await read({
      swagger: '2.0',
      info: { title: 'x', version: '1' },
      host: 'h.example.com',
      paths: { '/f': { post: { operationId: 'form', consumes: ['multipart/form-data'], parameters: [{ name: 'file', in: 'formData', type: 'file' }], responses: ok } } },
    });
    expect(swagger.diagnostics.map((d) => d.code)).toEqual(['UNSUPPORTED_OPERATION']);
    expect(swagger.capabilities[0]!.functions).toEqual([]);
  });
});

describe('approval', () => {
  const paths = { '/t': { get: { operationId: 'list', responses: ok }, post: { operationId: 'create', responses: ok }, delete: { operationId: 'remove', responses: ok } } };
  const approvals = (cap: CapabilityIR) => cap.functions.map((f) => f.requiresApproval);

  it('gates every non-GET operation by default', async () => {
    expect(approvals(await capability(oas3(paths)))).toEqual([false, true, true]);
  });

  it('follows a boolean or a per-operation map (by name, operationId or METHOD /path)', async () => {
    expect(approvals(await capability(oas3(paths), { requiresApproval: false }))).toEqual([false, false, false]);
    expect(approvals(await capability(oas3(paths), { requiresApproval: { list: true, 'DELETE /t': false } }))).toEqual([true, true, false]);
  });
});

describe('bad sources are diagnostics, never throws', () => {
  it('reports config problems, missing files, non-specs and a missing base URL with stable codes', async () => {
    const codes = async (source: Partial<OpenApiSourceConfig>) => (await readOpenApiSource({ name: 'x', ...source } as OpenApiSourceConfig, context())).diagnostics.map((d) => d.code);
    expect(await codes({})).toEqual(['CONFIG_INVALID']);
    expect(await codes({ url: 'ftp://x' })).toEqual(['CONFIG_INVALID']);
    expect(await codes({ spec: 'missing.json' })).toEqual(['SOURCE_NOT_FOUND']);
    await project.write({ 'not-a-spec.json': '{"hello": "world"}' });
    expect(await codes({ spec: 'not-a-spec.json' })).toEqual(['INVALID_DEFINITION']);
    await project.write({ 'broken.yaml': 'openapi: [unclosed' });
    expect(await codes({ spec: 'broken.yaml' })).toEqual(['INVALID_JSON']);
    await project.write({ 'no-servers.json': { ...oas3({}), servers: undefined } });
    expect(await codes({ spec: 'no-servers.json' })).toEqual(['INVALID_DEFINITION']);
    expect(await codes({ spec: 'no-servers.json', baseUrl: 'http://127.0.0.1:9' })).toEqual([]);
  });
});
