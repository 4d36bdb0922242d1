// Secrets that must not come back in any form: a secret holding `"` and `\` read back through the official
// `everything` server's get-env (JSON-escaped), through a host handler's JSON, Buffer, error and console.log, through
// an MCP server's stderr, in the audit log; and console output of handlers kept out of `run --json` stdout and the
// `mcp serve --stdio` protocol stream. Built and run through the committed bin over the built packages.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { createSpace, type RunResult } from '@agent-spaces/sdk';
import { CLI_BIN } from '../../../test/fixtures/cli.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const SECRET = 'e2e-"quoted"\\back\\slash-tok-42';
const NAME = 'SECRETS_E2E_TOKEN';
process.env[NAME] = SECRET;

/** Every form the secret must never take in what comes back. */
const FORMS = [
  SECRET,
  JSON.stringify(SECRET).slice(1, -1),
  JSON.stringify(JSON.stringify(SECRET)).slice(1, -1),
  encodeURIComponent(SECRET),
  Buffer.from(SECRET).toString('base64').slice(0, 20),
  'back\\slash',
  'back\\\\slash',
];
const expectNoSecret = (text: string, where: string) => {
  for (const form of FORMS) expect(text, `${where} holds ${form}`).not.toContain(form);
};

const NOTES = {
  name: 'notes',
  functions: [
    { name: 'create', parameters: { type: 'object', properties: { title: { type: 'string' } } } },
    { name: 'bytes', parameters: { type: 'object', properties: {} } },
    { name: 'fail', parameters: { type: 'object', properties: {} } },
  ],
  executor: { kind: 'module', module: './notes.handlers.mjs' },
};
const HANDLERS = `
const secret = process.env.${NAME};
export function create({ title }) {
  console.log('creating', title, 'with', secret);
  console.error(JSON.stringify({ token: secret }));
  return JSON.stringify({ title, token: secret });
}
export const bytes = () => Buffer.from('token=' + secret);
export function fail() { throw new Error('upstream refused ' + JSON.stringify({ token: secret })); }
`;
const SCRIPT = `import { notes } from '@capabilities/notes';
import { everything } from '@capabilities/mcp-everything';
import { noisy } from '@capabilities/mcp-noisy';
const created = await notes.create({ title: 'standup' });
const bytes = String.fromCharCode(...(await notes.bytes()) as Uint8Array);
const failed = await notes.fail().catch((error: CapabilityError) => error.message);
const env = (await everything.getEnv()).text;
await noisy.shout({ name: '${NAME}' });
export default { created, bytes, failed, env };
`;

let project: Project;

beforeAll(async () => {
  project = await makeProject({
    'capabilities/notes.json': NOTES,
    'capabilities/notes.handlers.mjs': HANDLERS,
    'script.ts': SCRIPT,
  });
  const config = {
    capabilities: ['capabilities/*.json'],
    mcpServers: {
      everything: {
        command: process.execPath,
        args: [join(repo, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js'), 'stdio'],
        env: { HOSTILE: `\${${NAME}}` },
      },
      noisy: { command: process.execPath, args: [fileURLToPath(new URL('../../../test/fixtures/stderr-mcp-server.mjs', import.meta.url))], env: { [NAME]: `\${${NAME}}` } },
    },
  };
  await project.write({ 'agent-spaces.config.json': config });
  const built = await project.cli(['capabilities', 'build']);
  expect(built.code, built.stderr).toBe(0);
}, 120_000);

describe('a secret with quotes and backslashes', () => {
  it('never comes back from get-env, handler JSON, Buffers, errors, console output, MCP stderr or the audit log', async () => {
    const space = await createSpace({ rootDir: project.dir, name: 'secrets' });
    let result: RunResult;
    try {
      result = await space.run(SCRIPT);
    } finally {
      await space.close();
    }
    if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
    const value = result.result as Record<string, string>;
    expect(JSON.parse(value.created!)).toEqual({ title: 'standup', token: `[REDACTED:${NAME}]` });
    expect(value.bytes).toBe(`token=[REDACTED:${NAME}]`);
    expect(value.failed).toContain(`upstream refused {"token":"[REDACTED:${NAME}]"}`);
    expect(JSON.parse(value.env!).HOSTILE).toBe(`[REDACTED:${NAME}]`);
    const logs = result.logs.map((l) => `${l.level} ${l.message}`);
    expect(logs).toContain(`log [host handler notes.create] creating standup with [REDACTED:${NAME}]`);
    expect(logs).toContain(`error [host handler notes.create] {"token":"[REDACTED:${NAME}]"}`);
    expect(logs).toContain(`info [mcp server noisy] raw=[REDACTED:${NAME}] json={"value":"[REDACTED:${NAME}]"}`);
    expectNoSecret(JSON.stringify(result), 'the run result');
    const audit = readFileSync(project.path('.agent-spaces/audit/secrets.jsonl'), 'utf8');
    expect(audit).toContain(`upstream refused`);
    expectNoSecret(audit, 'the audit log');
  }, 60_000);

  it('run --json: stdout is one JSON document without the secret; handler output is in its logs', async () => {
    const { code, stdout, stderr } = await project.cli(['run', '--json', 'script.ts']);
    expect(code, stderr).toBe(0);
    const parsed = JSON.parse(stdout) as RunResult;
    expect(parsed.ok).toBe(true);
    expect(parsed.logs.map((l) => l.message)).toContain(`[host handler notes.create] creating standup with [REDACTED:${NAME}]`);
    expectNoSecret(stdout, 'stdout');
    expectNoSecret(stderr, 'stderr');
  }, 60_000);

  it('run without --json prints handler output as labelled, redacted logs on stderr', async () => {
    const { code, stdout, stderr } = await project.cli(['run', 'script.ts']);
    expect(code, stderr).toBe(0);
    expect(stderr).toContain(`[log] [host handler notes.create] creating standup with [REDACTED:${NAME}]`);
    expectNoSecret(stdout + stderr, 'the terminal');
  }, 60_000);

  it('mcp serve --stdio: every line of the protocol stream is JSON-RPC; handler output is in the run logs only', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'mcp', 'serve', '--stdio'], { cwd: project.dir, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const answered = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no answer; stdout:\n${stdout}\nstderr:\n${stderr}`)), 50_000);
      child.stdout.on('data', (chunk: Buffer) => {
        stdout += chunk.toString();
        if (!stdout.includes('"id":2') || !stdout.endsWith('\n')) return;
        clearTimeout(timer);
        resolve();
      });
    });
    const send = (message: object) => child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', ...message })}\n`);
    send({ id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } });
    send({ method: 'notifications/initialized' });
    send({ id: 2, method: 'tools/call', params: { name: 'execute', arguments: { code: SCRIPT } } });
    try {
      await answered;
    } finally {
      child.kill();
    }
    const messages = stdout.trim().split('\n').map((line) => JSON.parse(line) as { jsonrpc: string; id?: number; result?: CallToolResult });
    expect(messages.every((m) => m.jsonrpc === '2.0')).toBe(true);
    const result = messages.find((m) => m.id === 2)!.result!;
    const text = result.content.map((part) => (part.type === 'text' ? part.text : '')).join('\n');
    expect(result.isError, text).toBeFalsy();
    expect(text).toContain(`[host handler notes.create] creating standup with [REDACTED:${NAME}]`);
    expectNoSecret(stdout, 'the protocol stream');
    expectNoSecret(stderr, 'the server stderr');
  }, 60_000);
});
