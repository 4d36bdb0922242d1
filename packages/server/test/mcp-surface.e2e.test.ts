import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernTransport } from '@modelcontextprotocol/client';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { LoggingMessageNotificationSchema, type CallToolResult, type LoggingMessageNotification, type Tool } from '@modelcontextprotocol/sdk/types.js';
import { newClient } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe, stdioServe } from './support/serve.js';

// The MCP server surface a client sees of a real `mcp serve`, through the official SDK clients: tool titles and
// annotations, output schemas with structuredContent (validated by the client), and log messages at each client's level.

type LogParams = LoggingMessageNotification['params'];

const ECHO_TOOL = { name: 'echo_word', description: 'Echoes a word', parameters: { type: 'object', properties: { word: { type: 'string' } } }, code: 'return { word: input.word };' };
const config = (extraSpaces: object[] = []) =>
  JSON.stringify({ capabilities: ['capabilities/*.json'], spaces: [{ id: 'trains', name: 'Trains', tools: [ECHO_TOOL] }, ...extraSpaces] });

let project: TestProject;
let server: HttpServe;
let url: string;
const clients: { close(): Promise<void> }[] = [];

beforeAll(async () => {
  project = await createProject();
  await writeFile(join(project.rootDir, 'agent-spaces.config.json'), config());
  server = new HttpServe(project.rootDir, { 'log-format': 'json' });
  url = await server.url();
}, 90_000);

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await server?.stop();
  await project?.cleanup();
}, 30_000);

/** A 1.x SDK client over Streamable HTTP, with every log message it was sent. */
async function connect(): Promise<{ client: Client; messages: LogParams[] }> {
  const client = newClient();
  const messages: LogParams[] = [];
  client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void messages.push(notification.params));
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  clients.push(client);
  return { client, messages };
}

/** The text of a result's single content and its structuredContent. */
function parts(result: unknown): { text: string; structured: unknown; isError: boolean } {
  const { content, structuredContent, isError } = result as CallToolResult;
  return { text: content[0]?.type === 'text' ? content[0].text : '', structured: structuredContent, isError: isError === true };
}

/** The `tool.called` messages of `messages`. */
const toolCalls = (messages: readonly LogParams[]) => messages.filter((m) => (m.data as { event?: string }).event === 'tool.called');

/** The console lines of `messages`, as `level text`. */
const consoleLines = (messages: readonly LogParams[]) => messages.filter((m) => m.logger === 'console').map((m) => `${m.level} ${String(m.data)}`);

describe('tools/list', () => {
  it('gives every built-in tool a title and the four hints true of it; config tools get none they cannot know', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const tool of tools.filter((t) => t.name !== ECHO_TOOL.name)) {
      expect(tool.title, tool.name).toMatch(/\w/);
      for (const hint of ['readOnlyHint', 'destructiveHint', 'idempotentHint', 'openWorldHint'] as const) expect(typeof tool.annotations?.[hint], `${tool.name} ${hint}`).toBe('boolean');
    }
    for (const name of ['search_capabilities', 'describe_capabilities', 'list_sessions', 'list_spaces', 'list_agents', 'list_skills', 'get_session_info', 'get_space', 'inject']) {
      expect(byName.get(name)?.annotations, name).toEqual({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false });
    }
    for (const name of ['execute', 'send_code']) {
      expect(byName.get(name)?.annotations, name).toEqual({ readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true });
    }
    expect(byName.get('delete_skill')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: true, openWorldHint: false });
    expect(byName.get('create_session')?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    const echo = byName.get(ECHO_TOOL.name)!;
    expect(echo.annotations).toBeUndefined();
    expect(echo.outputSchema).toBeUndefined();
  });

  it('declares a valid output schema for the tools that answer JSON, and none for the text ones', async () => {
    const { client } = await connect();
    const { tools } = await client.listTools();
    const withSchema = tools.filter((t): t is Tool & { outputSchema: object } => t.outputSchema !== undefined).map((t) => t.name);
    expect(withSchema).toEqual(expect.arrayContaining(['execute', 'send_code', 'create_session', 'list_sessions', 'get_session_info', 'list_spaces', 'get_space', 'list_agents', 'list_skills', 'save_skill', 'close_session', 'inject']));
    expect(withSchema).not.toContain('search_capabilities');
    expect(withSchema).not.toContain('describe_capabilities');
    const ajv = new Ajv({ strict: true });
    for (const tool of tools) if (tool.outputSchema) expect(() => ajv.compile(tool.outputSchema!), tool.name).not.toThrow();
  });
});

