import { mkdtemp, mkdir, rm, symlink, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CreateMessageRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { callTool, newClient } from './support/client.js';
import { startScriptedModel, textAnswer, toolCalls, type ScriptedModel } from './support/openai-server.js';
import { createProject, type TestProject } from './support/project.js';
import { HttpServe } from './support/serve.js';

// Seed 004's and seed 001's examples as written, against a real `agent-spaces mcp serve` over HTTP with the official SDK
// client; the model is the scripted OpenAI-compatible stand-in (or the client's own, through sampling).

const CODE_REVIEWER_YAML = [
  'name: Code Reviewer',
  'description: Reviews code for bugs and edge cases',
  'systemPrompt: You review code. Point out bugs and edge cases.',
  'capabilities: [trains]',
  'toolPermission: tool',
  '',
].join('\n');
const ECHO_AGENT = { name: 'Echo Agent', description: 'Repeats what it is told', systemPrompt: 'Echo the user.' };
const CONFIG_SPACES = [
  {
    id: 'agent-1',
    name: 'Code Wizard',
    systemPrompt: 'You are a concise coding assistant.',
    skills: [
      { id: 'ts-expert', name: 'TypeScript Expert', description: 'Prefer strict types.', enabled: true },
      { id: 'off', name: 'Disabled Skill', description: 'Never shown.', enabled: false },
    ],
  },
  {
    id: 'agent-2',
    name: 'Documentation Pro',
    systemPrompt: 'You write documentation.',
    skills: [{ id: 'test-driven', name: 'Test-Driven', description: 'Write tests first.', enabled: true }],
  },
];

let project: TestProject;
let model: ScriptedModel;
let serve: HttpServe;
let client: Client;
let outside: string;

const execute = (code: string) => toolCalls([{ name: 'execute', args: { code } }]);
const systemOf = (i: number): string => model.requests[i]!.body.messages[0].content;

beforeAll(async () => {
  [project, model] = await Promise.all([createProject(), startScriptedModel()]);
  outside = await mkdtemp(join(tmpdir(), 'agent-outside-'));
  await writeFile(join(outside, 'secret.json'), JSON.stringify({ name: 'Outside', systemPrompt: 'stolen' }));
  const config = {
    capabilities: ['capabilities/*.json'],
    model: { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL, maxRetries: 0 },
    spaces: CONFIG_SPACES,
  };
  await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify(config));
  const agents = join(project.rootDir, 'agent-files');
  await mkdir(agents);
  await mkdir(join(project.rootDir, 'more-agents'));
  await writeFile(join(agents, 'code-reviewer.yaml'), CODE_REVIEWER_YAML);
  await writeFile(join(agents, 'echo-agent.json'), JSON.stringify(ECHO_AGENT));
  await writeFile(join(agents, 'broken.json'), JSON.stringify({ name: 'Broken', skills: 'all of them' }));
  await symlink(join(outside, 'secret.json'), join(agents, 'escape.json'));
  await symlink(outside, join(project.rootDir, 'linked-out'));
  await writeFile(join(project.rootDir, 'more-agents', 'helper.yml'), 'name: Helper\nsystemPrompt: You help from another folder.\n');
  serve = new HttpServe(project.rootDir, {});
  client = newClient();
  await client.connect(new StreamableHTTPClientTransport(new URL(await serve.url())));
}, 120_000);

afterAll(async () => {
  await client?.close();
  await serve?.stop();
  await model?.close();
  await project?.cleanup();
  if (outside) await rm(outside, { recursive: true, force: true });
});

beforeEach(() => model.script([]));

