// A call waiting for approval when the server is killed: `mcp serve` (the committed bin over the built packages) is
// asked by agent code for gated calls, and killed with SIGKILL while the person has not answered. The audit log must
// still hold the question, with the call's id, and `agent-spaces audit` must show it.
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { CLI_BIN } from '../../../test/fixtures/cli.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;

beforeAll(async () => {
  project = await makeProject({
    'agent-spaces.config.json': { capabilities: [], policies: { rules: { 'std.crypto.hash': 'ask' } } },
  });
  const built = await project.cli(['capabilities', 'build']);
  expect(built.code, built.stderr).toBe(0);
}, 60_000);

/** The JSON lines of every audit log of the project. */
async function auditLines(): Promise<Array<Record<string, unknown>>> {
  const folder = project.path('.agent-spaces/audit');
  const files = (await readdir(folder).catch(() => [])).filter((name) => name.endsWith('.jsonl'));
  const texts = await Promise.all(files.map((name) => readFile(join(folder, name), 'utf8')));
  return texts.flatMap((text) => text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>));
}

/**
 * Starts `mcp serve --stdio` (node runs the bin itself, so the pid is the server's), runs `code` through `execute`,
 * waits until the person is asked and `pendingLines` lines wait in the audit log, then kills the server with SIGKILL.
 */
async function killWhileAsking(code: string, pendingLines: number): Promise<void> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp', 'serve', '--stdio'], cwd: project.dir, stderr: 'pipe' });
  const client = new Client({ name: 'approval-kill-test', version: '1.0.0' }, { capabilities: { elicitation: { form: {} } } });
  let asked!: () => void;
  const askedOnce = new Promise<void>((resolve) => (asked = resolve));
  // The person never answers.
  client.setRequestHandler(ElicitRequestSchema, () => (asked(), new Promise(() => undefined)));
  const closed = new Promise<void>((resolve) => (transport.onclose = resolve));
  await client.connect(transport);
  const running = client.callTool({ name: 'execute', arguments: { code } }).catch((error: unknown) => error);
  // A run that ends without asking (a type error in `code`) fails the test here rather than waiting forever.
  const ended = await Promise.race([askedOnce.then(() => undefined), running]);
  if (ended !== undefined) {
    process.kill(transport.pid!, 'SIGKILL');
    throw new Error(`the run ended without asking: ${JSON.stringify(ended)}`);
  }
  for (let tries = 0; (await auditLines()).filter((line) => line.pending).length < pendingLines; tries++) {
    if (tries > 200) throw new Error(`the audit log holds no ${pendingLines} pending line(s): ${JSON.stringify(await auditLines())}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  process.kill(transport.pid!, 'SIGKILL');
  await closed;
  expect(await running).toBeInstanceOf(Error);
}

describe('a call waiting for approval when the server is killed', () => {
  it('leaves a line with the call id, the rule that asked and the question, and no outcome', async () => {
    await killWhileAsking(`import { crypto } from '@agent-spaces/std';\nreturn await crypto.hash('sha256', 'the question');`, 1);
    const lines = await auditLines();
    expect(lines).toEqual([
      {
        time: expect.any(String),
        space: expect.any(String),
        runId: expect.any(String),
        callId: expect.stringMatching(/^\d+$/),
        capability: 'std',
        function: 'crypto.hash',
        params: { algorithm: 'sha256', data: 'the question' },
        pending: 'approval',
        decision: { kind: 'ask', by: 'policies.rules["std.crypto.hash"]', message: expect.stringContaining('crypto.hash') },
      },
    ]);

    const text = await project.cli(['audit']);
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain(`std.crypto.hash {"algorithm":"sha256","data":"the question"}  asked (policies.rules["std.crypto.hash"]) → waiting (call ${String(lines[0]!.callId)})`);
    expect(text.stderr).toContain('0 call(s) and 1 approval request(s)');
    const json = await project.cli(['audit', '--json']);
    expect((JSON.parse(json.stdout) as { records: unknown[] }).records).toEqual([expect.objectContaining({ callId: lines[0]!.callId, pending: 'approval' })]);
  }, 60_000);

  it('leaves one line per waiting call when several wait at once, each with its own call id', async () => {
    const before = (await auditLines()).length;
    await killWhileAsking(
      `import { crypto } from '@agent-spaces/std';\nreturn await Promise.all(['a', 'b'].map((data) => crypto.hash('sha256', data)));`,
      before + 2,
    );
    const added = (await auditLines()).slice(before);
    expect(added.map((line) => [line.pending, (line.params as { data: string }).data]).sort()).toEqual([
      ['approval', 'a'],
      ['approval', 'b'],
    ]);
    expect(new Set(added.map((line) => line.callId)).size).toBe(2);
    expect(added.every((line) => !('outcome' in line))).toBe(true);
  }, 60_000);
});
