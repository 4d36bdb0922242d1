import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModel, textAnswer, toolCalls, type ScriptedModel } from '../../server/test/support/openai-server.js';
import { createProject, type TestProject } from '../../server/test/support/project.js';
import { runCli } from '../../../test/fixtures/cli.js';

let project: TestProject;
let model: ScriptedModel;

beforeAll(async () => {
  model = await startScriptedModel();
  const config = { capabilities: ['capabilities/*.json'], model: { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL, maxRetries: 0 } };
  project = await createProject({ 'agent-spaces.config.json': JSON.stringify(config) });
});

afterAll(async () => {
  await model?.close();
  await project?.cleanup();
});

beforeEach(() => model.script([]));

describe('agent-spaces ask', () => {
  it('prints the agent’s steps live on stderr and its answer on stdout, with the config’s model', async () => {
    model.script([toolCalls([{ name: 'execute', args: { code: 'export default 6 * 7;' } }]), textAnswer('It is 42.')]);
    const { code, stdout, stderr } = await runCli(project.rootDir, ['ask', 'What is 6 times 7?']);
    expect({ code, stdout }).toEqual({ code: 0, stdout: 'It is 42.\n' });
    expect(stderr).toContain('▸ execute');
    expect(stderr).toContain('export default 6 * 7;');
    expect(stderr).toContain('✓ code ran');
    expect(model.requests[0]!.body.messages.at(-1)).toEqual({ role: 'user', content: 'What is 6 times 7?' });
    expect(model.requests[0]!.body.model).toBe('scripted');
  });

  it('takes --model and --max-turns, and prints JSON with --json; a failed run exits 1', async () => {
    model.script([toolCalls([{ name: 'execute', args: { code: 'export default 1;' } }])]);
    const { code, stdout } = await runCli(project.rootDir, ['ask', 'loop', '--model', 'other-model', '--max-turns', '2', '--json']);
    expect(code).toBe(1);
    expect(JSON.parse(stdout)).toMatchObject({ ok: false, error: { code: 'MAX_TURNS' }, turns: 2 });
    expect(model.requests.map((r) => r.body.model)).toEqual(['other-model', 'other-model']);
  });

  it.each([
    [['ask', 'hi', '--tool-permission', 'sometimes'], '--tool-permission'],
    [['ask', 'hi', '--max-turns', '0'], '--max-turns'],
    [['ask', '  '], 'message'],
    [['ask', 'hi', '--model', 'skynet:x'], 'provider'],
  ])('exits 2 on bad usage: %j', async (args, named) => {
    const { code, stderr } = await runCli(project.rootDir, args);
    expect(code).toBe(2);
    expect(stderr).toContain(named);
    expect(model.requests).toHaveLength(0);
  });

  it('checks the model once with the flags applied; a bad server setting is a config error naming its key (strict files)', async () => {
    const bad = await createProject({ 'agent-spaces.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'], server: { port: 'nope' } }) });
    const other = await createProject({ 'agent-spaces.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'], server: { port: 4000 } }) });
    try {
      const refused = await runCli(bad.rootDir, ['ask', 'hi', '--model', 'openai-compatible:scripted', '--base-url', model.baseURL]);
      expect(refused.code).not.toBe(0);
      expect(refused.stderr).toContain('CONFIG_INVALID');
      expect(refused.stderr).toContain('server.port');
      model.script([textAnswer('Hello.')]);
      const flagged = await runCli(other.rootDir, ['ask', 'hi', '--model', 'openai-compatible:scripted', '--base-url', model.baseURL]);
      expect({ code: flagged.code, stdout: flagged.stdout }).toEqual({ code: 0, stdout: 'Hello.\n' });
      const unset = await runCli(other.rootDir, ['ask', 'hi', '--model', 'openai-compatible:scripted']);
      expect(unset.code).toBe(2);
      expect(unset.stderr).toContain('model.baseURL is required');
      expect(model.requests).toHaveLength(1);
    } finally {
      await Promise.all([bad.cleanup(), other.cleanup()]);
    }
  });
});
