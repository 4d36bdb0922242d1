// Seed 000's agent modes beside Tools, against a real `mcp serve --port` (bearer token) whose model is the scripted
// OpenAI stand-in: Autonomous (A2A, driven by the A2A SDK's own client) and Interactive (`POST /chat`, JSON and SSE).
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Role, TaskState, type Message, type Task } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from '@a2a-js/sdk/client';
import { parseServerConfig } from '../src/config.js';
import { createCodeModeHost } from '../src/server.js';
import { ChatConversations } from '../src/modes/chat.js';
import { startScriptedModel, textAnswer, toolCalls, type ScriptedModel } from './support/openai-server.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';
import { BOOK_FLIGHT } from '../../../test/fixtures/book-flight.js';

const TOKEN = 'agent-modes-token-51c9';


/** Agent code the server runs without host handlers (a child `mcp serve` has none for the test capabilities). */
const SCHEDULE_CODE = "console.log('checking');\nexport default [{ id: 'IC 1', hour: 7 }];";

let project: TestProject;
let model: ScriptedModel;
let serve: HttpServe;
let base: string;

beforeAll(async () => {
  model = await startScriptedModel();
  const config = {
    capabilities: ['capabilities/*.json'],
    model: { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL, maxRetries: 0 },
    server: { a2a: { enabled: true } },
    spaces: [{ id: 'travel', name: 'Travel', description: 'Books travel.', tools: [BOOK_FLIGHT] }],
  };
  project = await createProject({ 'agent-spaces.config.json': JSON.stringify(config) });
  serve = new HttpServe(project.rootDir, { 'auth-token': TOKEN });
  base = (await serve.url()).replace(/\/mcp$/, '');
}, 60_000);

afterAll(async () => {
  await serve?.stop();
  await model?.close();
  await project?.cleanup();
});

beforeEach(() => model.script([]));

const withToken: typeof fetch = (input, init) => fetch(input, { ...init, headers: { ...Object.fromEntries(new Headers(init?.headers)), authorization: `Bearer ${TOKEN}` } });

async function a2aClient(): Promise<Client> {
  const factory = new ClientFactory({ transports: [new JsonRpcTransportFactory({ fetchImpl: withToken })], cardResolver: new DefaultAgentCardResolver({ fetchImpl: withToken }) });
  return factory.createFromUrl(base);
}

function userMessage(parts: Message['parts'], metadata?: Record<string, unknown>): Message {
  return { messageId: crypto.randomUUID(), contextId: '', taskId: '', role: Role.ROLE_USER, parts, metadata, extensions: [], referenceTaskIds: [] };
}

const data = (value: unknown): Message['parts'][number] => ({ content: { $case: 'data', value }, metadata: undefined, filename: '', mediaType: 'application/json' });
const text = (value: string): Message['parts'][number] => ({ content: { $case: 'text', value }, metadata: undefined, filename: '', mediaType: 'text/plain' });
const lastUserText = (index: number) => model.requests[index]!.body.messages.filter((m: { role: string }) => m.role === 'user').at(-1).content;

