import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

// `agent-spaces mcp serve --port 0 --auth-token T` (the built CLI) in a child process, driven by the official MCP
// Inspector CLI as a real client over Streamable HTTP.
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../../', import.meta.url));
const inspector = join(root, 'node_modules/@modelcontextprotocol/inspector-cli/build/cli.js');
const TOKEN = 'inspector-token-42';

const GREETER = {
  name: 'greeter',
  functions: [
    {
      name: 'greet',
      description: 'Greet someone by name',
      parameters: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] },
      returns: { type: 'string' },
    },
  ],
  executor: { kind: 'module', module: './greeter.handlers.mjs' },
};

let project: Project;
let server: ChildProcess;
let url: string;

/** Runs the inspector CLI against the server; resolves with its JSON answer, typed by the caller. */
async function inspect<T>(...args: string[]): Promise<T> {
  const { stdout } = await run(
    process.execPath,
    [inspector, '--cli', url, '--transport', 'http', '--header', `Authorization: Bearer ${TOKEN}`, ...args],
    // The inspector finds its own package.json relative to the working directory: run it from its build folder.
    { cwd: dirname(inspector), timeout: 60_000 },
  );
  return JSON.parse(stdout.slice(stdout.indexOf('{'))) as T;
}

beforeAll(async () => {
  project = await makeProject({
    'capabilities/greeter.json': GREETER,
    'capabilities/greeter.handlers.mjs': 'export async function greet({ name }) { return `Hello, ${name}!`; }\n',
    'agent-spaces.config.json': { capabilities: ['capabilities/*.json'] },
  });
  await project.build();
  server = spawn(
    process.execPath,
    ['--no-node-snapshot', join(root, 'packages/cli/bin/agent-spaces.js'), 'mcp', 'serve', '--port', '0', '--auth-token', TOKEN],
    { cwd: project.dir, stdio: ['ignore', 'ignore', 'pipe'] },
  );
  url = await new Promise<string>((resolve, reject) => {
    let stderr = '';
    server.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      const match = /on (http:\/\/\S+\/mcp)/.exec(stderr);
      if (match) resolve(match[1]!);
    });
    server.once('exit', (code) => reject(new Error(`mcp serve exited with ${code}: ${stderr}`)));
  });
});

afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server.once('exit', resolve));
    server.kill('SIGTERM');
    const force = setTimeout(() => server.kill('SIGKILL'), 5_000);
    await exited;
    clearTimeout(force);
  }
});

describe('mcp serve with the MCP Inspector CLI', () => {
  it('lists the code-mode tools', async () => {
    const { tools } = await inspect<{ tools: { name: string }[] }>('--method', 'tools/list');
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['execute', 'search_capabilities', 'describe_capabilities', 'create_session', 'inject']));
  });

  it('calls execute and gets the result of the script', async () => {
    const result = await inspect<{ isError?: boolean; content: { text: string }[] }>(
      '--method',
      'tools/call',
      '--tool-name',
      'execute',
      '--tool-arg',
      "code=import { greeter } from '@capabilities/greeter'; export default await greeter.greet({ name: 'inspector' });",
    );
    expect(result.isError ?? false).toBe(false);
    expect(JSON.parse(result.content[0].text)).toMatchObject({ result: 'Hello, inspector!', metadata: { capability_calls: 1 } });
  });
});
