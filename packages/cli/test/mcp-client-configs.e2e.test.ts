// The MCP client configs users already have, built as they are by the real CLI: one fixture per client (Claude
// Desktop through --config, Claude Code, Cursor, VS Code) against real MCP servers — a stdio server that records the argv
// and environment it was started with, and an HTTP one that records the headers it received — proving that no
// placeholder reaches either literally. Then the failures a user meets (an input with no terminal, an unknown form),
// the HTTP self-entry of a server that is down, and `init --mcp` adding a second client.
import { spawn } from 'node:child_process';
import { cp, readFile, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { resolve } from 'node:path';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI_BIN } from '../../../test/fixtures/cli.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';
import { startRecordingMcpServer, type RecordingUpstream } from '../../../test/fixtures/recording-upstream.js';

const FIXTURES = resolve(import.meta.dirname, '../../mcp/test/fixtures/client-configs');
const TOKEN = 'tok-e2e-1';
const INPUT = 'key-e2e-2';

let upstream: RecordingUpstream;
beforeAll(async () => {
  upstream = await startRecordingMcpServer({ [`Bearer ${TOKEN}`]: 'operator', [`Bearer ${INPUT}`]: 'input' });
});
afterAll(() => upstream.close());

interface Seen {
  argv: string[];
  env: Record<string, string>;
  cwd: string;
}

/** A project holding one client's fixture files (and `files`), and the environment its placeholders read. */
async function clientProject(client: string, files: Record<string, unknown> = {}): Promise<{ project: Project; env: Record<string, string> }> {
  const project = await makeProject(files);
  await cp(resolve(FIXTURES, client), project.dir, { recursive: true });
  const env = { ECHO_SERVER: resolve(FIXTURES, 'echo-server.mjs'), SEEN_FILE: project.path('seen.jsonl'), API_TOKEN: TOKEN, HTTP_MCP_URL: upstream.url };
  return { project, env };
}

async function seenBy(project: Project): Promise<Seen[]> {
  const text = await readFile(project.path('seen.jsonl'), 'utf8').catch(() => '');
  return text.split('\n').filter(Boolean).map((line) => JSON.parse(line) as Seen);
}

