import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ModelSettings } from '@agent-spaces/sdk';
import { parseServerConfig, type SpaceDefinition } from '../src/config.js';
import { createCodeModeServer } from '../src/server.js';
import { callTool, connectInMemory } from './support/client.js';
import { startScriptedModel, textAnswer, toolCalls, type ScriptedModel } from './support/openai-server.js';
import { createProject, type TestProject } from './support/project.js';
import { BOOK_FLIGHT } from '../../../test/fixtures/book-flight.js';

const KEY_VAR = 'AGENT_SPACES_TEST_MODEL_KEY';
const KEY = 'sk-test-secret-0123456789';


const SCHEDULE_CODE = "import { trainSchedule } from '@capabilities/trains';\nexport default await trainSchedule.getSchedule({ station: 'Central' });";

let project: TestProject;
let model: ScriptedModel;
let client: Client;

function settings(extra: Partial<ModelSettings> = {}): ModelSettings {
  return { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL, apiKey: `\${${KEY_VAR}}`, maxRetries: 0, ...extra };
}

beforeAll(async () => {
  process.env[KEY_VAR] = KEY;
  [project, model] = await Promise.all([createProject(), startScriptedModel()]);
  const spaces: SpaceDefinition[] = [
    {
      id: 'travel',
      name: 'Travel',
      systemPrompt: 'You book travel.',
      tools: [BOOK_FLIGHT, { ...BOOK_FLIGHT, name: 'short_flight', maxTurns: 2 }],
    },
    { id: 'slow', name: 'Slow', model: settings({ timeoutSeconds: 0.3 }), tools: [{ ...BOOK_FLIGHT, name: 'slow_flight' }] },
    { id: 'unset', name: 'Unset', model: settings({ apiKey: '${AGENT_SPACES_TEST_UNSET_VAR}' }), tools: [{ ...BOOK_FLIGHT, name: 'unset_flight' }] },
    { id: 'trusted', name: 'Trusted', toolPermission: 'never', tools: [{ ...BOOK_FLIGHT, name: 'trusted_flight' }] },
    { id: 'sealed', name: 'Sealed', toolPermission: 'always', tools: [{ ...BOOK_FLIGHT, name: 'sealed_flight' }] },
  ];
  const policies = { rules: { 'trains.getTrainDetails': [{ then: 'deny' as const }] } };
  client = await connectInMemory(
    createCodeModeServer({ spaces, model: settings(), space: { rootDir: project.rootDir, handlers: project.handlers, policies } }),
  );
});

afterAll(async () => {
  await client?.close();
  await model?.close();
  await project?.cleanup();
});

beforeEach(() => model.script([]));

async function call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
  return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

const PARIS = { destination: 'Paris, France', departure_date: '2026-12-01' };

/** The code runs among an agent run's events (seed 004's tool_call, tool_response and agent_message aside). */
const codeRuns = (content: unknown): unknown[] => (content as { events: Array<{ type: string }> }).events.filter((e) => e.type === 'code_run');

