import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createCodeModeServer } from '../src/server.js';
import { callTool, connectInMemory } from './support/client.js';
import { startScriptedModel, textAnswer, toolCalls, type ScriptedModel } from './support/openai-server.js';
import { createProject, type TestProject } from './support/project.js';

let project: TestProject;
let model: ScriptedModel;
let client: Client;

beforeAll(async () => {
  [project, model] = await Promise.all([createProject(), startScriptedModel()]);
  client = await connectInMemory(
    createCodeModeServer({
      spaces: [
        { id: 'travel', name: 'Travel' },
        { id: 'other', name: 'Other' },
      ],
      model: { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL, maxRetries: 0 },
      space: { rootDir: project.rootDir, handlers: project.handlers },
    }),
  );
});

afterAll(async () => {
  await client?.close();
  await model?.close();
  await project?.cleanup();
});

beforeEach(() => model.script([]));

/** The code runs among an agent run's events (seed 004's tool_call, tool_response and agent_message aside). */
const codeRuns = (content: unknown): unknown[] => (content as { events: Array<{ type: string }> }).events.filter((e) => e.type === 'code_run');

const execute = (code: string) => toolCalls([{ name: 'execute', args: { code } }]);

describe('agent tools (seed 004)', () => {
  it('are listed to a client with a model, and not to one without', async () => {
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['invoke_agent', 'send_message']));
    const bare = await connectInMemory(createCodeModeServer({ spaces: [{ id: 'bare', name: 'Bare' }], space: { rootDir: project.rootDir } }));
    try {
      expect((await bare.listTools()).tools.map((t) => t.name)).not.toContain('invoke_agent');
      expect(await callTool(bare, 'invoke_agent', { message: 'hi' })).toMatchObject({ isError: true, body: { code: 'MODEL_UNAVAILABLE' } });
    } finally {
      await bare.close();
    }
  });

  it('invoke_agent answers one message in a fresh context, with events and metadata', async () => {
    model.script([execute("import { trainSchedule } from '@capabilities/trains';\nexport default (await trainSchedule.getSchedule({})).length;"), textAnswer('2 trains')]);
    const result = await client.callTool({ name: 'invoke_agent', arguments: { message: 'How many trains leave Central?' } });
    expect(result.content).toEqual([{ type: 'text', text: '2 trains' }]);
    expect(result.structuredContent).toMatchObject({ response: '2 trains', metadata: { turns: 2, code_runs: 1, capability_calls: 1 } });
    expect(codeRuns(result.structuredContent)).toMatchObject([{ ok: true, result: 2 }]);
    expect(model.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'How many trains leave Central?' });
  });

  it('send_message keeps the conversation and the sandbox state of its session, and get_session_history shows both in order', async () => {
    model.script([execute('const total = 40;\nexport default total;'), textAnswer('Noted 40.')]);
    const first = await client.callTool({ name: 'send_message', arguments: { message: 'Remember 40.', spaceId: 'other' } });
    const { sessionId } = first.structuredContent as { sessionId: string };
    expect(first.structuredContent).toMatchObject({ sessionId: expect.any(String), response: 'Noted 40.' });

    model.script([execute('export default total + 2;'), textAnswer('42')]);
    const second = await client.callTool({ name: 'send_message', arguments: { sessionId, message: 'Add 2.' } });
    expect(second.structuredContent).toMatchObject({ sessionId, response: '42' });
    expect(codeRuns(second.structuredContent)).toMatchObject([{ ok: true, result: 42 }]);
    const roles = model.requests[0]!.body.messages.map((m: { role: string }) => m.role);
    expect(roles).toEqual(['system', 'user', 'assistant', 'tool', 'assistant', 'user']);
    expect(model.requests[0]!.body.messages[1].content).toBe('Remember 40.');

    const history = await callTool(client, 'get_session_history', { sessionId });
    expect(history.body.runs).toBe(2);
    expect(history.body.history).toEqual([
      expect.objectContaining({ role: 'user', text: 'Remember 40.' }),
      expect.objectContaining({ seq: 1, code: 'const total = 40;\nexport default total;', ok: true, result: 40 }),
      expect.objectContaining({ role: 'assistant', text: 'Noted 40.' }),
      expect.objectContaining({ role: 'user', text: 'Add 2.' }),
      expect.objectContaining({ seq: 2, ok: true, result: 42 }),
      expect.objectContaining({ role: 'assistant', text: '42' }),
    ]);
    const info = await callTool(client, 'get_session_info', { sessionId });
    expect(info.body).toMatchObject({ sessionId, spaceId: 'other', runs: 2 });
    expect((await callTool(client, 'close_session', { sessionId })).body).toEqual({ sessionId, closed: true, session_id: sessionId, success: true });
    expect(await callTool(client, 'send_message', { sessionId, message: 'Still there?' })).toMatchObject({ isError: true, body: { code: 'SESSION_NOT_FOUND' } });
  });

  it('send_message refuses sessions that are not its conversations, and a space other than the session’s', async () => {
    const code = await callTool(client, 'create_session', {});
    const refused = await callTool(client, 'send_message', { sessionId: code.body.sessionId, message: 'hi' });
    expect(refused).toMatchObject({ isError: true, body: { code: 'INVALID_ARGUMENTS', data: { errors: [{ field: 'sessionId' }] } } });
    expect(await callTool(client, 'send_message', { sessionId: 'forged-id', message: 'hi' })).toMatchObject({ isError: true, body: { code: 'SESSION_NOT_FOUND' } });

    model.script([textAnswer('hello')]);
    const started = await client.callTool({ name: 'send_message', arguments: { message: 'hi' } });
    const { sessionId } = started.structuredContent as { sessionId: string };
    const wrongSpace = await callTool(client, 'send_message', { sessionId, spaceId: 'other', message: 'hi' });
    expect(wrongSpace).toMatchObject({ isError: true, body: { code: 'INVALID_ARGUMENTS', data: { errors: [{ field: 'spaceId' }] } } });
    expect(await callTool(client, 'send_message', { message: '' })).toMatchObject({ isError: true, body: { code: 'INVALID_ARGUMENTS' } });
    await callTool(client, 'close_session', { sessionId });
    await callTool(client, 'close_session', { sessionId: code.body.sessionId });
  });

  it('answers the messages of one conversation in order when they arrive together', async () => {
    model.script([textAnswer('first')]);
    const started = await client.callTool({ name: 'send_message', arguments: { message: 'one' } });
    const { sessionId } = started.structuredContent as { sessionId: string };
    model.script([textAnswer('a'), textAnswer('b')]);
    const [a, b] = await Promise.all([
      client.callTool({ name: 'send_message', arguments: { sessionId, message: 'two' } }),
      client.callTool({ name: 'send_message', arguments: { sessionId, message: 'three' } }),
    ]);
    expect([a.structuredContent, b.structuredContent]).toMatchObject([{ response: 'a' }, { response: 'b' }]);
    // The second message's request carries the whole first exchange: they were not interleaved.
    expect(model.requests[1]!.body.messages.map((m: { content: string }) => m.content).slice(1)).toEqual(['one', 'first', 'two', 'a', 'three']);
    await callTool(client, 'close_session', { sessionId });
  });

  it('applies the space’s tool permission inside conversations', async () => {
    const before = project.deletions.length;
    model.script([execute("import { vault } from '@capabilities/vault';\nexport default await vault.deleteSecrets();"), textAnswer('could not')]);
    const result = await client.callTool({ name: 'send_message', arguments: { message: 'Wipe the vault.' } });
    expect(codeRuns(result.structuredContent)).toMatchObject([{ ok: false, error: { code: 'TYPE_ERROR' } }]);
    expect(project.deletions.length).toBe(before);
    await callTool(client, 'close_session', { sessionId: (result.structuredContent as { sessionId: string }).sessionId });
  });
});