describe('structuredContent', () => {
  it('answers each JSON tool with structuredContent that the client validates against its outputSchema, and the same JSON as text', async () => {
    const { client } = await connect();
    await client.listTools(); // the client validates the results of the tools it has listed
    const session = parts(await client.callTool({ name: 'create_session', arguments: {} }));
    const sessionId = (session.structured as { sessionId: string }).sessionId;
    const calls: [string, Record<string, unknown>][] = [
      ['execute', { code: 'return { trains: 3 };' }],
      ['send_code', { sessionId, code: 'const x = 41; return x + 1;' }],
      ['get_session_info', { sessionId }],
      ['list_sessions', {}],
      ['get_session_history', { sessionId }],
      ['list_spaces', {}],
      ['get_space', { spaceId: 'trains' }],
      ['inject', { spaceId: 'trains' }],
      ['inject', { spaceId: 'trains', format: 'structured' }],
      ['list_agents', {}],
      ['list_skills', {}],
      ['close_session', { sessionId }],
    ];
    for (const [name, args] of calls) {
      const answer = parts(await client.callTool({ name, arguments: args }));
      expect(answer.isError, `${name}: ${answer.text}`).toBe(false);
      expect(answer.structured, name).toEqual(JSON.parse(answer.text));
    }
    expect(parts(await client.callTool({ name: 'execute', arguments: { code: 'return { trains: 3 };' } })).structured).toMatchObject({ result: { trains: 3 }, logs: [] });
  });

  it('keeps structuredContent valid JSON whatever the code returns', async () => {
    const { client } = await connect();
    await client.listTools();
    const results = ['undefined', 'null', '[1, 2]', '"text"', '10n', 'new Map([["a", 1]])', 'new Set([1])', '(() => { const a: any = {}; a.self = a; return a; })()', '{ deep: { deeper: [{ x: NaN }] } }'];
    for (const value of results) {
      const answer = parts(await client.callTool({ name: 'execute', arguments: { code: `return ${value};` } }));
      expect(answer.isError, `${value}: ${answer.text}`).toBe(false);
      expect(answer.structured, value).toEqual(JSON.parse(answer.text));
    }
  });

  it('leaves structuredContent out of text answers and error results', async () => {
    const { client } = await connect();
    await client.listTools();
    expect(parts(await client.callTool({ name: 'describe_capabilities', arguments: {} })).structured).toBeUndefined();
    const failed = parts(await client.callTool({ name: 'execute', arguments: { code: 'throw new Error("no");' } }));
    expect(failed.isError).toBe(true);
    expect(failed.structured).toBeUndefined();
  });
});