describe('prompt tools answered by a configured model', () => {
  it('run seed 000’s book_flight verbatim: filled prompt to the model, its code in the space, the answer with events and metadata', async () => {
    model.script([toolCalls([{ name: 'execute', args: { code: SCHEDULE_CODE } }]), textAnswer('Booked IC 1 to Paris.')]);
    const result = await call('book_flight', PARIS);
    expect(result.isError).toBeFalsy();
    expect(result.content).toEqual([{ type: 'text', text: 'Booked IC 1 to Paris.' }]);
    expect(result.structuredContent).toMatchObject({
      response: 'Booked IC 1 to Paris.',
      metadata: { turns: 2, tool_calls: 1, code_runs: 1, capability_calls: 1, tokens_used: 120 + 160 },
    });
    expect(codeRuns(result.structuredContent)).toMatchObject([
      {
        type: 'code_run',
        code: SCHEDULE_CODE,
        ok: true,
        result: [expect.objectContaining({ id: 'IC 1' }), expect.objectContaining({ id: 'IC 2' })],
        capability_calls: [expect.objectContaining({ capability: 'trains', function: 'getSchedule', ok: true, params: { station: 'Central' } })],
      },
    ]);
    expect((result.structuredContent as { events: Array<{ type: string }> }).events.map((e) => e.type)).toEqual(['tool_call', 'code_run', 'tool_response', 'agent_message']);
    const [first, second] = model.requests;
    expect(first!.headers.authorization).toBe(`Bearer ${KEY}`);
    expect(first!.body.messages[0]).toMatchObject({ role: 'system', content: expect.stringContaining('You are now working in the space "Travel"') });
    expect(first!.body.messages[0].content).toContain('You book travel.');
    expect(first!.body.messages[1]).toEqual({
      role: 'user',
      content: 'The user wants to book a flight to Paris, France on 2026-12-01, please book accordingly',
    });
    expect(first!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['execute', 'search_capabilities', 'describe_capabilities']);
    const toolMessage = second!.body.messages.find((m: { role: string }) => m.role === 'tool');
    expect(JSON.parse(toolMessage.content)).toMatchObject({ result: [{ id: 'IC 1' }, { id: 'IC 2' }], metadata: { capability_calls: 1 } });
  });

  it('feed search, describe and failing code back to the model, and count only code runs as events', async () => {
    model.script([
      toolCalls([
        { name: 'search_capabilities', args: { query: 'train schedule' } },
        { name: 'describe_capabilities', args: { capability: 'trains' } },
      ]),
      toolCalls([{ name: 'execute', args: { code: 'const n: number = "x"; export default n;' } }]),
      textAnswer('Could not book.'),
    ]);
    const result = await call('book_flight', PARIS);
    expect(result.structuredContent).toMatchObject({
      response: 'Could not book.',
      metadata: { turns: 3, code_runs: 1, capability_calls: 0 },
    });
    expect(codeRuns(result.structuredContent)).toMatchObject([{ type: 'code_run', ok: false, error: { code: 'TYPE_ERROR' }, capability_calls: [] }]);
    const results = model.requests[1]!.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => m.content);
    expect(results[0]).toContain('getSchedule');
    expect(results[1]).toContain('// @capabilities/trains');
    expect(model.requests[2]!.body.messages.at(-1).content).toContain('TYPE_ERROR');
  });

  it('answer hostile tool calls (unknown tool, wrong arguments, bad JSON) with error outputs, not a crash', async () => {
    model.script([
      toolCalls([
        { name: 'delete_everything', args: {} },
        { name: 'execute', args: { code: 42 } },
        { name: 'search_capabilities', args: { query: ['x'] } },
        { name: 'describe_capabilities', args: { capability: 'nope' } },
      ]),
      textAnswer('done'),
    ]);
    const result = await call('book_flight', PARIS);
    expect(result.structuredContent).toMatchObject({ response: 'done', metadata: { code_runs: 0 } });
    const outputs = model.requests[1]!.body.messages.filter((m: { role: string }) => m.role === 'tool').map((m: { content: string }) => JSON.parse(m.content).code);
    expect(outputs).toEqual(['TOOL_NOT_FOUND', 'INVALID_ARGUMENTS', 'INVALID_ARGUMENTS', 'CAPABILITY_NOT_FOUND']);
  });

  it('fill the template once: argument values holding {placeholders} stay as written', async () => {
    model.script([textAnswer('ok')]);
    await call('book_flight', { destination: '{departure_date} {name}', departure_date: '{destination}' });
    expect(model.requests[0]!.body.messages[1].content).toBe(
      'The user wants to book a flight to {departure_date} {name} on {destination}, please book accordingly',
    );
  });

  it('end a run with MAX_TURNS and the transcript so far', async () => {
    model.script([toolCalls([{ name: 'execute', args: { code: 'export default 1;' } }])]);
    const answer = await callTool(client, 'short_flight', PARIS);
    expect(answer).toMatchObject({ isError: true, body: { code: 'MAX_TURNS', data: { maxTurns: 2 }, metadata: { turns: 2, code_runs: 2 } } });
    expect(codeRuns(answer.body)).toHaveLength(2);
    expect(answer.body.transcript.map((m: { role: string }) => m.role)).toEqual(['user', 'assistant', 'tool', 'assistant', 'tool']);
    expect(model.requests).toHaveLength(2);
  });

  it('report a 401 as MODEL_ERROR with the status and without the API key', async () => {
    model.script([{ status: 401, body: { error: { message: `Incorrect API key provided: ${KEY}`, type: 'invalid_request_error' } } }]);
    const answer = await callTool(client, 'book_flight', PARIS);
    expect(answer).toMatchObject({ isError: true, body: { code: 'MODEL_ERROR', data: { status: 401 } } });
    expect(answer.text).not.toContain(KEY);
    expect(answer.text).toContain(`[REDACTED:${KEY_VAR}]`);
  });

  it('report a 500 as MODEL_ERROR after the configured retries (none here)', async () => {
    model.script([{ status: 500, body: { error: { message: 'upstream exploded' } } }]);
    const answer = await callTool(client, 'book_flight', PARIS);
    expect(answer).toMatchObject({ isError: true, body: { code: 'MODEL_ERROR', data: { status: 500 } } });
    expect(model.requests).toHaveLength(1);
  });

  it('report a model that does not answer in time as MODEL_ERROR with reason timeout', async () => {
    model.script([{ hang: true }]);
    const answer = await callTool(client, 'slow_flight', PARIS);
    expect(answer).toMatchObject({ isError: true, body: { code: 'MODEL_ERROR', data: { reason: 'timeout' } } });
  });

  it('report an API key variable that is not set as MODEL_UNAVAILABLE naming it', async () => {
    const answer = await callTool(client, 'unset_flight', PARIS);
    expect(answer).toMatchObject({ isError: true, body: { code: 'MODEL_UNAVAILABLE', data: { variable: 'AGENT_SPACES_TEST_UNSET_VAR' } } });
    expect(model.requests).toHaveLength(0);
  });

  it('validate the arguments before any model turn', async () => {
    const answer = await callTool(client, 'book_flight', { destination: 'Paris' });
    expect(answer).toMatchObject({ isError: true, body: { code: 'INVALID_ARGUMENTS' } });
    expect(model.requests).toHaveLength(0);
  });
});

