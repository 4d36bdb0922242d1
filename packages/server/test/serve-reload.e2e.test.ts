import { spawn } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { callTool, newClient } from './support/client.js';
import { tsNodeArgs } from './support/child.js';
import { createProject, type TestProject } from './support/project.js';

// `agent-spaces mcp serve` (a real child process) serving a changed config file without a restart.

const ENTRY = fileURLToPath(new URL('./support/serve-entry.ts', import.meta.url));
const CHILD = { timeout: 90_000 };

let project: TestProject;
let configFile: string;

const config = (tools: unknown[]) => JSON.stringify({ capabilities: ['capabilities/*.json'], spaces: [{ id: 'trains', name: 'Trains', tools }] });
const DOUBLE = { name: 'double', description: 'Doubles n', parameters: { type: 'object', properties: { n: { type: 'number' } }, required: ['n'] }, code: 'return input.n * 2;' };

beforeAll(async () => {
  project = await createProject();
  configFile = join(project.rootDir, 'agent-spaces.config.json');
  await writeFile(configFile, config([]));
});

afterAll(async () => {
  await project?.cleanup();
});

it(
  'serves a changed config file at once, announces the new tool list, and keeps serving the last good config when one breaks',
  async () => {
    const child = spawn(process.execPath, [...tsNodeArgs(ENTRY), JSON.stringify({ port: '0' })], { cwd: project.rootDir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await expect.poll(() => /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr), { timeout: 60_000 }).not.toBeNull();
      const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr)![0];
      const client = newClient();
      const heard: string[] = [];
      client.setNotificationHandler(ToolListChangedNotificationSchema, () => void heard.push('tools'));
      await client.connect(new StreamableHTTPClientTransport(new URL(url)));
      expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('double');

      await writeFile(configFile, config([DOUBLE]));
      await expect.poll(() => heard.length, { timeout: 10_000 }).toBeGreaterThan(0);
      expect((await client.listTools()).tools.map((t) => t.name)).toContain('double');
      expect((await callTool(client, 'double', { n: 4 })).body).toBe(8);

      await writeFile(configFile, '{ not json');
      await expect.poll(() => stderr, { timeout: 10_000 }).toContain('config not reloaded, still serving the previous one');
      expect((await callTool(client, 'double', { n: 5 })).body).toBe(10);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  },
  CHILD.timeout,
);
