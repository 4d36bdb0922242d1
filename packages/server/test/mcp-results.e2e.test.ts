import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { createCodeModeServer } from '../src/server.js';
import { MCP_RESULT_NOTE } from '../src/search.js';
import { callTool, connectInMemory } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

/**
 * What an agent reads about MCP results, against the official `everything` server built from a project's
 * `mcpServers`: the one sentence explaining `McpToolResult` in the instructions, the `inject` prompt and search answers.
 */

const serverScript = (pkg: string) => fileURLToPath(new URL(`../../../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url));

let project: Project;
let client: Client;
let trains: TestProject;
let trainsClient: Client;

beforeAll(async () => {
  const config = { capabilities: [], mcpServers: { everything: { command: process.execPath, args: [serverScript('server-everything'), 'stdio'] } } };
  project = await makeProject({ 'agent-spaces.config.json': config });
  const report = await project.build();
  expect(report.totals.failed).toBe(0);
  client = await connectInMemory(createCodeModeServer({ spaces: [{ id: 'mcp', name: 'MCP' }], space: { rootDir: project.dir } }));
  trains = await createProject();
  trainsClient = await connectInMemory(createCodeModeServer({ spaces: [{ id: 'trains', name: 'Trains' }], space: { rootDir: trains.rootDir } }));
}, 60_000);

afterAll(async () => {
  await client?.close();
  await trainsClient?.close();
  await trains?.cleanup();
});

describe('the sentence explaining MCP results', () => {
  it('is in the server instructions and the inject prompt once, when the space has an MCP tool', async () => {
    expect(client.getInstructions()).toContain(MCP_RESULT_NOTE);
    const prompt: string = (await callTool(client, 'inject', { spaceId: 'mcp' })).body.prompt;
    expect(prompt.split(MCP_RESULT_NOTE)).toHaveLength(2);
    expect((await callTool(client, 'inject', { spaceId: 'mcp', format: 'structured' })).body.codeInstructions).toContain(MCP_RESULT_NOTE);
  });

  it('ends a search answer showing an MCP tool signature, and only that detail', async () => {
    const signatures = (await callTool(client, 'search_capabilities', { query: 'echo a message' })).text;
    expect(signatures).toMatch(/everything\.echo\(params: \{ message: string \}\): Promise<McpToolResult>/);
    expect(signatures.endsWith(`// ${MCP_RESULT_NOTE}`)).toBe(true);
    expect((await callTool(client, 'search_capabilities', { query: 'echo a message', detail: 'names' })).text).not.toContain(MCP_RESULT_NOTE);
    // Resources resolve to their own types: no note.
    expect((await callTool(client, 'search_capabilities', { query: 'read resource', limit: 1 })).text).not.toContain(MCP_RESULT_NOTE);
  });

  it('is left out where no function returns an MCP result', async () => {
    expect(trainsClient.getInstructions()).not.toContain('McpToolResult');
    expect((await callTool(trainsClient, 'inject', { spaceId: 'trains' })).body.prompt).not.toContain('McpToolResult');
    expect((await callTool(trainsClient, 'search_capabilities', { query: 'train details' })).text).not.toContain('McpToolResult');
  });
});

describe('TYPE_ERROR answers that teach', () => {
  const imports = "import { trainSchedule } from '@capabilities/trains';\n";

  it('name the capability function of a bad call and give its signature, over MCP', async () => {
    const answer = await callTool(trainsClient, 'execute', { code: `${imports}export default await trainSchedule.getTrainDetails({ trainId: 7 });` });
    expect(answer.body.code).toBe('TYPE_ERROR');
    const signature = 'trainSchedule.getTrainDetails(params: { trainId: string }): Promise<GetTrainDetailsResult>';
    // The signature is shown once, in the message (docs/sdk-and-cli.md, "Typechecking").
    expect(answer.body.data.diagnostics[0].function).toEqual({ name: 'trainSchedule.getTrainDetails', module: '@capabilities/trains' });
    expect(answer.body.message).toContain(`trainSchedule.getTrainDetails is declared as:\n  ${signature}  // from '@capabilities/trains'`);
  });

  it('list the closest names, with signatures, for a misspelt function', async () => {
    const answer = await callTool(trainsClient, 'execute', { code: `${imports}export default await trainSchedule.getSchedul({ station: 'North' });` });
    expect(answer.body.code).toBe('TYPE_ERROR');
    expect(answer.body.data.diagnostics[0].closest.map((h: { name: string }) => h.name)).toEqual(['trainSchedule.getSchedule']);
    expect(answer.body.message).toMatch(/Did you mean:\n {2}trainSchedule\.getSchedule\(params\?: \{ station\?: string \}\): Promise<GetScheduleResultItem\[\]>/);
  });
});
