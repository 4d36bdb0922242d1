import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createSpace, parseModel, spaceTool, type AgentEvent, type ModelSettings, type Space } from '@agent-spaces/sdk';
import { startScriptedModel, textAnswer, toolCalls, type ScriptedModel } from '../../server/test/support/openai-server.js';
import { createProject, type TestProject } from '../../server/test/support/project.js';

let project: TestProject;
let model: ScriptedModel;
let space: Space;
let settings: ModelSettings;

beforeAll(async () => {
  [project, model] = await Promise.all([createProject(), startScriptedModel()]);
  settings = { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL, maxRetries: 0 };
  space = await createSpace({ rootDir: project.rootDir, handlers: project.handlers, isolation: 'in-process' });
});

afterAll(async () => {
  await space?.close();
  await model?.close();
  await project?.cleanup();
});

beforeEach(() => model.script([]));

const SCHEDULE = "import { trainSchedule } from '@capabilities/trains';\nexport default (await trainSchedule.getSchedule({})).length;";
const DELETE = "import { vault } from '@capabilities/vault';\nexport default await vault.deleteSecrets();";
const execute = (code: string) => toolCalls([{ name: 'execute', args: { code } }]);

describe('space.ask()', () => {
  it('runs an agent that writes code in the space, streaming agentMessage, codeRun and capability events', async () => {
    model.script([execute(SCHEDULE), textAnswer('2 trains.')]);
    const seen: AgentEvent[] = [];
    const run = space.ask('How many trains?', { model: settings, onEvent: (e) => seen.push(e) });
    const streamed: string[] = [];
    for await (const event of run) streamed.push(event.type);
    const result = await run;
    expect(result).toMatchObject({ ok: true, text: '2 trains.', turns: 2, usage: { tokens: 120 + 160 } });
    expect(streamed).toEqual(expect.arrayContaining(['agentMessage', 'capabilityCall', 'capabilityResult', 'codeRun']));
    const order = streamed.filter((t) => t === 'agentMessage' || t === 'codeRun' || t === 'capabilityCall');
    expect(order).toEqual(['agentMessage', 'capabilityCall', 'codeRun', 'agentMessage']);
    expect(seen.find((e) => e.type === 'codeRun')).toMatchObject({ ok: true, result: 2, runId: run.id });
    const system: string = model.requests[0]!.body.messages[0].content;
    expect(system).toContain("declare module '@capabilities/trains'");
    expect(model.requests[0]!.body.tools.map((t: { function: { name: string } }) => t.function.name)).toEqual(['execute']);
  });

  it('hides gated functions by default (tool), runs them without asking with never, and offers none with always', async () => {
    const before = project.deletions.length;
    model.script([execute(DELETE), textAnswer('no')]);
    const tool = await space.ask('Wipe the vault', { model: settings, onEvent: () => undefined });
    expect(model.requests[0]!.body.messages[0].content).not.toContain('deleteSecrets');
    expect(tool.messages.find((m) => m.role === 'tool')).toMatchObject({ results: [{ isError: true, output: expect.stringContaining('TYPE_ERROR') }] });

    model.script([execute(DELETE), textAnswer('wiped')]);
    const never = await space.ask('Wipe the vault', { model: settings, toolPermission: 'never' });
    expect(never).toMatchObject({ ok: true, text: 'wiped' });
    expect(project.deletions.length).toBe(before + 1);

    model.script([execute(SCHEDULE), textAnswer('none')]);
    const always = await space.ask('Trains?', { model: settings, toolPermission: 'always' });
    expect(model.requests[0]!.body.messages[0].content).not.toContain('getSchedule');
    expect(always.messages.find((m) => m.role === 'tool')).toMatchObject({ results: [{ isError: true, output: expect.stringContaining('TYPE_ERROR') }] });
  });

  it('never asks a person: a call a rule sends to approval is denied in a tool run and approved in a never run, without the space\'s onApproval', async () => {
    const asked: string[] = [];
    const gated = await createSpace({
      rootDir: project.rootDir,
      handlers: project.handlers,
      isolation: 'in-process',
      policies: { rules: { 'trains.getSchedule': 'ask' } },
      onApproval: (request) => (asked.push(request.function), true),
    });
    try {
      const runs: AgentEvent[] = [];
      model.script([execute(SCHEDULE), textAnswer('denied')]);
      await gated.ask('How many trains?', { model: settings, onEvent: (e) => runs.push(e) });
      expect(runs.find((e) => e.type === 'capabilityResult')).toMatchObject({ ok: false, error: { code: 'APPROVAL_DENIED', data: { by: 'toolPermission: tool' } } });
      expect(runs.find((e) => e.type === 'codeRun')).toMatchObject({ ok: false });

      runs.length = 0;
      model.script([execute(SCHEDULE), textAnswer('2')]);
      await gated.ask('How many trains?', { model: settings, toolPermission: 'never', onEvent: (e) => runs.push(e) });
      expect(runs.find((e) => e.type === 'codeRun')).toMatchObject({ ok: true, result: 2 });
      expect(asked).toEqual([]);
    } finally {
      await gated.close();
    }
  });

  it('refuses an openai-compatible model without baseURL (MODEL_UNAVAILABLE) before any request', async () => {
    const result = await space.ask('hi', { model: { provider: 'openai-compatible', model: 'scripted', apiKey: 'sk-secret' } });
    expect(result).toMatchObject({ ok: false, error: { code: 'MODEL_UNAVAILABLE', data: { key: 'model.baseURL' } }, turns: 0 });
    expect(model.requests).toHaveLength(0);
  });

  it('ends with MODEL_UNAVAILABLE without a model, MAX_TURNS past maxTurns, and MODEL_ERROR on a 401', async () => {
    expect(await space.ask('hi')).toMatchObject({ ok: false, error: { code: 'MODEL_UNAVAILABLE' }, turns: 0 });
    model.script([execute('export default 1;')]);
    expect(await space.ask('loop', { model: settings, maxTurns: 2 })).toMatchObject({ ok: false, error: { code: 'MAX_TURNS' }, turns: 2 });
    model.script([{ status: 401, body: { error: { message: 'bad key' } } }]);
    expect(await space.ask('hi', { model: settings })).toMatchObject({ ok: false, error: { code: 'MODEL_ERROR', data: { status: 401 } } });
  });
});

