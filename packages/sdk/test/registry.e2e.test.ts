// The seed's capability registry as written (seed 002, "Capability Registry"): a TypeScript config with
// `capabilities: { global: ['@agent-spaces/std', './capabilities/company-sdk'], mcpServers: { slack, github } }` (local
// stand-in MCP servers), built, and a space listing `['@company/internal-sdk', 'mcp:slack', 'mcp:github']` plus
// `openapi:<name>`; a name that matches nothing fails with the closest names.
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities, configSources, loadConfig } from '@agent-spaces/compiler';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const fixtureServer = fileURLToPath(new URL('../../../test/fixtures/mcp-tools-server.mjs', import.meta.url));
const TOOL = (name: string) => ({ name, description: `${name} stand-in`, inputSchema: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] } });

const config = (dir: string) => `// agent-spaces.config.ts
export default {
  capabilities: {
    global: [
      '@agent-spaces/std',  // Standard library (fs, fetch, etc.)
      './capabilities/company-sdk',
    ],
    mcpServers: {
      slack: { command: 'node', args: [${JSON.stringify(fixtureServer)}], env: { TOOLS_FILE: ${JSON.stringify(join(dir, 'slack-tools.json'))} } },
      github: { command: 'node', args: [${JSON.stringify(fixtureServer)}], env: { TOOLS_FILE: ${JSON.stringify(join(dir, 'github-tools.json'))} } },
    },
  },
  openapi: [{ name: 'todos', spec: './todos.openapi.json', baseUrl: 'http://127.0.0.1:9' }],
};
`;

const TODOS = {
  openapi: '3.0.0',
  info: { title: 'Todos', version: '1.0.0' },
  paths: { '/todos': { get: { operationId: 'listTodos', responses: { 200: { description: 'ok' } } } } },
};

let project: Project;
let space: Space;

beforeAll(async () => {
  project = await makeProject();
  const sdk = project.path('capabilities/company-sdk');
  await mkdir(sdk, { recursive: true });
  await writeFile(join(sdk, 'package.json'), JSON.stringify({ name: '@company/internal-sdk', version: '3.0.0', type: 'module', main: 'index.js', types: 'index.d.ts' }));
  await writeFile(join(sdk, 'index.js'), "export const ticketUrl = (id) => `https://tickets.company.test/${encodeURIComponent(id)}`;\n");
  await writeFile(join(sdk, 'index.d.ts'), '/** The link to a ticket. */\nexport declare function ticketUrl(id: string): string;\n');
  await project.write({
    'slack-tools.json': [TOOL('post_message')],
    'github-tools.json': [TOOL('create_issue')],
    'todos.openapi.json': TODOS,
    'agent-spaces.config.ts': config(project.dir),
  });
  const loaded = await loadConfig({ cwd: project.dir });
  const report = await buildCapabilities({
    rootDir: loaded.rootDir,
    sources: loaded.config.capabilities,
    outDir: loaded.config.outDir,
    configSources: configSources(loaded.config),
  });
  expect(report.capabilities.map((c) => [c.id, c.status])).toEqual([
    ['mcp-github', 'built'],
    ['mcp-slack', 'built'],
    ['company-internal-sdk', 'built'],
    ['todos', 'built'],
  ]);
  space = await createSpace({ rootDir: project.dir, isolation: 'in-process', capabilities: ['@company/internal-sdk', 'mcp:slack', 'mcp:github', 'openapi:todos'] });
}, 60_000);

afterAll(async () => {
  await space?.close();
});

describe('the seed registry config', () => {
  it('gives the space the package by name, the MCP servers and the OpenAPI source, std always', async () => {
    expect(space.capabilities).toEqual(['company-internal-sdk', 'mcp-slack', 'mcp-github', 'todos']);
    const result = await space.run(`import { ticketUrl } from '@capabilities/company-internal-sdk';
import { slack } from '@capabilities/mcp-slack';
import { github } from '@capabilities/mcp-github';
import { json } from '@agent-spaces/std';
const url = ticketUrl('T-1');
export default [url, (await slack.postMessage({ text: url })).text, (await github.createIssue({ text: 'bug' })).text, json.stringify({ ok: true })];`);
    expect(result).toMatchObject({
      ok: true,
      result: ['https://tickets.company.test/T-1', 'post_message {"text":"https://tickets.company.test/T-1"}', 'create_issue {"text":"bug"}', '{"ok":true}'],
    });
  });

  it('fails a name that matches nothing with CAPABILITY_NOT_FOUND and the closest names', async () => {
    for (const [name, closest] of [
      ['mcp:slak', 'mcp-slack'],
      ['@company/internal-skd', '@company/internal-sdk'],
      ['openapi:todo', 'openapi:todos'],
    ] as const) {
      await expect(createSpace({ rootDir: project.dir, isolation: 'in-process', capabilities: [name] })).rejects.toMatchObject({
        code: 'CAPABILITY_NOT_FOUND',
        data: { name, closest: expect.arrayContaining([closest]) },
      });
    }
  });

  it('refuses mcpServers given twice and unknown registry keys with CONFIG_INVALID', async () => {
    const cases: [unknown, string][] = [
      [{ capabilities: { global: [], mcpServers: {} }, mcpServers: {} }, 'mcpServers is given twice'],
      [{ capabilities: { global: [], local: [] } }, 'capabilities.local is not a known key — did you mean "global"?'],
      [{ capabilities: { global: 'capabilities/*' } }, 'capabilities.global must be an array'],
      [{ capabilities: { global: [{ package: 'x', mode: 'remote' }] } }, `"capabilities" global[0].mode must be 'sandbox' or 'host'`],
      [{ capabilities: { mcpServers: { slack: { args: [] } } } }, '"capabilities" mcpServers: '],
    ];
    for (const [config, message] of cases) {
      const bad = await mkdtemp(project.path('bad-'));
      await writeFile(join(bad, 'agent-spaces.config.json'), JSON.stringify(config));
      await expect(loadConfig({ cwd: bad })).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining(message) });
    }
  });
});
