import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { MemorySessionStore, createSpace } from '@agent-spaces/sdk';
import { createCodeModeHost, createCodeModeServer, type CodeModeServerOptions } from '../src/server.js';
import { ServerSessions } from '../src/sessions.js';
import { callTool, connectInMemory } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

let project: TestProject;

beforeAll(async () => {
  project = await createProject();
});

afterAll(async () => {
  await project?.cleanup();
});

function options(extra: Partial<CodeModeServerOptions> = {}): CodeModeServerOptions {
  return { spaces: [{ id: 'trains', name: 'Trains' }], space: { rootDir: project.rootDir, handlers: project.handlers }, ...extra };
}

async function withClient(extra: Partial<CodeModeServerOptions>, test: (client: Client) => Promise<void>): Promise<void> {
  const client = await connectInMemory(createCodeModeServer(options(extra)));
  try {
    await test(client);
  } finally {
    await client.close();
  }
}

async function create(client: Client): Promise<string> {
  const answer = await callTool(client, 'create_session');
  expect(answer.isError).toBe(false);
  return answer.body.sessionId;
}

describe('session lifecycle', () => {
  it('keeps top-level declarations between send_code calls and reports info and history', () =>
    withClient({}, async (client) => {
      const id = await create(client);
      const first = await callTool(client, 'send_code', {
        sessionId: id,
        code: "import { trainSchedule } from '@capabilities/trains';\nconst trips = await trainSchedule.getSchedule({});",
      });
      expect(first.isError).toBe(false);
      expect(first.body.sessionId).toBe(id);
      const second = await callTool(client, 'send_code', { sessionId: id, code: 'return trips.length * 10;' });
      expect(second.body.result).toBe(20);

      const info = await callTool(client, 'get_session_info', { sessionId: id });
      expect(info.body).toMatchObject({ sessionId: id, spaceId: 'trains', runs: 2 });
      expect(Date.parse(info.body.expiresAt)).toBeGreaterThan(Date.parse(info.body.lastUsedAt));

      const history = await callTool(client, 'get_session_history', { sessionId: id, limit: 1 });
      expect(history.body.runs).toBe(2);
      expect(history.body.history).toEqual([expect.objectContaining({ seq: 2, code: 'return trips.length * 10;', ok: true, result: 20, capability_calls: 0 })]);

      expect((await callTool(client, 'list_sessions')).body.sessions.map((s: { sessionId: string }) => s.sessionId)).toEqual([id]);
      expect((await callTool(client, 'close_session', { sessionId: id })).body).toEqual({ sessionId: id, closed: true, session_id: id, success: true });
      const after = await callTool(client, 'send_code', { sessionId: id, code: 'return 1;' });
      expect(after.body).toMatchObject({ code: 'SESSION_NOT_FOUND', data: { reason: 'closed' } });
      expect((await callTool(client, 'list_sessions')).body.sessions).toEqual([]);
    }));

  it('isolates sessions from one another', () =>
    withClient({}, async (client) => {
      const a = await create(client);
      const b = await create(client);
      await callTool(client, 'send_code', { sessionId: a, code: 'const secret = 1;' });
      const peek = await callTool(client, 'send_code', { sessionId: b, code: 'return typeof secret;' });
      expect(peek.body.result ?? peek.body.code).not.toBe('number');
    }));

  it('records failed runs in the history and keeps the session usable', () =>
    withClient({}, async (client) => {
      const id = await create(client);
      const failed = await callTool(client, 'send_code', { sessionId: id, code: "throw new Error('nope');" });
      expect(failed).toMatchObject({ isError: true, body: { code: 'SCRIPT_ERROR', sessionId: id } });
      expect((await callTool(client, 'send_code', { sessionId: id, code: 'return 5;' })).body.result).toBe(5);
      const history = await callTool(client, 'get_session_history', { sessionId: id });
      expect(history.body.history.map((h: { ok: boolean }) => h.ok)).toEqual([false, true]);
    }));

  it('keeps a large result in the history as a marker with its size, and a small one whole', () =>
    withClient({}, async (client) => {
      const id = await create(client);
      const big = await callTool(client, 'send_code', { sessionId: id, code: "return 'y'.repeat(200_000);" });
      expect(big.body.result).toHaveLength(200_000);
      await callTool(client, 'send_code', { sessionId: id, code: 'return { small: true };' });
      const history = await callTool(client, 'get_session_history', { sessionId: id });
      expect(history.body.history.map((h: { result: unknown }) => h.result)).toEqual([{ truncated: true, bytes: 200_002 }, { small: true }]);
    }));

  it('answers SESSION_NOT_FOUND for an id it never issued', () =>
    withClient({}, async (client) => {
      const answer = await callTool(client, 'get_session_info', { sessionId: 'made-up' });
      expect(answer).toMatchObject({ isError: true, body: { code: 'SESSION_NOT_FOUND' } });
    }));
});