describe('seed 004, usage examples as written', () => {
  it('list_agents lists the config\'s spaces and the agent files, and names the file and field of a bad one', async () => {
    const { body } = await callTool(client, 'list_agents');
    expect(body.agents).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: 'agent-1', name: 'Code Wizard', source: 'config' }),
        expect.objectContaining({ id: 'code-reviewer', name: 'Code Reviewer', description: 'Reviews code for bugs and edge cases', file: 'agent-files/code-reviewer.yaml', source: 'agent_file' }),
        expect.objectContaining({ id: 'echo-agent', name: 'Echo Agent', file: 'agent-files/echo-agent.json' }),
      ]),
    );
    expect(body.agents.map((a: { id: string }) => a.id)).not.toContain('broken');
    expect(body.problems).toEqual(
      expect.arrayContaining([
        { file: 'agent-files/broken.json', code: 'CONFIG_INVALID', message: expect.stringContaining('agent-files/broken.json: skills must be an array') },
        { file: 'agent-files/escape.json', code: 'CONFIG_INVALID', message: expect.stringContaining('outside the project') },
      ]),
    );
    expect(serve.stderr).toContain('agent_file.invalid');
  });

  it('create_session with agent_file, two send_message calls keeping context, get_session_info, close_session', async () => {
    const session = await callTool(client, 'create_session', { agent_file: 'agent-files/code-reviewer.yaml', session_name: 'review' });
    expect(session.isError).toBe(false);
    const { session_id } = session.body as { session_id: string };
    expect(session.body).toMatchObject({ sessionId: session_id, agent: 'code-reviewer', session_name: 'review', message_count: 0 });

    model.script([execute('const rate = 0.25;\nexport default rate;'), textAnswer('It ignores brackets.')]);
    const review = await client.callTool({
      name: 'send_message',
      arguments: { session_id, message: 'Please review this Python function: def calculate_tax(income): return income * 0.25' },
    });
    expect(review.structuredContent).toMatchObject({ session_id, sessionId: session_id, response: 'It ignores brackets.' });
    expect(systemOf(0)).toContain('You review code. Point out bugs and edge cases.');

    model.script([execute('export default rate * 2;'), textAnswer('Negative income gives a negative tax.')]);
    const followup = await client.callTool({ name: 'send_message', arguments: { session_id, message: 'What about edge cases for negative income?' } });
    expect(followup.structuredContent).toMatchObject({ response: 'Negative income gives a negative tax.', events: expect.arrayContaining([expect.objectContaining({ type: 'code_run', ok: true, result: 0.5 })]) });
    const contents = model.requests[0]!.body.messages.map((m: { content: unknown }) => m.content);
    expect(contents).toEqual(expect.arrayContaining([expect.stringContaining('calculate_tax'), 'It ignores brackets.', 'What about edge cases for negative income?']));

    const info = await callTool(client, 'get_session_info', { session_id });
    expect(info.body).toMatchObject({ session_id, agent: 'code-reviewer', agent_file: 'agent-files/code-reviewer.yaml', message_count: 4, created: expect.stringMatching(/^\d{4}-/) });
    const listed = (await callTool(client, 'list_sessions')).body.sessions as Array<{ session_id: string }>;
    expect(listed.find((x) => x.session_id === session_id)).toMatchObject({ agent: 'code-reviewer', message_count: 4, session_name: 'review' });
    expect((await callTool(client, 'close_session', { session_id })).body).toMatchObject({ success: true, session_id });
    expect(await callTool(client, 'get_session_info', { session_id })).toMatchObject({ isError: true, body: { error: true, code: 'SESSION_NOT_FOUND' } });
  });

  it('invoke_agent with agent_file answers with seed 004\'s events and metadata', async () => {
    model.script([execute('export default "Hello world";'), textAnswer('Hello world')]);
    const result = await client.callTool({ name: 'invoke_agent', arguments: { agent_file: 'agent-files/echo-agent.json', message: 'Hello world' } });
    expect(result.structuredContent).toMatchObject({ response: 'Hello world', metadata: { tool_calls: 1, code_runs: 1, tokens_used: 280 } });
    const events = (result.structuredContent as { events: Array<{ type: string }> }).events;
    expect(events.map((e) => e.type)).toEqual(['tool_call', 'code_run', 'tool_response', 'agent_message']);
    expect(events[0]).toMatchObject({ type: 'tool_call', tool: 'execute', args: { code: 'export default "Hello world";' } });
    expect(events.at(-1)).toEqual({ type: 'agent_message', content: 'Hello world' });
    expect((result.structuredContent as { metadata: object }).metadata).not.toHaveProperty('tokens_estimated');
    expect(systemOf(0)).toContain('Echo the user.');
  });

  it('invoke_agent with an agent file of another folder of the project reads it', async () => {
    model.script([textAnswer('Helped.')]);
    const listed = await callTool(client, 'list_agents', { directory: 'more-agents' });
    expect(listed.body.agents).toEqual([expect.objectContaining({ id: 'helper', name: 'Helper', file: 'more-agents/helper.yml', served: false })]);
    const result = await client.callTool({ name: 'invoke_agent', arguments: { agent_file: 'more-agents/helper.yml', message: 'Help' } });
    expect(result.structuredContent).toMatchObject({ response: 'Helped.' });
    expect(systemOf(0)).toContain('You help from another folder.');
  });

  it('invoke_with_config runs an inline agent checked like an agent file', async () => {
    model.script([textAnswer('Brief.')]);
    const config = { name: 'Inline Agent', systemPrompt: 'Be brief.', capabilities: ['trains'] };
    const result = await client.callTool({ name: 'invoke_with_config', arguments: { config, message: 'Say something' } });
    expect(result.structuredContent).toMatchObject({ response: 'Brief.' });
    expect(systemOf(0)).toContain('Be brief.');
    const bad: Array<[Record<string, unknown>, string, RegExp]> = [
      [{ ...config, model: { provider: 'openai-compatible', model: 'x', baseURL: 'http://169.254.169.254/v1' } }, 'INVALID_ARGUMENTS', /config\.model/],
      [{ ...config, skills: 'all' }, 'CONFIG_INVALID', /config: skills must be an array/],
      [{ ...config, unknownKey: 1 }, 'CONFIG_INVALID', /unknownKey is not a known key/],
      [{ ...config, systemPrompt: 'x'.repeat(70_000) }, 'INVALID_ARGUMENTS', /larger than 65536 bytes/],
      [{ ...config, tools: [] }, 'INVALID_ARGUMENTS', /config\.tools/],
      [{ ...config, capabilities: ['not-built'] }, '', /not-built/],
    ];
    for (const [inline, code, message] of bad) {
      const answer = await callTool(client, 'invoke_with_config', { config: inline, message: 'x' });
      expect(answer.isError, JSON.stringify(inline).slice(0, 80)).toBe(true);
      if (code) expect(answer.body.code).toBe(code);
      expect(answer.body.message).toMatch(message);
    }
  });

  it('transfer_session hands the conversation to another agent, which answers with its history', async () => {
    model.script([textAnswer('Reviewed.')]);
    const first = await client.callTool({ name: 'send_message', arguments: { agent_file: 'agent-files/code-reviewer.yaml', message: 'Review x = 1' } });
    const { session_id } = first.structuredContent as { session_id: string };
    const moved = await callTool(client, 'transfer_session', { session_id, target_agent: 'echo-agent' });
    expect(moved.body).toMatchObject({ success: true, session_id, agent: 'Echo Agent', previousSpaceId: 'code-reviewer' });
    model.script([textAnswer('Echo: Review x = 1')]);
    const second = await client.callTool({ name: 'send_message', arguments: { session_id, message: 'Repeat what I asked' } });
    expect(second.structuredContent).toMatchObject({ response: 'Echo: Review x = 1' });
    expect(systemOf(0)).toContain('Echo the user.');
    expect(systemOf(0)).not.toContain('You review code.');
    expect(model.requests[0]!.body.messages.map((m: { content: unknown }) => m.content)).toEqual(expect.arrayContaining(['Review x = 1', 'Reviewed.']));
    expect((await callTool(client, 'get_session_info', { session_id })).body).toMatchObject({ agent: 'echo-agent', message_count: 4 });
    expect(await callTool(client, 'transfer_session', { session_id, target_agent: 'nobody' })).toMatchObject({ isError: true, body: { error: true, code: 'AGENT_NOT_FOUND' } });
    const code = await callTool(client, 'create_session', {});
    expect(await callTool(client, 'transfer_session', { session_id: code.body.session_id, target_agent: 'echo-agent' })).toMatchObject({
      isError: true,
      body: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('not an agent conversation') },
    });
  });

  it('counts tokens with a tokenizer when the client\'s model (sampling) reports none, and says so', async () => {
    const sampler = new Client({ name: 'sampler', version: '1.0.0' }, { capabilities: { sampling: {} } });
    sampler.setRequestHandler(CreateMessageRequestSchema, () => ({ role: 'assistant', model: 'client-model', content: { type: 'text', text: 'Hello from the client model.' } }));
    await sampler.connect(new StreamableHTTPClientTransport(new URL(await serve.url())));
    try {
      const result = await sampler.callTool({ name: 'invoke_agent', arguments: { agent_file: 'agent-files/echo-agent.json', message: 'Hello world' } });
      const metadata = (result.structuredContent as { metadata: { tokens_used: number; tokens_estimated?: boolean } }).metadata;
      expect(metadata.tokens_estimated).toBe(true);
      expect(metadata.tokens_used).toBeGreaterThan(20);
      expect(model.requests).toHaveLength(0);
    } finally {
      await sampler.close();
    }
  });
});