/** Every string the echo server was started with, and every credential the HTTP server received since `from`. */
function noLiteralPlaceholder(seen: Seen[], from: number): void {
  for (const start of seen) {
    for (const value of [...start.argv, ...Object.values(start.env), start.cwd]) expect(value).not.toMatch(/\$\{/);
  }
  for (const request of upstream.requests.slice(from)) expect(request.credential ?? '').not.toMatch(/\$\{/);
}

describe('each client config builds as written, placeholders expanded', () => {
  it('Claude Desktop: claude_desktop_config.json through --config, its globalShortcut noted', async () => {
    const { project, env } = await clientProject('claude-desktop');
    const from = upstream.requests.length;
    const result = await project.cli(['capabilities', 'build', '--config', 'claude_desktop_config.json'], env);
    expect(result.stderr + result.stdout).toContain('"globalShortcut" ignored');
    expect(result.code).toBe(0);
    const [start] = await seenBy(project);
    expect(start!.argv).toEqual(['--token', TOKEN]);
    expect(start!.env.API_TOKEN).toBe(TOKEN);
    expect(upstream.requests.slice(from).map((r) => r.credential)).toContain(`Bearer ${TOKEN}`);
    noLiteralPlaceholder(await seenBy(project), from);
  }, 60_000);

  it('Claude Code: .mcp.json with a default, its agent-spaces self-entry skipped', async () => {
    const { project, env } = await clientProject('claude-code', { 'agent-spaces.config.json': {} });
    const from = upstream.requests.length;
    const result = await project.cli(['capabilities', 'build'], env);
    expect(result.code).toBe(0);
    expect(result.stderr + result.stdout).toContain('mcpServers.agent-spaces skipped');
    const [start] = await seenBy(project);
    expect(start!.argv).toEqual(['--mode', 'plain']);
    expect(upstream.requests.slice(from).every((r) => r.credential === `Bearer ${TOKEN}`)).toBe(true);
    noLiteralPlaceholder(await seenBy(project), from);
  }, 60_000);

  it('Cursor: ${env:…}, ${workspaceFolder}, ${userHome}, envFile', async () => {
    const { project, env } = await clientProject('cursor', { 'agent-spaces.config.json': {} });
    const from = upstream.requests.length;
    const result = await project.cli(['capabilities', 'build'], env);
    expect(result.code).toBe(0);
    const [start] = await seenBy(project);
    expect(start!.argv).toEqual(['--root', project.dir, '--home', homedir(), '--sep', '/']);
    expect(start!.env).toMatchObject({ API_TOKEN: TOKEN, FROM_ENV_FILE: 'file-value' });
    expect(upstream.requests.slice(from).every((r) => r.credential === `Bearer ${TOKEN}`)).toBe(true);
    noLiteralPlaceholder(await seenBy(project), from);
  }, 60_000);

  it('VS Code: "servers" and ${input:api-key} from AGENT_SPACES_INPUT_API_KEY', async () => {
    const { project, env } = await clientProject('vscode', { 'agent-spaces.config.json': {} });
    const from = upstream.requests.length;
    const result = await project.cli(['capabilities', 'build'], { ...env, AGENT_SPACES_INPUT_API_KEY: INPUT });
    expect(result.code).toBe(0);
    expect(result.stderr + result.stdout).toContain('"dev" of servers.echo ignored');
    const [start] = await seenBy(project);
    expect(start!.argv).toEqual(['--key', INPUT, '--dir', `${project.dir}/data`]);
    expect(start!.env.API_KEY).toBe(INPUT);
    expect(upstream.requests.slice(from).every((r) => r.credential === `Bearer ${INPUT}`)).toBe(true);
    noLiteralPlaceholder(await seenBy(project), from);
  }, 60_000);
});

/** Runs the CLI in a pseudo-terminal (util-linux `script`) with `env`, typing `answer` + Enter once `prompt` shows. */
function cliInTerminal(cwd: string, args: string[], env: Record<string, string>, prompt: string, answer: string): Promise<{ code: number; screen: string }> {
  const command = [process.execPath, CLI_BIN, ...args].map((part) => `'${part.replace(/'/g, `'\\''`)}'`).join(' ');
  const child = spawn('script', ['-qec', command, '/dev/null'], { cwd, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
  let raw = '';
  let answered = false;
  const heard = (chunk: Buffer) => {
    raw += chunk.toString();
    if (!answered && raw.includes(prompt)) {
      answered = true;
      child.stdin.write(`${answer}\r`);
    }
  };
  child.stdout.on('data', heard);
  child.stderr.on('data', heard);
  return new Promise((done) => child.on('exit', (code) => done({ code: code ?? 1, screen: stripVTControlCharacters(raw) })));
}

describe('${input:…} on a terminal', () => {
  it("is asked with the input's description, the password not echoed, and reaches both servers", async () => {
    const { project, env } = await clientProject('vscode', { 'agent-spaces.config.json': {} });
    const from = upstream.requests.length;
    const result = await cliInTerminal(project.dir, ['capabilities', 'build'], env, 'API key of the upstream: ', INPUT);
    expect(result.screen).toContain('API key of the upstream:');
    expect(result.screen).not.toContain(INPUT);
    expect(result.code).toBe(0);
    expect((await seenBy(project))[0]!.env.API_KEY).toBe(INPUT);
    expect(upstream.requests.slice(from).every((r) => r.credential === `Bearer ${INPUT}`)).toBe(true);
    noLiteralPlaceholder(await seenBy(project), from);
  }, 60_000);
});

describe('what cannot be expanded fails that server, naming what to set, and reaches no server', () => {
  it('an ${input:…} with no value and no terminal', async () => {
    const { project, env } = await clientProject('vscode', { 'agent-spaces.config.json': {} });
    const from = upstream.requests.length;
    const result = await project.cli(['capabilities', 'build'], env);
    expect(result.code).toBe(1);
    expect(result.stderr + result.stdout).toMatch(/\$\{input:api-key\}.*AGENT_SPACES_INPUT_API_KEY/);
    expect(await seenBy(project)).toEqual([]);
    expect(upstream.requests.length).toBe(from);
  }, 60_000);

  it('an unknown form, a nested one, a missing ${env:VAR}', async () => {
    const variants: Array<[string, RegExp]> = [
      ['${command:pickKey}', /CONFIG_PLACEHOLDER|\$\{command:pickKey\}/],
      ['${${API_TOKEN}}', /\$\{\$\{API_TOKEN\}\}/],
      ['${env:NOT_SET_ANYWHERE}', /NOT_SET_ANYWHERE/],
    ];
    for (const [form, said] of variants) {
      const { project, env } = await clientProject('claude-code', { 'agent-spaces.config.json': {} });
      await writeFile(project.path('.mcp.json'), JSON.stringify({ mcpServers: { echo: { command: 'node', args: [env.ECHO_SERVER!], env: { SEEN_FILE: '${SEEN_FILE}', X: form } } } }));
      const result = await project.cli(['capabilities', 'build'], env);
      expect(result.code, form).not.toBe(0);
      expect(result.stderr + result.stdout, form).toMatch(said);
      expect(await seenBy(project), form).toEqual([]);
    }
  }, 120_000);
});

describe('the HTTP self-entry', () => {
  it("is skipped without connecting when its url is this project's server.port, though the server is down", async () => {
    const project = await makeProject({
      'agent-spaces.config.json': { server: { port: 45999 } },
      '.mcp.json': { mcpServers: { 'agent-spaces': { type: 'http', url: 'http://localhost:45999/mcp/', headers: { Authorization: 'Bearer ${AGENT_SPACES_MCP_TOKEN}' } } } },
    });
    const result = await project.cli(['capabilities', 'build', '--json'], {});
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout).skipped).toEqual(['mcpServers.agent-spaces']);
  }, 60_000);
});

describe('init --mcp in an existing project', () => {
  it("adds a second client's snippet, keeping the file's comments and servers, and is idempotent", async () => {
    const project = await makeProject();
    expect((await project.cli(['init', '--mcp', 'claude'])).code).toBe(0);
    const claude = await project.read('.mcp.json');
    const cursor = await project.cli(['init', '--mcp', 'cursor']);
    expect(cursor.code).toBe(0);
    expect(JSON.parse(await project.read('.cursor/mcp.json'))).toEqual({ mcpServers: { 'agent-spaces': { command: 'npx', args: ['agent-spaces', 'mcp', 'serve'] } } });
    expect(await project.read('.mcp.json')).toBe(claude);
    await project.write({ '.vscode/mcp.json': '{\n  // my servers\n  "servers": { "memory": { "type": "stdio", "command": "npx" }, },\n}\n' });
    expect((await project.cli(['init', '--mcp', 'vscode'])).code).toBe(0);
    const vscode = await project.read('.vscode/mcp.json');
    expect(vscode).toContain('// my servers');
    expect(vscode.indexOf('"memory"')).toBeGreaterThan(0);
    expect(vscode.indexOf('"agent-spaces": {')).toBeGreaterThan(vscode.indexOf('"memory"'));
    expect(vscode).toContain('"args": [\n');
    const again = await project.cli(['init', '--mcp', 'vscode', '--json']);
    expect(JSON.parse(again.stdout)).toEqual({ ok: true, files: [], unchanged: ['.vscode/mcp.json'] });
    expect(await project.read('.vscode/mcp.json')).toBe(vscode);
  }, 60_000);
});