describe('idle timeout and eviction', () => {
  it('closes a session left idle past the timeout', () =>
    withClient({ timeoutSeconds: 0.3 }, async (client) => {
      const id = await create(client);
      await new Promise((resolve) => setTimeout(resolve, 800));
      const answer = await callTool(client, 'send_code', { sessionId: id, code: 'return 1;' });
      expect(answer.body).toMatchObject({ code: 'SESSION_NOT_FOUND', data: { reason: 'idle timeout' } });
    }));

  it('refuses a client past its own cap with TOO_MANY_SESSIONS, closing none of its sessions', async () => {
    const host = createCodeModeHost(options({ maxSessionsPerClient: 2 }));
    const alice = await connectInMemory(host.createServer());
    const bob = await connectInMemory(host.createServer());
    try {
      const first = await create(alice);
      const second = await create(alice);
      const third = await callTool(alice, 'create_session');
      expect(third.isError).toBe(true);
      expect(third.body).toMatchObject({ code: 'TOO_MANY_SESSIONS', data: { scope: 'client', limit: 2 } });
      expect(third.body.message).toContain('close_session');
      const ids = (await callTool(alice, 'list_sessions')).body.sessions.map((s: { sessionId: string }) => s.sessionId);
      expect(ids.sort()).toEqual([first, second].sort());
      await create(bob);
      await callTool(alice, 'close_session', { sessionId: first });
      await create(alice);
    } finally {
      await Promise.all([alice.close(), bob.close()]);
      await host.close();
    }
  });

  it('at the server cap, never closes another client’s recent session: the newcomer gets TOO_MANY_SESSIONS', async () => {
    const host = createCodeModeHost(options({ maxSessions: 2 }));
    const clients = await Promise.all([1, 2, 3].map(() => connectInMemory(host.createServer())));
    try {
      const [alice, bob, carol] = clients as [Client, Client, Client];
      const kept = [await create(alice), await create(bob)];
      const refused = await Promise.all([callTool(carol, 'create_session'), callTool(alice, 'create_session')]);
      for (const answer of refused) expect(answer.body).toMatchObject({ code: 'TOO_MANY_SESSIONS', data: { scope: 'server', limit: 2 } });
      expect((await callTool(alice, 'send_code', { sessionId: kept[0], code: 'return 1;' })).body.result).toBe(1);
      expect((await callTool(bob, 'send_code', { sessionId: kept[1], code: 'return 2;' })).body.result).toBe(2);
      await callTool(bob, 'close_session', { sessionId: kept[1] });
      await create(carol);
    } finally {
      await Promise.all(clients.map((c) => c.close()));
      await host.close();
    }
  });

  it('counts sessions across clients and ends a client’s sessions when it disconnects', async () => {
    const host = createCodeModeHost(options({ maxSessions: 10 }));
    const alice = await connectInMemory(host.createServer());
    const bob = await connectInMemory(host.createServer());
    try {
      const id = await create(alice);
      expect((await callTool(bob, 'get_session_info', { sessionId: id })).body.code).toBe('SESSION_NOT_FOUND');
      await create(bob);
      expect(host.stats()).toMatchObject({ connections: 2, sessions: 2, spaces: 1 });
      await alice.close();
      await expect.poll(() => host.stats()).toMatchObject({ connections: 1, sessions: 1, spaces: 1 });
      expect((await callTool(bob, 'list_sessions')).body.sessions).toHaveLength(1);
    } finally {
      await bob.close();
      await host.close();
    }
  });
});