describe('prompt tools without a model', () => {
  it('fail with MODEL_UNAVAILABLE naming sampling and the model config', async () => {
    const bare = await connectInMemory(
      createCodeModeServer({ spaces: [{ id: 'bare', name: 'Bare', tools: [BOOK_FLIGHT] }], space: { rootDir: project.rootDir, handlers: project.handlers } }),
    );
    try {
      const answer = await callTool(bare, 'book_flight', PARIS);
      expect(answer).toMatchObject({ isError: true, body: { code: 'MODEL_UNAVAILABLE' } });
      expect(answer.body.message).toMatch(/sampling/);
      expect(answer.body.message).toMatch(/"model"/);
    } finally {
      await bare.close();
    }
  });
});

describe('prompt tool and model config', () => {
  const space = (tool: Record<string, unknown>, extra: Record<string, unknown> = {}) => ({ spaces: [{ id: 's', name: 'S', tools: [tool], ...extra }] });
  const base = { name: 't', description: 'd', parameters: { type: 'object' } };
  const invalid = (value: unknown) => {
    try {
      parseServerConfig(value, 'agent-spaces.config.json');
    } catch (error) {
      return error as { code: string; data: { key: string } };
    }
    throw new Error('expected CONFIG_INVALID');
  };

  it('accept seed 000’s tool with prompt, a top-level model and a space’s model and toolPermission', () => {
    const config = parseServerConfig(
      {
        model: { provider: 'openai', model: 'gpt-4.1-mini', apiKey: '${OPENAI_API_KEY}' },
        spaces: [{ id: 's', name: 'S', tools: [BOOK_FLIGHT], model: { provider: 'anthropic', model: 'claude-sonnet-4-5' }, toolPermission: 'never' }],
      },
      'agent-spaces.config.json',
    );
    expect(config.model).toEqual({ provider: 'openai', model: 'gpt-4.1-mini', apiKey: '${OPENAI_API_KEY}' });
    expect(config.spaces[0]).toMatchObject({ tools: [BOOK_FLIGHT], toolPermission: 'never', model: { provider: 'anthropic' } });
  });

  it.each([
    ['both code and prompt', space({ ...base, code: 'return 1', prompt: 'p' }), 'spaces[0].tools[0]'],
    ['neither code nor prompt', space(base), 'spaces[0].tools[0]'],
    ['an empty prompt', space({ ...base, prompt: '' }), 'spaces[0].tools[0].prompt'],
    ['maxTurns on a code tool', space({ ...base, code: 'return 1', maxTurns: 3 }), 'spaces[0].tools[0].maxTurns'],
    ['maxTurns 0', space({ ...base, prompt: 'p', maxTurns: 0 }), 'spaces[0].tools[0].maxTurns'],
    ['an unknown provider', { model: { provider: 'skynet', model: 'x' } }, 'model.provider'],
    ['openai-compatible without baseURL', { model: { provider: 'openai-compatible', model: 'x' } }, 'model.baseURL'],
    ['a baseURL that is not http(s)', { model: { provider: 'openai', model: 'x', baseURL: 'file:///etc/passwd' } }, 'model.baseURL'],
    ['an unknown model key', { model: { provider: 'openai', model: 'x', temperature: 2 } }, 'model.temperature'],
    ['a model that is not an object', { model: 'gpt' }, 'model'],
    ['an unknown toolPermission', space({ ...base, prompt: 'p' }, { toolPermission: 'sometimes' }), 'spaces[0].toolPermission'],
    ['a space model without a name', space({ ...base, prompt: 'p' }, { model: { provider: 'openai' } }), 'spaces[0].model.model'],
  ])('reject %s with CONFIG_INVALID naming the field', (_label, value, key) => {
    expect(invalid(value)).toMatchObject({ code: 'CONFIG_INVALID', data: { key } });
  });
});