describe('logging', () => {
  const LOUD = 'console.debug("d1"); console.log("l1"); console.info("i1"); console.warn("w1"); console.error("e1"); return 1;';

  it('declares the logging capability', async () => {
    const { client } = await connect();
    expect(client.getServerCapabilities()?.logging).toEqual({});
  });

  it("sends a run's console output at the level the client set, and info and above before it sets one", async () => {
    const quiet = await connect();
    await quiet.client.callTool({ name: 'execute', arguments: { code: LOUD } });
    expect(consoleLines(quiet.messages)).toEqual(['info l1', 'info i1', 'warning w1', 'error e1']);

    const verbose = await connect();
    await verbose.client.setLoggingLevel('debug');
    await verbose.client.callTool({ name: 'execute', arguments: { code: LOUD } });
    expect(consoleLines(verbose.messages)).toEqual(['debug d1', 'info l1', 'info i1', 'warning w1', 'error e1']);
    // The call's own log line comes after its result, outside the call's stream.
    await vi.waitFor(() => expect(toolCalls(verbose.messages)).toEqual([{ level: 'debug', logger: 'agent-spaces', data: expect.objectContaining({ tool: 'execute', ok: true }) }]));
    expect(toolCalls(quiet.messages)).toEqual([]);

    for (const [level, expected] of [
      ['error', ['error e1']],
      ['warning', ['warning w1', 'error e1']],
      ['emergency', []],
    ] as const) {
      const client = await connect();
      await client.client.setLoggingLevel(level);
      await client.client.callTool({ name: 'execute', arguments: { code: LOUD } });
      expect(consoleLines(client.messages), level).toEqual(expected);
    }
  });

  it("never sends one client's run output or tool calls to another", async () => {
    const alice = await connect();
    const bob = await connect();
    await alice.client.setLoggingLevel('debug');
    await bob.client.setLoggingLevel('debug');
    await alice.client.callTool({ name: 'execute', arguments: { code: 'console.log("alice secret"); return 1;' } });
    await bob.client.callTool({ name: 'execute', arguments: { code: 'console.log("bob"); return 2;' } });
    expect(consoleLines(alice.messages)).toEqual(['info alice secret']);
    expect(consoleLines(bob.messages)).toEqual(['info bob']);
    expect(JSON.stringify(bob.messages)).not.toContain('alice');
    await vi.waitFor(() => expect(toolCalls(bob.messages)).toHaveLength(1));
    await vi.waitFor(() => expect(toolCalls(alice.messages)).toHaveLength(1));
    expect(JSON.stringify(alice.messages)).not.toContain('bob');
  });

  it('tells a client of its own sessions starting and ending, and no other client', async () => {
    const alice = await connect();
    const bob = await connect();
    const sessionEvents = (messages: readonly LogParams[]) =>
      messages.map((m) => m.data as { event?: string; session?: string }).filter((data) => data.event?.startsWith('session.'));
    const created = parts(await alice.client.callTool({ name: 'create_session', arguments: {} }));
    const { sessionId } = created.structured as { sessionId: string };
    await alice.client.callTool({ name: 'close_session', arguments: { sessionId } });
    await vi.waitFor(() =>
      expect(sessionEvents(alice.messages)).toEqual([
        expect.objectContaining({ event: 'session.created', session: sessionId }),
        expect.objectContaining({ event: 'session.ended', session: sessionId }),
      ]),
    );
    await bob.client.callTool({ name: 'list_sessions', arguments: {} });
    expect(sessionEvents(bob.messages)).toEqual([]);
    expect(JSON.stringify(bob.messages)).not.toContain(sessionId);
  });

  it('reports a failed capability call as a warning', async () => {
    const { client, messages } = await connect();
    const code = "import { trainSchedule } from '@capabilities/trains';\ntry { await trainSchedule.getTrainDetails({ trainId: 1 as unknown as string }); } catch { return 'failed'; }";
    const answer = parts(await client.callTool({ name: 'execute', arguments: { code } }));
    expect(answer.text).toContain('failed');
    expect(messages).toContainEqual(
      expect.objectContaining({ level: 'warning', data: expect.objectContaining({ event: 'capability.failed', capability: 'trains', function: 'getTrainDetails', code: expect.any(String) }) }),
    );
  });

  it('tells the client that a call waits for approval', async () => {
    const { client, messages } = await connect();
    const code = "import { vault } from '@capabilities/vault';\ntry { await vault.deleteSecrets(); } catch (e) { return (e as { code: string }).code; }";
    const answer = parts(await client.callTool({ name: 'execute', arguments: { code } }));
    expect(answer.structured).toMatchObject({ result: 'APPROVAL_DENIED' });
    expect(messages).toContainEqual({
      level: 'notice',
      logger: 'agent-spaces',
      data: expect.objectContaining({ event: 'approval.waiting', approval: expect.any(String), capability: 'vault', function: 'deleteSecrets' }),
    });
  });

  it('tells every client that the server reloaded its config', async () => {
    const alice = await connect();
    const bob = await connect();
    await writeFile(join(project.rootDir, 'agent-spaces.config.json'), config([{ id: 'second', name: 'Second' }]));
    for (const { messages } of [alice, bob]) {
      await vi.waitFor(() => expect(messages).toContainEqual(expect.objectContaining({ level: 'info', data: expect.objectContaining({ event: 'server.reloaded' }) })), {
        timeout: 15_000,
        interval: 100,
      });
    }
  });
});

describe('stdio', () => {
  it('sends log messages at the level the client set over stdio too', async () => {
    const transport = stdioServe(project.rootDir);
    const client = newClient();
    const messages: LogParams[] = [];
    client.setNotificationHandler(LoggingMessageNotificationSchema, (notification) => void messages.push(notification.params));
    await client.connect(transport);
    clients.push(client);
    expect(client.getServerCapabilities()?.logging).toEqual({});
    await client.setLoggingLevel('warning');
    await client.callTool({ name: 'execute', arguments: { code: 'console.log("hidden"); console.warn("shown"); return 1;' } });
    expect(consoleLines(messages)).toEqual(['warning shown']);
  }, 60_000);
});

describe('protocol 2026-07-28', () => {
  it('lists the same titles, hints and output schemas, and sends log messages only to a call that names a level', async () => {
    const transport = new ModernTransport(new URL(url));
    const client = new ModernClient({ name: 'modern-surface', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    await client.connect(transport);
    clients.push(client);
    const { tools } = await client.listTools();
    const execute = tools.find((t) => t.name === 'execute')!;
    expect(execute).toMatchObject({ title: 'Run TypeScript', annotations: { readOnlyHint: false, destructiveHint: true } });
    expect(execute.outputSchema).toMatchObject({ type: 'object', required: expect.arrayContaining(['result', 'logs']) });
    expect(execute).not.toHaveProperty('execution');
    const messages: LogParams[] = [];
    client.setNotificationHandler('notifications/message', (notification) => void messages.push(notification.params as LogParams));
    const code = 'console.log("modern"); console.debug("quiet"); return { ok: true };';
    const silent = await client.callTool({ name: 'execute', arguments: { code } });
    expect((silent as CallToolResult).structuredContent).toMatchObject({ result: { ok: true } });
    expect(messages).toEqual([]);
    await client.callTool({ name: 'execute', arguments: { code }, _meta: { 'io.modelcontextprotocol/logLevel': 'info' } });
    expect(consoleLines(messages)).toEqual(['info modern']);
  });
});
