// Seed 003's `action_servers.json` with its optional bearer token: a `${VAR}` token is sent with every call (the todo
// server answers 401 without it), a misspelt key is warned about, and a malformed `auth` names the server.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities, type BuildReport } from '@agent-spaces/compiler';
import { createSpace } from '@agent-spaces/sdk';
import { startTodoServer, type TodoServer } from '../../../test/fixtures/todo-server.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const TOKEN = 'action-server-token-42';
let project: Project;
let server: TodoServer;

/** Writes `action_servers.json` with `servers` and builds it into a fresh output folder. */
async function build(servers: Record<string, unknown>, out: string): Promise<BuildReport> {
  await project.write({ 'action_servers.json': { servers } });
  return buildCapabilities({ rootDir: project.dir, sources: ['action_servers.json'], outDir: out });
}

const LIST = `import { todos } from '@capabilities/todos';
let out: unknown;
try { out = (await todos.listTodos()).length; } catch (e) { out = \`\${(e as CapabilityError).code}: \${(e as CapabilityError).message}\`; }
export default out;`;

beforeAll(async () => {
  server = await startTodoServer(TOKEN);
  project = await makeProject();
  process.env.TODO_ACTION_TOKEN = TOKEN;
});

afterAll(async () => {
  delete process.env.TODO_ACTION_TOKEN;
  await server?.close();
});

describe('action_servers.json auth', () => {
  it('sends the bearer token from the host environment with every call, and warns about unknown keys', async () => {
    const report = await build({ todos: { name: 'todos', url: server.url, auto_discover: true, auth: '${TODO_ACTION_TOKEN}', timeout: 5 } }, 'out-a');
    expect(report.capabilities).toMatchObject([{ id: 'todos', status: 'built' }]);
    expect(report.capabilities[0]!.diagnostics).toMatchObject([
      { severity: 'warning', pointer: '/servers/todos/timeout', message: expect.stringContaining('unknown key "timeout", which is ignored') },
    ]);
    const space = await createSpace({ rootDir: project.dir, outDir: 'out-a', isolation: 'in-process' });
    try {
      expect(await space.run(LIST)).toMatchObject({ ok: true, result: 2 });
      process.env.TODO_ACTION_TOKEN = 'not-the-token';
      expect(await space.run(LIST)).toMatchObject({ ok: true, result: expect.stringMatching(/^HANDLER_ERROR: .*401/) });
      delete process.env.TODO_ACTION_TOKEN;
      expect(await space.run(LIST)).toMatchObject({ ok: true, result: expect.stringMatching(/^HANDLER_ERROR: .*TODO_ACTION_TOKEN/) });
    } finally {
      process.env.TODO_ACTION_TOKEN = TOKEN;
      await space.close();
    }
  });

  it('takes "Bearer ${VAR}" and the openapi auth object too', async () => {
    for (const auth of ['Bearer ${TODO_ACTION_TOKEN}', { type: 'bearer', token: '${TODO_ACTION_TOKEN}' }]) {
      expect((await build({ todos: { url: server.url, auth } }, 'out-b')).capabilities).toMatchObject([{ status: 'built', diagnostics: [] }]);
      const space = await createSpace({ rootDir: project.dir, outDir: 'out-b', isolation: 'in-process' });
      try {
        expect(await space.run(LIST)).toMatchObject({ ok: true, result: 2 });
      } finally {
        await space.close();
      }
    }
  });

  it('refuses a malformed auth with INVALID_DEFINITION naming the server and field', async () => {
    for (const [auth, field] of [
      [{ type: 'token', token: 'x' }, 'auth.type'],
      [{ type: 'bearer' }, 'auth.token'],
      [42, 'auth'],
    ] as const) {
      const report = await build({ todos: { url: server.url, auth } }, 'out-c');
      expect(report.capabilities[0]).toMatchObject({
        status: 'failed',
        diagnostics: [{ code: 'INVALID_DEFINITION', pointer: '/servers/todos/auth', message: expect.stringContaining(`server "todos": ${field} must`) }],
      });
    }
  });
});
