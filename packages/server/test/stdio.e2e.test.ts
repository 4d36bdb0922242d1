import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { callTool, newClient } from './support/client.js';
import { tsNodeArgs } from './support/child.js';
import { createProject, type TestProject } from './support/project.js';

const GREETER = {
  name: 'greeter',
  description: 'Greets people',
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

let project: TestProject;

beforeAll(async () => {
  project = await createProject({
    'capabilities/greeter.json': JSON.stringify(GREETER),
    'capabilities/greeter.handlers.mjs': 'export async function greet({ name }) { return `Hello, ${name}!`; }\n',
  });
  await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.json'] }));
});

afterAll(async () => {
  await project?.cleanup();
});

describe('agent-spaces mcp serve --stdio', () => {
  it('serves the project over stdio to the SDK client: tools/list, execute, search', async () => {
    const entry = fileURLToPath(new URL('./support/serve-entry.ts', import.meta.url));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [...tsNodeArgs(entry), JSON.stringify({ stdio: true })],
      cwd: project.rootDir,
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const client = newClient();
    await client.connect(transport);
    try {
      expect(client.getServerVersion()?.name).toBe(project.rootDir.split('/').at(-1));
      const { tools } = await client.listTools();
      expect(tools.map((t) => t.name)).toContain('execute');
      const run = await callTool(client, 'execute', {
        code: "import { greeter } from '@capabilities/greeter';\nexport default await greeter.greet({ name: 'stdio' });",
      });
      expect(run.body).toMatchObject({ result: 'Hello, stdio!', metadata: { capability_calls: 1 } });
      const search = await callTool(client, 'search_capabilities', { query: 'greet someone' });
      expect(search.text).toContain('greeter.greet(params: { name: string');
      expect(stderr).toContain('serving default over stdio');
    } finally {
      await client.close();
    }
  });
});
