import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { BUILTIN_TOOL_NAMES } from '../src/config.js';
import { createCodeModeServer } from '../src/server.js';
import { callTool, connectInMemory } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';

let project: TestProject;
let client: Client;

beforeAll(async () => {
  project = await createProject();
  const server = createCodeModeServer({
    spaces: [
      { id: 'trains', name: 'Trains', version: '2.1.0', description: 'Timetables', capabilities: ['trains'] },
      { id: 'everything', name: 'Everything' },
    ],
    space: { rootDir: project.rootDir, handlers: project.handlers },
  });
  client = await connectInMemory(server);
});

afterAll(async () => {
  await client?.close();
  await project?.cleanup();
});

const SCHEDULE = `import { trainSchedule } from '@capabilities/trains';
const trips = await trainSchedule.getSchedule({ station: 'North' });
console.log('found', trips.length);
console.warn('careful');
export default trips.map((t) => t.destination);`;

describe('initialization', () => {
  it('takes serverInfo from the spaces and lists every built-in tool with an object input schema', async () => {
    expect(client.getServerVersion()).toMatchObject({ name: 'agent-spaces' });
    expect(client.getInstructions()).toContain('trains: Trains — Timetables');
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name).sort()).toEqual([...BUILTIN_TOOL_NAMES].sort());
    for (const tool of tools) expect(tool.inputSchema.type).toBe('object');
  });

  it("uses the single space's name and version as serverInfo (seed 000)", async () => {
    const one = await connectInMemory(
      createCodeModeServer({ spaces: [{ id: 'trains', name: 'Trains', version: '2.1.0', instructions: 'Use trains.' }], space: { rootDir: project.rootDir } }),
    );
    expect(one.getServerVersion()).toMatchObject({ name: 'Trains', version: '2.1.0' });
    expect(one.getInstructions()).toBe('Use trains.');
    await one.close();
  });
});

describe('execute', () => {
  it('returns the result, logs, capability call events and metadata', async () => {
    const answer = await callTool(client, 'execute', { code: SCHEDULE });
    expect(answer.isError).toBe(false);
    expect(answer.body.result).toEqual(['South', 'Airport']);
    expect(answer.body.logs).toEqual(['found 2', '[warn] careful']);
    expect(answer.body.events).toEqual([
      expect.objectContaining({ type: 'capability_call', capability: 'trains', function: 'getSchedule', params: { station: 'North' }, ok: true }),
    ]);
    expect(answer.body.metadata).toMatchObject({ capability_calls: 1 });
    expect(answer.body.metadata.duration_ms).toBeGreaterThanOrEqual(0);
  });

  it('returns type errors as a TYPE_ERROR tool error with diagnostics', async () => {
    const answer = await callTool(client, 'execute', {
      code: "import { trainSchedule } from '@capabilities/trains';\nexport default await trainSchedule.getTrainDetails({ trainId: 7 });",
    });
    expect(answer.isError).toBe(true);
    expect(answer.body.code).toBe('TYPE_ERROR');
    expect(answer.body.data.diagnostics.length).toBeGreaterThan(0);
  });

  it('returns a failing script as an error result with its code and logs, never a thrown error', async () => {
    const answer = await callTool(client, 'execute', { code: "console.log('before');\nthrow new Error('boom');" });
    expect(answer.isError).toBe(true);
    expect(answer.body.code).toBe('SCRIPT_ERROR');
    expect(answer.body.logs).toEqual(['before']);
  });

  it('runs in the space given by spaceId, and only sees that space’s capabilities', async () => {
    const vault = "import { vault } from '@capabilities/vault';\nexport default typeof vault.deleteSecrets;";
    expect((await callTool(client, 'execute', { code: vault, spaceId: 'everything' })).body.result).toBe('function');
    const denied = await callTool(client, 'execute', { code: vault, spaceId: 'trains' });
    expect(denied.isError).toBe(true);
    expect(['TYPE_ERROR', 'IMPORT_NOT_FOUND']).toContain(denied.body.code);
    expect((await callTool(client, 'execute', { code: 'export default 1;', spaceId: 'nope' })).body.code).toBe('SPACE_NOT_FOUND');
  });
});

describe('search_capabilities', () => {
  it('answers with the matching signatures only', async () => {
    const answer = await callTool(client, 'search_capabilities', { query: 'train details' });
    expect(answer.isError).toBe(false);
    const lines = answer.text.split('\n');
    expect(lines[0]).toBe("// import { trainSchedule } from '@capabilities/trains'");
    expect(lines[1]).toMatch(/^trainSchedule\.getTrainDetails\(params: \{ trainId: string;? ?\}\): Promise<.*> \/\/ Get details for a specific train$/);
    expect(answer.text).not.toContain('vault');
  });

  it('shows names only, or full docs with the types used, by detail', async () => {
    const names = await callTool(client, 'search_capabilities', { query: 'schedule station', detail: 'names', spaceId: 'everything' });
    expect(names.text.split('\n')).toContain('trainSchedule.getSchedule');
    expect(names.text).not.toContain('(');
    const full = await callTool(client, 'search_capabilities', { query: 'schedule station', detail: 'full' });
    expect(full.text).toContain('Get the scheduled trains of a station');
    expect(full.text).toContain('Station name');
    const limited = await callTool(client, 'search_capabilities', { query: 'train', detail: 'names', limit: 1 });
    expect(limited.text.split('\n')).toEqual(["// import { trainSchedule } from '@capabilities/trains'", 'trainSchedule.getTrainDetails', '// 1 more match: raise limit or refine the query']);
  });

  it('names the field of an invalid detail or a missing query', async () => {
    const bad = await callTool(client, 'search_capabilities', { query: 'x', detail: 'everything' });
    expect(bad.isError).toBe(true);
    expect(bad.body.code).toBe('INVALID_ARGUMENTS');
    expect(bad.body.data.errors[0].field).toBe('detail');
    const missing = await callTool(client, 'search_capabilities', {});
    expect(missing.body.data.errors).toEqual([{ field: 'query', problem: 'is required' }]);
  });
});

describe('describe_capabilities', () => {
  it('returns the full .d.ts of one capability, by id or export name', async () => {
    const byId = await callTool(client, 'describe_capabilities', { capability: 'trains' });
    expect(byId.text).toContain("declare module '@capabilities/trains'");
    expect(byId.text).toContain('getTrainDetails');
    expect((await callTool(client, 'describe_capabilities', { capability: 'trainSchedule' })).text).toBe(byId.text);
  });

  it('returns every module of the space without a capability, and CAPABILITY_NOT_FOUND for an unknown one', async () => {
    const all = await callTool(client, 'describe_capabilities', { spaceId: 'everything' });
    expect(all.text).toContain("'@capabilities/trains'");
    expect(all.text).toContain("'@capabilities/vault'");
    const unknown = await callTool(client, 'describe_capabilities', { capability: 'vault' });
    expect(unknown.body.code).toBe('CAPABILITY_NOT_FOUND');
  });
});

describe('tools/call errors', () => {
  it('answers an unknown tool with a TOOL_NOT_FOUND error result', async () => {
    const answer = await callTool(client, 'no_such_tool');
    expect(answer.isError).toBe(true);
    expect(answer.body.code).toBe('TOOL_NOT_FOUND');
  });

  it('names unknown arguments', async () => {
    const answer = await callTool(client, 'execute', { code: 'export default 1;', session_id: 'x' });
    expect(answer.body).toMatchObject({ code: 'INVALID_ARGUMENTS', data: { errors: [{ field: 'session_id', problem: 'is not a known argument' }] } });
  });
});
