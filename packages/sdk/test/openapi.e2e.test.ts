import { mkdir, readFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityMeta, OpenApiExecutorSpec } from '@agent-spaces/capabilities';
import { createOpenApiExecutor } from '@agent-spaces/bridge';
import { buildCapabilities, readOpenApiSource } from '@agent-spaces/compiler';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { startTodoServer, type TodoServer } from '../../../test/fixtures/todo-server.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const TOKEN = 'todo-e2e-token-0042';
let server: TodoServer;
let project: Project;
let outDir: string;

beforeAll(async () => {
  server = await startTodoServer(TOKEN);
  project = await makeProject();
  outDir = project.path('.agent-spaces');
  await mkdir(project.path('capabilities'));
  // The same server twice: once with the right token, once with a wrong one (for the 401).
  await project.write({
    'capabilities/todos.openapi.json': { url: server.url, auth: { type: 'bearer', token: '${TODO_TOKEN}' } },
    'capabilities/intruder.openapi.json': { url: server.url, auth: { type: 'bearer', token: '${WRONG_TOKEN}' } },
  });
  process.env.TODO_TOKEN = TOKEN;
  process.env.WRONG_TOKEN = 'not-the-token';
});

afterAll(async () => {
  await server.close();
});

describe('a Fastify server with @fastify/swagger becomes a capability', () => {
  it('is discovered at /openapi.json, the first path tried', async () => {
    const context = { rootDir: project.dir, outDir: project.path('discovery'), relative: (file: string) => relative(project.dir, file) };
    const result = await readOpenApiSource({ name: 'todos', url: server.url }, context);
    expect(result.spec?.location).toBe(`${server.url}/openapi.json`);
    expect(result.spec?.tried).toEqual([{ url: `${server.url}/openapi.json`, outcome: '200' }]);
    expect(result.capabilities[0]!.functions.map((f) => [f.name, f.requiresApproval])).toEqual([
      ['listTodos', false],
      ['createTodo', true],
      ['getTodo', false],
      ['getFlaky', false],
    ]);
  });

  it('builds typed declarations and a meta.json that keeps secrets as placeholders', async () => {
    const report = await buildCapabilities({ rootDir: project.dir, sources: ['capabilities/*'], outDir });
    expect(report.capabilities.map((c) => [c.id, c.status, c.diagnostics])).toEqual([
      ['intruder', 'built', []],
      ['todos', 'built', []],
    ]);
    const dir = join(outDir, 'capabilities/todos');
    const dts = await readFile(join(dir, 'index.d.ts'), 'utf8');
    expect(dts).toContain('listTodos(params?: ListTodosParams): Promise<Todo[]>;');
    expect(dts).toContain('createTodo(params: CreateTodoParams): Promise<Todo>;');
    const meta = JSON.parse(await readFile(join(dir, 'meta.json'), 'utf8')) as CapabilityMeta;
    expect(meta.executor).toMatchObject({ kind: 'openapi', baseUrl: server.url, auth: { type: 'bearer', token: '${TODO_TOKEN}' } });
    for (const file of ['index.d.ts', 'index.js', 'schema.json', 'meta.json']) {
      expect(await readFile(join(dir, file), 'utf8')).not.toContain(TOKEN);
    }
  });

  it('runs every operation through the executor: reads, creates, a 503 retried, a 404 as HttpError', async () => {
    const meta = JSON.parse(await readFile(join(outDir, 'capabilities/todos/meta.json'), 'utf8')) as CapabilityMeta;
    const execute = createOpenApiExecutor(meta.executor as OpenApiExecutorSpec, { TODO_TOKEN: TOKEN });
    const signal = new AbortController().signal;
    expect(await execute('listTodos', { done: true }, { signal })).toEqual([{ id: 2, title: 'Water plants', done: true }]);
    expect(await execute('getTodo', { id: 1 }, { signal })).toEqual({ id: 1, title: 'Buy milk', done: false });
    expect(await execute('createTodo', { title: 'Executor todo' }, { signal })).toEqual({ id: 3, title: 'Executor todo', done: false });
    const before = server.hits.get('GET /flaky') ?? 0;
    expect(await execute('getFlaky', {}, { signal })).toEqual({ attempts: before + 2 });
    await expect(execute('getTodo', { id: 99 }, { signal })).rejects.toMatchObject({
      code: 'HANDLER_ERROR',
      data: { kind: 'http', status: 404, method: 'GET', path: '/todos/{id}' },
    });
  });
});

describe('an agent script composes the operations through createSpace', () => {
  let space: Space | undefined;
  let approve = false;
  const asked: string[] = [];

  beforeAll(async () => {
    space = await createSpace({
      rootDir: project.dir,
      outDir,
      onApproval: (request) => {
        asked.push(`${request.capability}.${request.function}`);
        return approve;
      },
    });
  });
  afterAll(() => space?.close());

  const script = `
import { todos } from '@capabilities/todos';
import { intruder } from '@capabilities/intruder';

const open = await todos.listTodos({ done: false });
const first = await todos.getTodo({ id: open[0]!.id });
const flaky = await todos.getFlaky();
const failure = async (call: () => Promise<unknown>) => {
  try {
    await call();
    return 'no error';
  } catch (e) {
    return e instanceof CapabilityError ? \`\${e.code} \${String(e.data?.status ?? '')}\`.trim() : 'not a CapabilityError';
  }
};
const denied = await failure(() => todos.createTodo({ title: 'Call the plumber' }));
const unauthorized = await failure(() => intruder.listTodos());
export default { open: open.map((t) => t.title), first: first.title, retried: flaky.attempts % 2 === 0, denied, unauthorized };
`;

  it('reads, retries a 503, gets a 401 with a wrong token, and is denied a POST', async () => {
    const run = await space!.run(script);
    expect(run.ok ? run.result : run.error).toEqual({
      open: ['Buy milk', 'Executor todo'],
      first: 'Buy milk',
      retried: true,
      denied: 'APPROVAL_DENIED',
      unauthorized: 'HANDLER_ERROR 401',
    });
    expect(asked).toEqual(['todos.createTodo']);
  });

  it('creates a todo once the POST is approved', async () => {
    approve = true;
    const run = await space!.run(`
import { todos } from '@capabilities/todos';
const created = await todos.createTodo({ title: 'Call the plumber' });
const all = await todos.listTodos();
export default { created: created.title, count: all.length };
`);
    expect(run.ok ? run.result : run.error).toEqual({ created: 'Call the plumber', count: 4 });
  });
});