describe('spaceTool()', () => {
  it('is one AI SDK tool: the space prompt as description, code in, the typechecked and policy-gated run out', async () => {
    const tool = await spaceTool(space);
    expect(tool.description).toContain("declare module '@capabilities/vault'");
    const options = { toolCallId: 't1', messages: [] };
    expect(await tool.execute!({ code: SCHEDULE }, options)).toEqual({ ok: true, result: 2, logs: [] });
    expect(await tool.execute!({ code: 'const n: number = "x"; export default n;' }, options)).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
    expect(await tool.execute!({ code: DELETE }, options)).toMatchObject({ ok: false, error: { code: 'SCRIPT_ERROR' } });
  });
});

describe('parseModel()', () => {
  it('returns checked model settings and refuses bad ones with CONFIG_INVALID naming the file and the key', () => {
    const good = { provider: 'openai-compatible', model: 'qwen3', baseURL: 'http://127.0.0.1:11434/v1', apiKey: '${KEY}', timeoutSeconds: 5, maxRetries: 0 };
    expect(parseModel(good)).toEqual(good);
    expect(parseModel({ provider: 'openai', model: 'gpt' }, 'spaces[0].model', 'f.json')).toEqual({ provider: 'openai', model: 'gpt' });
    const bad: Array<[unknown, string]> = [
      ['qwen3', 'model'],
      [null, 'model'],
      [[good], 'model'],
      [{ ...good, temperature: 1 }, 'model.temperature'],
      [{ ...good, provider: 'skynet' }, 'model.provider'],
      [{ ...good, model: '' }, 'model.model'],
      [{ ...good, baseURL: undefined }, 'model.baseURL'],
      [{ ...good, baseURL: 'file:///etc/passwd' }, 'model.baseURL'],
      [{ ...good, baseURL: 7 }, 'model.baseURL'],
      [{ ...good, apiKey: 42 }, 'model.apiKey'],
      [{ ...good, timeoutSeconds: 0 }, 'model.timeoutSeconds'],
      [{ ...good, timeoutSeconds: Infinity }, 'model.timeoutSeconds'],
      [{ ...good, maxRetries: 11 }, 'model.maxRetries'],
      [{ ...good, maxRetries: 1.5 }, 'model.maxRetries'],
    ];
    for (const [value, key] of bad) {
      expect(() => parseModel(value, 'model', 'f.json'), key).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', data: { file: 'f.json', key } }));
    }
  });
});