describe('Autonomous mode: the A2A server, through the A2A SDK client', () => {
  it('lists the space’s prompt tools as skills on the agent card', async () => {
    const client = await a2aClient();
    const card = await client.getAgentCard();
    expect(card.name).toBe('Travel');
    expect(card.skills.map((s) => s.id)).toEqual(['book_flight']);
    expect(card.skills[0]!.description).toContain('Books a flight ticket for a user.');
    expect(card.skills[0]!.description).toContain('"departure_date"');
    expect(card.supportedInterfaces[0]).toMatchObject({ url: `${base}/a2a`, protocolBinding: 'JSONRPC' });
  });

  it('runs seed 000’s book_flight from metadata.skillId and a data part: the filled prompt, code in the space, a completed task', async () => {
    model.script([toolCalls([{ name: 'execute', args: { code: SCHEDULE_CODE } }]), textAnswer('Booked IC 1 to Paris.')]);
    const client = await a2aClient();
    const result = await client.sendMessage({
      tenant: '',
      message: userMessage([data({ destination: 'Paris, France', departure_date: '2026-12-01' })], { skillId: 'book_flight' }),
      configuration: undefined,
      metadata: undefined,
    });
    const task = result as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const parts = task.artifacts[0]!.parts;
    expect(parts[0]!.content).toEqual({ $case: 'text', value: 'Booked IC 1 to Paris.' });
    expect(parts[1]!.content?.value).toMatchObject({ response: 'Booked IC 1 to Paris.', events: expect.arrayContaining([expect.objectContaining({ type: 'code_run', ok: true })]) });
    expect(lastUserText(0)).toBe('The user wants to book a flight to Paris, France on 2026-12-01, please book accordingly');
    expect(model.requests).toHaveLength(2);
  });

  it('fails the task with INVALID_ARGUMENTS when the data part misses a required argument, before any model turn', async () => {
    const client = await a2aClient();
    const task = (await client.sendMessage({ tenant: '', message: userMessage([data({ destination: 'Rome' })], { skillId: 'book_flight' }), configuration: undefined, metadata: undefined })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_FAILED);
    expect(JSON.stringify(task.status?.message?.parts)).toContain('INVALID_ARGUMENTS');
    expect(model.requests).toHaveLength(0);
  });

  it('answers a message without a skill with the space’s headless agent, from its text', async () => {
    model.script([textAnswer('Trains leave hourly.')]);
    const client = await a2aClient();
    const task = (await client.sendMessage({ tenant: '', message: userMessage([text('When do trains leave?')]), configuration: undefined, metadata: undefined })) as Task;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(task.artifacts[0]!.parts[0]!.content).toEqual({ $case: 'text', value: 'Trains leave hourly.' });
    expect(lastUserText(0)).toBe('When do trains leave?');
  });

  it.each(['book_train', '', 'BOOK_FLIGHT', 'execute'])('refuses a skill that does not exist (%j) with a clear A2A error', async (skillId) => {
    const client = await a2aClient();
    const sent = client.sendMessage({ tenant: '', message: userMessage([data({})], { skillId }), configuration: undefined, metadata: undefined });
    await expect(sent).rejects.toThrow(`No skill "${skillId}" (skills: book_flight)`);
    expect(model.requests).toHaveLength(0);
  });
});