describe('seed 001 workflows with agentId', () => {
  it('A: list the agents, then inject one into a fresh chat', async () => {
    const { body } = await callTool(client, 'list_agents');
    expect(body.agents).toEqual(expect.arrayContaining([expect.objectContaining({ id: 'agent-1', name: 'Code Wizard' }), expect.objectContaining({ id: 'agent-2', name: 'Documentation Pro' })]));
    const injected = await callTool(client, 'inject', { agentId: 'agent-1' });
    expect(injected.body).toMatchObject({ agentId: 'agent-1', agentName: 'Code Wizard', spaceId: 'agent-1' });
    expect(injected.body.prompt).toContain('You are a concise coding assistant.');
    expect(injected.body.prompt).toContain('Prefer strict types.');
    expect(injected.body.prompt).not.toContain('Never shown.');
  });

  it('B: switch agent mid-session by injecting another', async () => {
    const injected = await callTool(client, 'inject', { agentId: 'agent-2' });
    expect(injected.body).toMatchObject({ agentId: 'agent-2', agentName: 'Documentation Pro' });
    expect(injected.body.prompt).toContain('You write documentation.');
  });

  it('C: inspect an agent\'s skills with format "structured"; get_space takes agentId too', async () => {
    const structured = await callTool(client, 'inject', { agentId: 'agent-2', format: 'structured' });
    expect(structured.body).toMatchObject({ agentId: 'agent-2', agentName: 'Documentation Pro', systemPrompt: 'You write documentation.' });
    expect(structured.body.skills).toEqual([expect.objectContaining({ id: 'test-driven', name: 'Test-Driven', description: 'Write tests first.' })]);
    expect((await callTool(client, 'get_space', { agentId: 'agent-1' })).body).toMatchObject({ agentId: 'agent-1', agentName: 'Code Wizard' });
  });

  it('errors keep their codes in seed 001\'s { error: true, code, message } shape', async () => {
    expect(await callTool(client, 'inject', { agentId: 'xyz' })).toMatchObject({ isError: true, body: { error: true, code: 'AGENT_NOT_FOUND', message: expect.stringContaining('xyz') } });
    expect(await callTool(client, 'inject', { spaceId: 'xyz' })).toMatchObject({ isError: true, body: { error: true, code: 'SPACE_NOT_FOUND' } });
    expect(await callTool(client, 'inject', { agentId: 'agent-1', format: 'yaml' })).toMatchObject({ isError: true, body: { error: true, code: 'INVALID_FORMAT' } });
    expect(await callTool(client, 'inject', {})).toMatchObject({ isError: true, body: { code: 'INVALID_ARGUMENTS', message: expect.stringContaining('"spaceId" is required (or "agentId")') } });
  });
});

