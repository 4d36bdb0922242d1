// What a principal owns on `mcp serve` (issue 29, item 2): skills of a user are its own, private unless shared with the
// space or a group; another principal can neither list, find, describe, call, read, replace nor delete them, and its
// REPL session and task ids are useless to another principal. Two users are made as the HTTP front door makes them
// (the principal in `authInfo.extra`), over the real code-mode host and official SDK clients.
import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Principal } from '@agent-spaces/capabilities';
import { PRINCIPAL_KEY } from '../src/connection.js';
import { createCodeModeHost, type CodeModeHost } from '../src/server.js';
import { callTool, newClient } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const user = (name: string, groups: string[]): Principal => ({ id: `user:${name}`, subject: name, scopes: [], groups });
const ALICE = user('alice', ['eng']);
const BOB = user('bob', ['ops']);
const CAROL = user('carol', ['sales']);

/** A skill `name` answering `value`. */
const answer = (name: string, value: string) => `/** Answers ${value}. */\nexport async function ${name}(): Promise<string> {\n  return '${value}';\n}\n`;
const call = (name: string) => ({ code: `import { skills } from '@capabilities/skills';\nreturn skills.${name}();` });
/** Agent code that reads all it can of the skills module: its members and their code. */
const READ_ALL = { code: "import { skills } from '@capabilities/skills';\nreturn Object.entries(skills).map(([k, f]) => k + ':' + String(f)).join('\\n');" };

let project: TestProject;
let host: CodeModeHost;
const clients: Client[] = [];

/** A client of the host acting for `principal` (every message carries it, as the front door's `authInfo` would); none: `local`. */
async function connectAs(principal?: Principal): Promise<Client> {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  if (principal) {
    const authInfo = { token: `token-of-${principal.id}`, clientId: 'test', scopes: [], extra: { [PRINCIPAL_KEY]: principal } };
    const send = clientSide.send.bind(clientSide);
    clientSide.send = (message, options) => send(message, { ...options, authInfo });
  }
  const client = newClient();
  await host.createServer().connect(serverSide);
  await client.connect(clientSide);
  clients.push(client);
  return client;
}

const names = async (client: Client) => ((await callTool(client, 'list_skills')).body.skills as Array<{ name: string }>).map((s) => s.name);

beforeAll(async () => {
  project = await createProject({ 'agent-spaces.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'] }) });
  host = createCodeModeHost({ spaces: [{ id: 'travel', name: 'Travel' }], space: { rootDir: project.rootDir, handlers: project.handlers, isolation: 'in-process' } });
}, 120_000);

afterAll(async () => {
  for (const client of clients) await client.close().catch(() => undefined);
  await host?.close();
  await project?.cleanup();
}, 120_000);

