import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { SpaceDefinition } from '../src/config.js';
import { createCodeModeServer } from '../src/server.js';
import { callTool, connectInMemory } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

const WIZARD: SpaceDefinition = {
  id: 'wizard',
  name: 'Code Wizard',
  description: 'Trains and secrets',
  systemPrompt: 'You are a concise assistant for train travel.',
  skills: [
    { id: 'brief', name: 'Brevity', description: 'Answer in one sentence.', enabled: true },
    { id: 'poet', name: 'Poet', description: 'Answer in verse.', enabled: false },
  ],
  capabilities: ['trains'],
};

let project: TestProject;
let client: Client;

beforeAll(async () => {
  project = await createProject();
  client = await connectInMemory(
    createCodeModeServer({ spaces: [WIZARD, { id: 'bare', name: 'Bare' }], space: { rootDir: project.rootDir, handlers: project.handlers } }),
  );
});

afterAll(async () => {
  await client?.close();
  await project?.cleanup();
});

describe('inject', () => {
  it('compiles the system prompt, enabled skills only, code instructions and signatures into one prompt', async () => {
    const answer = await callTool(client, 'inject', { spaceId: 'wizard' });
    expect(answer.isError).toBe(false);
    expect(answer.body).toMatchObject({ spaceId: 'wizard', spaceName: 'Code Wizard' });
    const prompt: string = answer.body.prompt;
    expect(prompt).toContain('You are a concise assistant for train travel.');
    expect(prompt).toContain('### Brevity\nAnswer in one sentence.');
    expect(prompt).not.toContain('Poet');
    expect(prompt).toContain('`execute`');
    expect(prompt).toMatch(/trainSchedule\.getSchedule\(params\?: \{ station\?: string;? ?\}\)/);
    expect(prompt.indexOf('You are a concise')).toBeLessThan(prompt.indexOf('## Active Skills'));
  });

  it('leaves out the skills section when no skill is enabled', async () => {
    const prompt: string = (await callTool(client, 'inject', { spaceId: 'bare' })).body.prompt;
    expect(prompt).not.toContain('Active Skills');
    expect(prompt).toContain('@capabilities/vault');
  });

  it('returns the structured parts with format "structured"', async () => {
    const answer = await callTool(client, 'inject', { spaceId: 'wizard', format: 'structured' });
    expect(answer.body).toMatchObject({
      spaceId: 'wizard',
      systemPrompt: 'You are a concise assistant for train travel.',
      skills: [{ id: 'brief', name: 'Brevity', description: 'Answer in one sentence.' }],
    });
    expect(answer.body.codeInstructions).toContain('execute');
    const trains = answer.body.capabilities.find((c: { module: string }) => c.module === '@capabilities/trains');
    expect(trains.functions).toHaveLength(2);
  });

  it('answers SPACE_NOT_FOUND and INVALID_FORMAT as structured errors', async () => {
    const missing = await callTool(client, 'inject', { spaceId: 'ghost' });
    expect(missing).toMatchObject({ isError: true, body: { code: 'SPACE_NOT_FOUND', data: { available: ['wizard', 'bare'] } } });
    const format = await callTool(client, 'inject', { spaceId: 'wizard', format: 'yaml' });
    expect(format).toMatchObject({ isError: true, body: { code: 'INVALID_FORMAT' } });
  });
});

describe('list_spaces and get_space', () => {
  it('lists every space with what it adds', async () => {
    const { spaces } = (await callTool(client, 'list_spaces')).body;
    expect(spaces).toEqual([
      { id: 'wizard', name: 'Code Wizard', description: 'Trains and secrets', enabledSkills: 1, tools: [], prompts: [] },
      { id: 'bare', name: 'Bare', enabledSkills: 0, tools: [], prompts: [] },
    ]);
  });

  it('returns the full definition with every skill and the resolved capabilities', async () => {
    const space = (await callTool(client, 'get_space', { spaceId: 'wizard' })).body;
    expect(space.skills).toHaveLength(2);
    expect(space.capabilities).toEqual(['trains']);
    expect((await callTool(client, 'get_space', { spaceId: 'bare' })).body.capabilities).toEqual(['trains', 'vault']);
    expect((await callTool(client, 'get_space', { spaceId: 'ghost' })).body.code).toBe('SPACE_NOT_FOUND');
  });
});

describe('prompts', () => {
  it('offers each space’s compiled prompt as an MCP prompt', async () => {
    const { prompts } = await client.listPrompts();
    expect(prompts.map((p) => p.name)).toEqual(['inject-wizard', 'inject-bare']);
    const got = await client.getPrompt({ name: 'inject-wizard' });
    const message = got.messages[0]!;
    expect(message.role).toBe('user');
    expect(message.content.type === 'text' && message.content.text).toBe((await callTool(client, 'inject', { spaceId: 'wizard' })).body.prompt);
  });
});

describe('import examples', () => {
  it('shows the space’s first capability module, with its export, in the compiled prompt and the server instructions', async () => {
    const prompt: string = (await callTool(client, 'inject', { spaceId: 'wizard' })).body.prompt;
    expect(prompt).toContain("`import { trainSchedule } from '@capabilities/trains';`");
    expect(prompt).not.toContain('train-schedule');
    expect(client.getInstructions()).toContain("`import { trainSchedule } from '@capabilities/trains';`");
  });

  it('takes the example from the first space’s own capabilities, and says when a space has none', async () => {
    const other = await connectInMemory(
      createCodeModeServer({
        spaces: [
          { id: 'secrets', name: 'Secrets', capabilities: ['vault'] },
          { id: 'empty', name: 'Empty', capabilities: [] },
        ],
        space: { rootDir: project.rootDir, handlers: project.handlers },
      }),
    );
    try {
      expect(other.getInstructions()).toContain("`import { vault } from '@capabilities/vault';`");
      const secrets = (await callTool(other, 'inject', { spaceId: 'secrets', format: 'structured' })).body.codeInstructions;
      expect(secrets).toContain("`import { vault } from '@capabilities/vault';`");
      const empty: string = (await callTool(other, 'inject', { spaceId: 'empty' })).body.prompt;
      expect(empty).toContain('this space has none, only `@agent-spaces/std`');
      expect(empty).not.toMatch(/from '@capabilities\/[a-z]/);
    } finally {
      await other.close();
    }
  });
});