describe('hostile and conflicting arguments', () => {
  it.each([
    ['a JSON file of the project that is not JSON', 'tokens.json', '{"Authorization": Bearer sk-LEAKED-1}'],
    ['a JSONC file with comments', '.vscode/mcp.json', '// local\n{ "headers": { "Authorization": "Bearer sk-LEAKED-2" } }'],
    ['a YAML file that is not YAML', 'notes.yaml', 'token: "sk-LEAKED-3\n  - [unbalanced'],
  ])('never quotes %s named as agent_file', async (_, file, text) => {
    await mkdir(dirname(join(project.rootDir, file)), { recursive: true });
    await writeFile(join(project.rootDir, file), text);
    const answer = await callTool(client, 'create_session', { agent_file: file });
    expect(answer.isError).toBe(true);
    expect(answer.body.code).toBe('CONFIG_INVALID');
    expect(answer.text).not.toContain('LEAKED');
  });


  it('refuse agent_file paths that leave the project, are absolute, start with ~, or are garbage, naming the field', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      ['~/.automation/cagent/agents/code-reviewer.yaml', 'INVALID_ARGUMENTS', /relative to the project/],
      ['../outside.yaml', 'INVALID_ARGUMENTS', /agent_file: leads outside the project/],
      ['agent-files/../../x.json', 'INVALID_ARGUMENTS', /leads outside the project/],
      ['/etc/passwd', 'INVALID_ARGUMENTS', /not absolute/],
      ['C:\\agents\\a.yaml', 'INVALID_ARGUMENTS', /not absolute/],
      ['linked-out/secret.json', 'INVALID_ARGUMENTS', /symbolic link/],
      ['agent-files/escape.json', 'INVALID_ARGUMENTS', /symbolic link/],
      ['a\0b.json', 'INVALID_ARGUMENTS', /NUL/],
      ['x'.repeat(5000), 'INVALID_ARGUMENTS', /agent_file/],
      ['', 'INVALID_ARGUMENTS', /agent_file/],
      [42, 'INVALID_ARGUMENTS', /agent_file/],
      ['agent-files/missing.yaml', 'AGENT_NOT_FOUND', /no agent file/],
      ['agent-files/broken.json', 'CONFIG_INVALID', /agent-files\/broken\.json: skills must be an array/],
      ['agent-spaces.config.json', 'CONFIG_INVALID', /agent-spaces\.config\.json: spaces is not a known key/],
      ['capabilities/trains.json', 'CONFIG_INVALID', /capabilities\/trains\.json/],
    ];
    for (const [agent_file, code, message] of cases) {
      const answer = await callTool(client, 'invoke_agent', { agent_file, message: 'hi' });
      expect(answer, String(agent_file).slice(0, 60)).toMatchObject({ isError: true, body: { error: true, code } });
      expect(answer.body.message).toMatch(message);
    }
    expect(model.requests).toHaveLength(0);
  });

  it('refuse list_agents directories outside the project, naming the field', async () => {
    for (const directory of ['..', '/tmp', '~', '~/agents', 'agent-files/../..', 'linked-out', 'agent-files/code-reviewer.yaml', 'no-such-folder', '']) {
      const answer = await callTool(client, 'list_agents', { directory });
      expect(answer, directory).toMatchObject({ isError: true, body: { code: 'INVALID_ARGUMENTS' } });
      expect(answer.body.message).toMatch(/directory/);
    }
    expect((await callTool(client, 'list_agents', { directory: 'agent-files' })).body.agents).toHaveLength(2);
  });

  it('refuse both spellings of one argument with different values, and take them with the same', async () => {
    const session = await callTool(client, 'create_session', {});
    const id = session.body.session_id as string;
    const conflicts: Array<[string, Record<string, unknown>]> = [
      ['get_session_info', { sessionId: id, session_id: 'other' }],
      ['close_session', { sessionId: id, session_id: 'other' }],
      ['send_code', { sessionId: id, session_id: 'other', code: '1' }],
      ['inject', { spaceId: 'agent-1', agentId: 'agent-2' }],
      ['create_session', { spaceId: 'agent-1', agentId: 'agent-2' }],
      ['create_session', { agent_file: 'agent-files/echo-agent.json', spaceId: 'agent-1' }],
      ['invoke_agent', { agent_file: 'agent-files/echo-agent.json', agentId: 'agent-1', message: 'x' }],
      ['send_message', { sessionId: id, session_id: 'other', message: 'x' }],
    ];
    for (const [tool, args] of conflicts) {
      const answer = await callTool(client, tool, args);
      expect(answer, tool).toMatchObject({ isError: true, body: { error: true, code: 'INVALID_ARGUMENTS' } });
    }
    expect((await callTool(client, 'get_session_info', { sessionId: id, session_id: id })).body).toMatchObject({ session_id: id });
    expect(await callTool(client, 'get_session_info', {})).toMatchObject({ isError: true, body: { message: expect.stringContaining('"sessionId" is required (or "session_id")') } });
    expect((await callTool(client, 'close_session', { session_id: id })).body.success).toBe(true);
  });
});