describe('ServerSessions caps', () => {
  it('makes room at the server cap with the least recently used session idle past the grace, and says why to its owner', async () => {
    const space = await createSpace({ isolation: 'in-process', rootDir: project.rootDir, handlers: project.handlers });
    const store = new ServerSessions({ idleTimeoutMs: 60_000, maxSessions: 2, maxSessionsPerClient: 2, evictionGraceMs: 200 });
    try {
      const old = await store.add('alice', 'trains', async () => space.createSession());
      await new Promise((resolve) => setTimeout(resolve, 300));
      const recent = await store.add('bob', 'trains', async () => space.createSession());
      const fresh = await store.add('carol', 'trains', async () => space.createSession());
      expect(() => store.get('alice', old.id)).toThrow(expect.objectContaining({ code: 'SESSION_NOT_FOUND', data: expect.objectContaining({ reason: expect.stringContaining('evicted') }) }));
      expect(store.get('bob', recent.id).id).toBe(recent.id);
      expect(store.get('carol', fresh.id).id).toBe(fresh.id);
      await expect(store.add('dave', 'trains', async () => space.createSession())).rejects.toMatchObject({ code: 'TOO_MANY_SESSIONS', data: { scope: 'server', limit: 2 } });
      const busy = store.run('bob', recent.id, 'x', (session) => session.run('const end = Date.now() + 400; while (Date.now() < end) {} export default 1;', {}));
      await new Promise((resolve) => setTimeout(resolve, 250));
      // Bob's session is busy and Carol's was used 250 ms ago but is idle past the grace: Carol's goes, never Bob's.
      await store.add('dave', 'trains', async () => space.createSession());
      expect(() => store.get('carol', fresh.id)).toThrow(expect.objectContaining({ code: 'SESSION_NOT_FOUND' }));
      expect(await busy).toMatchObject({ ok: true, result: 1 });
    } finally {
      await store.closeAll();
      await space.close();
    }
  });
});

describe('ServerSessions records', () => {
  it('puts each session on record in the store it is given as it is created, used and ended', async () => {
    const space = await createSpace({ isolation: 'in-process', rootDir: project.rootDir, handlers: project.handlers });
    const records = new MemorySessionStore();
    const store = new ServerSessions({ idleTimeoutMs: 60_000, maxSessions: 4, maxSessionsPerClient: 4, records });
    try {
      const session = await store.add('alice', 'trains', async () => space.createSession());
      expect(await records.get(session.id)).toMatchObject({ id: session.id, owner: 'alice', space: 'trains', metadata: { runs: 0, history: [] } });
      const created = (await records.get(session.id))!.lastUsedAt;
      await store.run('alice', session.id, 'export default 6 * 7;', (s) => s.run('export default 6 * 7;', {}));
      const used = (await records.get(session.id))!;
      expect(used.metadata).toMatchObject({ runs: 1, history: [expect.objectContaining({ seq: 1, ok: true, result: 42 })] });
      expect(used.lastUsedAt >= created).toBe(true);
      expect((await records.list({ owner: 'alice' })).map((r) => r.id)).toEqual([session.id]);
      await store.close('alice', session.id);
      expect(await records.get(session.id)).toBeUndefined();
    } finally {
      await store.closeAll();
      await space.close();
    }
  });

  it('refuses a session that cannot be put on record with INTERNAL, and closes it', async () => {
    const space = await createSpace({ isolation: 'in-process', rootDir: project.rootDir, handlers: project.handlers });
    const records = Object.assign(new MemorySessionStore(), { create: () => Promise.reject(new Error('the database is down')) });
    const store = new ServerSessions({ idleTimeoutMs: 60_000, maxSessions: 4, maxSessionsPerClient: 4, records });
    try {
      let made: { id: string } | undefined;
      await expect(store.add('alice', 'trains', async () => (made = space.createSession()))).rejects.toMatchObject({ code: 'INTERNAL' });
      expect(store.list('alice')).toEqual([]);
      expect(space.stats().sessions).toBe(0);
      expect(made).toBeDefined();
    } finally {
      await store.closeAll();
      await space.close();
    }
  });
});