describe("a user's skill is private unless shared", () => {
  let alice: Client;
  let bob: Client;
  let carol: Client;

  beforeAll(async () => {
    [alice, bob, carol] = [await connectAs(ALICE), await connectAs(BOB), await connectAs(CAROL)];
    expect((await callTool(alice, 'save_skill', { name: 'secretSauce', code: answer('secretSauce', 'alice-secret') })).isError).toBe(false);
  }, 120_000);

  it('is listed, called and yours for its owner', async () => {
    expect((await callTool(alice, 'list_skills')).body.skills).toContainEqual(expect.objectContaining({ name: 'secretSauce', owner: 'client', shared: 'private', yours: true }));
    expect((await callTool(alice, 'execute', call('secretSauce'))).body.result).toBe('alice-secret');
  });

  it('is neither listed, found, described, called nor read by another user', async () => {
    expect(await names(bob)).not.toContain('secretSauce');
    const found = await callTool(bob, 'search_capabilities', { query: 'secretSauce answers alice-secret', detail: 'full' });
    expect(found.text).not.toContain('secretSauce');
    for (const args of [{ capability: 'skills' }, {}]) expect((await callTool(bob, 'describe_capabilities', args)).text).not.toContain('secretSauce');
    const called = await callTool(bob, 'execute', call('secretSauce'));
    expect(called.isError).toBe(true);
    expect(JSON.stringify(called.body)).not.toContain('alice-secret');
    // Unchecked code reads every member of the module it gets, with its code: Alice's skill is not in it.
    const read = await callTool(bob, 'execute', READ_ALL);
    expect(read.isError).toBe(false);
    expect(String(read.body.result)).not.toContain('secretSauce');
    expect(String(read.body.result)).not.toContain('alice-secret');
    // Its sub-module is not declared to Bob either: the typecheck refuses it as a module that does not exist.
    const imported = await callTool(bob, 'execute', { code: "import { secretSauce } from '@capabilities/skills/secretSauce';\nreturn secretSauce();" });
    expect(imported.body).toMatchObject({ code: 'TYPE_ERROR', message: expect.stringContaining("Cannot find module '@capabilities/skills/secretSauce'") });
  });

  it('cannot be replaced or deleted by another user, who is answered as if it did not exist', async () => {
    for (const args of [{ replace: true }, {}, { replace: true, share: 'space' }]) {
      const saved = await callTool(bob, 'save_skill', { name: 'secretSauce', code: answer('secretSauce', 'bob'), ...args });
      expect(saved.body).toMatchObject({ code: 'NAME_COLLISION', data: { name: 'secretSauce' } });
      expect(saved.text).not.toMatch(/alice|belongs|replace/);
    }
    const deleted = await callTool(bob, 'delete_skill', { name: 'secretSauce' });
    expect(deleted.body).toMatchObject({ code: 'INVALID_ARGUMENTS', message: expect.stringContaining('no skill "secretSauce"') });
    expect(deleted.text).not.toContain('skills: secretSauce');
    expect(await readFile(join(project.rootDir, 'skills/secretSauce.ts'), 'utf8')).toBe(answer('secretSauce', 'alice-secret'));
  });

  it('is used by the members of a group it is shared with, and by everyone once shared with the space', async () => {
    const shared = await callTool(alice, 'save_skill', { name: 'secretSauce', code: answer('secretSauce', 'alice-ops'), replace: true, share: { groups: ['ops'] } });
    expect(shared.isError).toBe(false);
    expect((await callTool(bob, 'execute', call('secretSauce'))).body.result).toBe('alice-ops');
    expect((await callTool(bob, 'list_skills')).body.skills).toContainEqual(expect.objectContaining({ name: 'secretSauce', shared: { groups: ['ops'] }, yours: false }));
    expect((await callTool(bob, 'search_capabilities', { query: 'secretSauce' })).text).toContain('secretSauce');
    // Seen, still not Bob's: he may not change it.
    expect((await callTool(bob, 'save_skill', { name: 'secretSauce', code: answer('secretSauce', 'bob'), replace: true })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    expect((await callTool(bob, 'delete_skill', { name: 'secretSauce' })).body).toMatchObject({ code: 'SKILL_NOT_OWNED' });
    // Carol is in no group it is shared with.
    expect(await names(carol)).not.toContain('secretSauce');
    expect((await callTool(carol, 'execute', READ_ALL)).text).not.toContain('alice-ops');

    // Replaced without `share`, it keeps its share; then shared with the space.
    expect((await callTool(alice, 'save_skill', { name: 'secretSauce', code: answer('secretSauce', 'alice-kept'), replace: true })).isError).toBe(false);
    expect((await callTool(bob, 'execute', call('secretSauce'))).body.result).toBe('alice-kept');
    expect((await callTool(alice, 'save_skill', { name: 'secretSauce', code: answer('secretSauce', 'alice-all'), replace: true, share: 'space' })).isError).toBe(false);
    expect((await callTool(carol, 'execute', call('secretSauce'))).body.result).toBe('alice-all');
    expect((await callTool(carol, 'list_skills')).body.skills).toContainEqual(expect.objectContaining({ name: 'secretSauce', shared: 'space' }));
    // And private again.
    expect((await callTool(alice, 'save_skill', { name: 'secretSauce', code: answer('secretSauce', 'alice-again'), replace: true, share: 'private' })).isError).toBe(false);
    expect(await names(carol)).not.toContain('secretSauce');
    expect(await names(bob)).not.toContain('secretSauce');
  });

  it('refuses a bad share', async () => {
    for (const share of ['team', { groups: [] }, { groups: [''] }, { groups: 'ops' }, { groups: ['ops'], extra: 1 }, 7, null]) {
      expect((await callTool(alice, 'save_skill', { name: 'badShare', code: answer('badShare', 'x'), share })).isError).toBe(true);
    }
    expect(existsSync(join(project.rootDir, 'skills/badShare.ts'))).toBe(false);
  });

  it("survives its owner reconnecting: the user's, not the connection's", async () => {
    const again = await connectAs(ALICE);
    expect((await callTool(again, 'list_skills')).body.skills).toContainEqual(expect.objectContaining({ name: 'secretSauce', shared: 'private', yours: true }));
    expect((await callTool(again, 'execute', call('secretSauce'))).body.result).toBe('alice-again');
    expect((await callTool(again, 'delete_skill', { name: 'secretSauce' })).isError).toBe(false);
    expect(await names(alice)).not.toContain('secretSauce');
  });
});

describe('skills of clients that are no users stay shared with the space', () => {
  it('are callable by users, and cannot be made private', async () => {
    const local = await connectAs();
    const alice = await connectAs(ALICE);
    expect((await callTool(local, 'save_skill', { name: 'localSkill', code: answer('localSkill', 'local') })).isError).toBe(false);
    expect((await callTool(alice, 'execute', call('localSkill'))).body.result).toBe('local');
    expect((await callTool(alice, 'list_skills')).body.skills).toContainEqual(expect.objectContaining({ name: 'localSkill', shared: 'space', yours: false }));
    for (const share of ['private', { groups: ['eng'] }]) {
      expect((await callTool(local, 'save_skill', { name: 'localPrivate', code: answer('localPrivate', 'x'), share })).body).toMatchObject({ code: 'INVALID_ARGUMENTS', data: { field: 'share' } });
    }
  });
});

describe("a user's session and task ids are useless to another user", () => {
  it('answers SESSION_NOT_FOUND for every tool that takes a session id, and lists none', async () => {
    const alice = await connectAs(ALICE);
    const bob = await connectAs(BOB);
    const { sessionId } = (await callTool(alice, 'create_session')).body as { sessionId: string };
    expect((await callTool(alice, 'send_code', { sessionId, code: "const secret = 'alice-session-secret';\nreturn secret.length;" })).body.result).toBe(20);
    const unknown = '00000000-0000-4000-8000-000000000000';
    for (const [tool, args] of [
      ['send_code', { code: 'return secret;' }],
      ['get_session_info', {}],
      ['get_session_history', {}],
      ['close_session', {}],
    ] as const) {
      const answered = await callTool(bob, tool, { sessionId, ...args });
      expect(answered.body).toMatchObject({ code: 'SESSION_NOT_FOUND' });
      expect(answered.text).not.toContain('alice-session-secret');
      // Word for word what an id nobody holds gets: nothing tells that the session exists.
      const nobodys = await callTool(bob, tool, { sessionId: unknown, ...args });
      expect(answered.text.replaceAll(sessionId, unknown)).toBe(nobodys.text);
    }
    expect((await callTool(bob, 'list_sessions')).body.sessions).toEqual([]);
    // Alice's session is untouched by all that.
    expect((await callTool(alice, 'send_code', { sessionId, code: 'return secret;' })).body.result).toBe('alice-session-secret');
  });

  it('neither finds, fetches, cancels nor lists another user\'s task', async () => {
    const alice = await connectAs(ALICE);
    const bob = await connectAs(BOB);
    const created = await alice.request({ method: 'tools/call', params: { name: 'execute', arguments: { code: 'export default "alice task";' }, task: {} } as never }, CreateTaskResultSchema);
    const { taskId } = created.task;
    await expect.poll(async () => (await alice.experimental.tasks.getTask(taskId)).status, { timeout: 30_000 }).toBe('completed');
    const refused = async (promise: Promise<unknown>) => ((await promise.then(() => undefined, (error: unknown) => error)) as { code?: number } | undefined)?.code;
    expect(await refused(bob.experimental.tasks.getTask(taskId))).toBe(-32602);
    expect(await refused(bob.experimental.tasks.getTaskResult(taskId, CallToolResultSchema))).toBe(-32602);
    expect(await refused(bob.experimental.tasks.cancelTask(taskId))).toBe(-32602);
    expect((await bob.experimental.tasks.listTasks()).tasks.map((t) => t.taskId)).not.toContain(taskId);
    // Another connection of Alice finds it: tasks are the user's.
    const again = await connectAs(ALICE);
    expect((await again.experimental.tasks.getTask(taskId)).status).toBe('completed');
  });
});
