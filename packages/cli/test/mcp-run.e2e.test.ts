// Seed 004's `agent-spaces mcp run`: the same command as `mcp serve`, as users run it (the committed bin over the build).
import { spawn } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CLI_BIN } from '../../../test/fixtures/cli.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;

beforeAll(async () => {
  project = await makeProject({
    'agent-spaces.config.json': { spaces: [{ id: 'agent-1', name: 'Code Wizard' }] },
    'agent-files/echo-agent.json': { name: 'Echo Agent', systemPrompt: 'Echo.' },
  });
});

describe('agent-spaces mcp run', () => {
  it('is listed in the help beside mcp serve', async () => {
    const help = await project.cli(['--help']);
    expect(help.stdout).toContain('mcp run');
    expect(help.stdout).toContain('mcp serve');
    const own = await project.cli(['mcp', 'run', '--help']);
    expect(own.code).toBe(0);
    expect(own.stdout).toContain('--port');
  });

  it('serves the spaces and agent files over HTTP as mcp serve does', async () => {
    const child = spawn(process.execPath, [CLI_BIN, 'mcp', 'run', '--port', '0'], { cwd: project.dir, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    try {
      await expect.poll(() => /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr), { timeout: 60_000 }).not.toBeNull();
      const client = new Client({ name: 'mcp-run-test', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(/http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr)![0])));
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(expect.arrayContaining(['execute', 'list_agents', 'create_session']));
      const listed = await client.callTool({ name: 'list_agents', arguments: {} });
      const text = (listed.content as Array<{ text: string }>)[0]!.text;
      expect(JSON.parse(text).agents.map((a: { id: string }) => a.id)).toEqual(['agent-1', 'echo-agent']);
      await client.close();
    } finally {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
  }, 90_000);
});