/** Runs `tool` with a model that makes `calls` and then answers; returns the structured content and the model's requests. */
async function runScripted(tool: string, calls: Array<{ name: string; args: unknown }>) {
  model.script([...calls.map((c) => toolCalls([c])), textAnswer('done')]);
  const result = await call(tool, PARIS);
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- seed 004's structured content, read field by field
  return { content: result.structuredContent as any, requests: model.requests };
}

const DELETE = "import { vault } from '@capabilities/vault';\nexport default await vault.deleteSecrets();";
const DELETE_UNTYPED = "import { vault } from '@capabilities/vault';\nexport default await (vault as any).deleteSecrets();";
const DENIED = "import { trainSchedule } from '@capabilities/trains';\nexport default await trainSchedule.getTrainDetails({ trainId: 'IC 1' });";

describe('headless permission (toolPermission)', () => {
  it('tool (the default): gated functions are left out of the prompt, search, declarations and typecheck, and refused if called', async () => {
    const before = project.deletions.length;
    const { content, requests } = await runScripted('book_flight', [
      { name: 'search_capabilities', args: { query: 'delete secrets vault' } },
      { name: 'describe_capabilities', args: { capability: 'vault' } },
      { name: 'execute', args: { code: DELETE } },
      { name: 'execute', args: { code: DELETE_UNTYPED } },
      { name: 'execute', args: { code: SCHEDULE_CODE } },
    ]);
    const system: string = requests[0]!.body.messages[0].content;
    expect(system).toContain('getSchedule');
    expect(system).not.toContain('deleteSecrets');
    const outputs = requests.slice(1).map((r) => r.body.messages.at(-1).content as string);
    expect(outputs[0]).not.toContain('deleteSecrets');
    expect(outputs[1]).toContain('// @capabilities/vault');
    expect(outputs[1]).not.toContain('deleteSecrets');
    expect(codeRuns(content)).toMatchObject([
      { ok: false, error: { code: 'TYPE_ERROR' }, capability_calls: [] },
      { ok: false, capability_calls: [{ function: 'deleteSecrets', ok: false, error: { code: 'FUNCTION_NOT_FOUND' } }] },
      { ok: true },
    ]);
    expect(project.deletions.length).toBe(before);
  });

  it('never: gated functions run without asking anyone, and deny rules still deny', async () => {
    const before = project.deletions.length;
    const { content, requests } = await runScripted('trusted_flight', [
      { name: 'execute', args: { code: DELETE } },
      { name: 'execute', args: { code: DENIED } },
    ]);
    expect(requests[0]!.body.messages[0].content).toContain('deleteSecrets');
    expect(codeRuns(content)).toMatchObject([
      { ok: true, result: { deleted: 3 } },
      { ok: false, error: { code: 'SCRIPT_ERROR' }, capability_calls: [{ function: 'getTrainDetails', ok: false, error: { code: 'POLICY_DENIED' } }] },
    ]);
    expect(project.deletions.length).toBe(before + 1);
  });

  it('always: no capability functions at all, computation only', async () => {
    const { content, requests } = await runScripted('sealed_flight', [
      { name: 'execute', args: { code: SCHEDULE_CODE } },
      { name: 'execute', args: { code: "import { trainSchedule } from '@capabilities/trains';\nexport default await (trainSchedule as any).getSchedule({});" } },
      { name: 'execute', args: { code: 'export default [1, 2, 3].map((n) => n * 2);' } },
    ]);
    const system: string = requests[0]!.body.messages[0].content;
    expect(system).not.toContain('getSchedule');
    expect(system).not.toContain('deleteSecrets');
    expect(codeRuns(content)).toMatchObject([
      { ok: false, error: { code: 'TYPE_ERROR' } },
      { ok: false, capability_calls: [{ function: 'getSchedule', ok: false, error: { code: 'FUNCTION_NOT_FOUND' } }] },
      { ok: true, result: [2, 4, 6] },
    ]);
  });

  it('leaves the MCP client’s own tools untouched: execute still sees every function', async () => {
    const answer = await callTool(client, 'describe_capabilities', { capability: 'vault' });
    expect(answer.text).toContain('deleteSecrets');
  });
});