describe('agent files are hot-reloaded', () => {
  it('serves an added file, a changed one and drops a removed one without a restart', async () => {
    const file = join(project.rootDir, 'agent-files', 'fresh.json');
    await writeFile(file, JSON.stringify({ name: 'Fresh', systemPrompt: 'First version.' }));
    await expect.poll(async () => (await callTool(client, 'list_agents')).body.agents.map((a: { id: string }) => a.id), { timeout: 10_000 }).toContain('fresh');
    model.script([textAnswer('v1')]);
    await client.callTool({ name: 'invoke_agent', arguments: { agentId: 'fresh', message: 'hi' } });
    expect(systemOf(0)).toContain('First version.');

    await writeFile(file, JSON.stringify({ name: 'Fresh', systemPrompt: 'Second version, longer.' }));
    await expect.poll(async () => (await callTool(client, 'inject', { agentId: 'fresh' })).body.prompt, { timeout: 10_000 }).toContain('Second version, longer.');
    model.script([textAnswer('v2')]);
    await client.callTool({ name: 'invoke_agent', arguments: { agent_file: 'agent-files/fresh.json', message: 'hi' } });
    expect(systemOf(0)).toContain('Second version, longer.');

    await writeFile(file, '{ "name": "Fresh", "skills": 3 }');
    await expect.poll(async () => (await callTool(client, 'list_agents')).body.problems.map((p: { file: string }) => p.file), { timeout: 10_000 }).toContain('agent-files/fresh.json');
    expect((await callTool(client, 'list_agents')).body.agents.map((a: { id: string }) => a.id)).toEqual(expect.arrayContaining(['code-reviewer', 'echo-agent']));

    await unlink(file);
    await expect.poll(async () => (await callTool(client, 'inject', { agentId: 'fresh' })).body.code, { timeout: 10_000 }).toBe('AGENT_NOT_FOUND');
  });
});