describe('Interactive mode: POST /chat', () => {
  const chat = (body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}/chat`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, ...headers }, body: JSON.stringify(body) });

  it('answers as JSON with the space’s model, and a second message with conversation_id carries the conversation', async () => {
    model.script([textAnswer('Paris is lovely.'), textAnswer('You asked about Paris.')]);
    const first = await chat({ message: 'Tell me about Paris' });
    expect(first.status).toBe(200);
    const answer = (await first.json()) as { ok: boolean; response: string; conversation_id: string; space: string };
    expect(answer).toMatchObject({ ok: true, response: 'Paris is lovely.', space: 'travel' });
    const second = (await (await chat({ message: 'What did I ask?', conversation_id: answer.conversation_id })).json()) as { response: string };
    expect(second.response).toBe('You asked about Paris.');
    const seen = model.requests[1]!.body.messages.map((m: { role: string; content: string }) => [m.role, m.content]);
    expect(seen.slice(1)).toEqual([
      ['user', 'Tell me about Paris'],
      ['assistant', 'Paris is lovely.'],
      ['user', 'What did I ask?'],
    ]);
  });

  it('streams the agent’s messages, its code runs and the answer as Server-Sent Events', async () => {
    model.script([toolCalls([{ name: 'execute', args: { code: SCHEDULE_CODE } }]), textAnswer('IC 1 leaves at 7.')]);
    const reply = await chat({ message: 'First train from Central?', space: 'travel' }, { accept: 'text/event-stream' });
    expect(reply.headers.get('content-type')).toBe('text/event-stream');
    const events = (await reply.text())
      .split('\n\n')
      .filter(Boolean)
      .map((block) => ({ event: /^event: (.*)$/m.exec(block)![1], data: JSON.parse(/^data: (.*)$/m.exec(block)![1]!) }));
    const kinds = events.map((e) => e.event);
    expect(kinds[0]).toBe('agent_message');
    expect(events[0]!.data.tool_calls[0]).toMatchObject({ name: 'execute', input: { code: SCHEDULE_CODE } });
    expect(kinds).toContain('run_event');
    expect(events.find((e) => e.event === 'run_event' && e.data.event.type === 'log')!.data.event).toMatchObject({ message: 'checking' });
    expect(events.find((e) => e.event === 'run_event' && e.data.event.type === 'runFinished')!.data.event).toMatchObject({ ok: true });
    expect(kinds.at(-2)).toBe('agent_message');
    expect(events.at(-1)).toMatchObject({ event: 'answer', data: { ok: true, response: 'IC 1 leaves at 7.', metadata: { code_runs: 1 } } });
  });

  it.each([
    [{ message: 42 }, 400, 'INVALID_ARGUMENTS'],
    [{ message: '   ' }, 400, 'INVALID_ARGUMENTS'],
    [{ message: 'hi', space: 'nowhere' }, 404, 'SPACE_NOT_FOUND'],
    [{ message: 'hi', conversation_id: 'not-a-conversation' }, 404, 'SESSION_NOT_FOUND'],
    [{ message: 'x'.repeat(70 * 1024) }, 413, 'PAYLOAD_TOO_LARGE'],
    [[1, 2], 400, 'INVALID_ARGUMENTS'],
  ])('refuses %j with %i %s', async (body, status, code) => {
    const reply = await chat(body);
    expect(reply.status).toBe(status);
    expect(((await reply.json()) as { error: { code: string } }).error.code).toBe(code);
    expect(model.requests).toHaveLength(0);
  });
});

describe('the front door of the agent modes', () => {
  it.each([
    ['POST', '/chat', JSON.stringify({ message: 'hi' })],
    ['POST', '/a2a', JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'SendMessage', params: {} })],
    ['GET', '/.well-known/agent-card.json', undefined],
  ])('%s %s without a token is 401', async (method, path, body) => {
    const reply = await fetch(`${base}${path}`, { method, headers: { 'content-type': 'application/json' }, ...(body ? { body } : {}) });
    expect(reply.status).toBe(401);
    expect(reply.headers.get('www-authenticate')).toContain('Bearer');
  });

  it('refuses a wrong token and a foreign Host', async () => {
    const wrong = await fetch(`${base}/chat`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer nope' }, body: '{"message":"hi"}' });
    expect(wrong.status).toBe(401);
    const card = await fetch(`${base}/.well-known/agent-card.json`, { headers: { authorization: `Bearer ${TOKEN}`, origin: 'http://evil.example' } });
    expect(card.status).toBe(403);
  });
});

describe('chat conversations belong to their principal', () => {
  it('another principal’s conversation id is unknown to it', async () => {
    model.script([textAnswer('Hello Ann.')]);
    const host = createCodeModeHost({
      spaces: [{ id: 'travel', name: 'Travel' }],
      model: { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL, maxRetries: 0 },
      space: { rootDir: project.rootDir, handlers: project.handlers },
    });
    try {
      const chat = new ChatConversations(host.agents);
      const ann = { token: 'ann-token', clientId: 'ann', scopes: [] };
      const bob = { token: 'bob-token', clientId: 'bob', scopes: [] };
      const signal = new AbortController().signal;
      const first = await chat.send(ann, { message: 'Hi, I am Ann' }, signal);
      expect(first.ok).toBe(true);
      await expect(chat.send(bob, { message: 'Who are you?', conversationId: first.conversation_id }, signal)).rejects.toMatchObject({ code: 'SESSION_NOT_FOUND' });
      expect(model.requests).toHaveLength(1);
    } finally {
      await host.close();
    }
  });
});

describe('server.a2a in the config', () => {
  it('takes { enabled, space, url, maxMessageBytes, maxTasksPerPrincipal }', () => {
    const a2a = { enabled: true, space: 'travel', url: 'https://agents.example/a2a', maxMessageBytes: 4096, maxTasksPerPrincipal: 2 };
    expect(parseServerConfig({ server: { a2a } }, 'cfg.json').server.a2a).toEqual(a2a);
  });

  it.each([
    [{}, 'server.a2a.enabled'],
    [{ enabled: 'yes' }, 'server.a2a.enabled'],
    [{ enabled: true, url: 'ftp://x' }, 'server.a2a.url'],
    [{ enabled: true, maxMessageBytes: 10 }, 'server.a2a.maxMessageBytes'],
    [{ enabled: true, maxTasksPerPrincipal: 0 }, 'server.a2a.maxTasksPerPrincipal'],
    [{ enabled: true, extra: 1 }, 'server.a2a'],
    [true, 'server.a2a'],
  ])('refuses %j naming %s', (a2a, key) => {
    expect(() => parseServerConfig({ server: { a2a } }, 'cfg.json')).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining(key) }));
  });
});
