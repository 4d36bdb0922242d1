// `agent-spaces chat` as users run it (the committed bin, a real child process) with stdin a pipe: seed 000's
// Interactive mode, answered by the space's headless agent with the scripted OpenAI stand-in as its model.
import { execFile } from 'node:child_process';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startScriptedModel, textAnswer, toolCalls, type ScriptedModel } from '../../server/test/support/openai-server.js';
import { createProject, type TestProject } from '../../server/test/support/project.js';
import { CLI_BIN, type CliResult } from '../../../test/fixtures/cli.js';
import { BOOK_FLIGHT } from '../../../test/fixtures/book-flight.js';

let project: TestProject;
let model: ScriptedModel;


beforeAll(async () => {
  model = await startScriptedModel();
  const config = {
    capabilities: ['capabilities/*.json'],
    model: { provider: 'openai-compatible', model: 'scripted', baseURL: model.baseURL, maxRetries: 0 },
    spaces: [
      { id: 'travel', name: 'Travel', systemPrompt: 'You book travel.', tools: [BOOK_FLIGHT] },
      { id: 'other', name: 'Other' },
    ],
  };
  project = await createProject({ 'agent-spaces.config.json': JSON.stringify(config) });
});

afterAll(async () => {
  await model?.close();
  await project?.cleanup();
});

beforeEach(() => model.script([]));

/** Runs `agent-spaces chat ...args` with `input` piped to its stdin. */
function chat(input: string, args: string[] = []): Promise<CliResult> {
  return new Promise((resolve) => {
    const child = execFile(process.execPath, [CLI_BIN, 'chat', ...args], { cwd: project.rootDir, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
    });
    child.stdin!.end(input);
  });
}

describe('agent-spaces chat', () => {
  it('answers each line with the space’s agent, streaming its code and text, keeping the conversation until /exit', async () => {
    model.script([
      toolCalls([{ name: 'execute', args: { code: 'export default 6 * 7;' } }]),
      textAnswer('Booked a flight to Paris for 2026-12-01.'),
      textAnswer('You flew to Paris.'),
    ]);
    const { code, stdout, stderr } = await chat('Book me a flight to Paris on 2026-12-01\nWhere am I flying?\n/exit\nnever read\n', ['--space', 'travel']);
    expect(code).toBe(0);
    expect(stdout).toBe('Booked a flight to Paris for 2026-12-01.\nYou flew to Paris.\n');
    expect(stderr).toContain('▸ execute\nexport default 6 * 7;');
    expect(model.requests).toHaveLength(3);
    expect(model.requests[0]!.body.messages[0].content).toContain('You book travel.');
    const seen = model.requests[2]!.body.messages.filter((m: { role: string; content?: string }) => m.role === 'user' || (m.role === 'assistant' && m.content));
    expect(seen.map((m: { role: string; content: string }) => m.content)).toEqual([
      'Book me a flight to Paris on 2026-12-01',
      'Booked a flight to Paris for 2026-12-01.',
      'Where am I flying?',
    ]);
  });

  it('ends at the end of stdin, and reports a failed answer on stderr without ending', async () => {
    model.script([{ status: 500, body: { error: { message: 'model down' } } }, textAnswer('Back again.')]);
    const { code, stdout, stderr } = await chat('first\n\nsecond\n');
    expect(code).toBe(0);
    expect(stderr).toContain('✗ MODEL_ERROR');
    expect(stdout).toBe('Back again.\n');
  });

  it('exits 2 for a space that is not served, naming the served ones', async () => {
    const { code, stderr } = await chat('hi\n', ['--space', 'nowhere']);
    expect(code).toBe(2);
    expect(stderr).toContain('no space "nowhere" (spaces: travel, other)');
    expect(model.requests).toHaveLength(0);
  });
});
