// Tool groups (issue 33, item 1 follow-up): `server.tools` chooses which groups of built-in tools `mcp serve` lists,
// so a client that only writes code reads three tool definitions instead of nineteen. Over the real code-mode host
// with the official SDK client, and over a spawned `mcp serve --stdio` reading the config file.
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseServerConfig, TOOL_GROUPS, type ToolGroup } from '../src/config.js';
import { createCodeModeHost, type CodeModeHost } from '../src/server.js';
import { callTool, connectInMemory, newClient } from './support/client.js';
import { stdioServe } from './support/serve.js';
import { createProject, type TestProject } from './support/project.js';

const CODE_TOOLS = ['execute', 'search_capabilities', 'describe_capabilities'];
const SCHEDULE_CODE = "import { trainSchedule } from '@capabilities/trains';\nreturn (await trainSchedule.getSchedule({ station: 'Central' })).length;";

let project: TestProject;
const hosts: CodeModeHost[] = [];

beforeAll(async () => {
  project = await createProject();
}, 120_000);

afterAll(async () => {
  for (const host of hosts) await host.close();
  await project?.cleanup();
}, 120_000);

/** The names `tools/list` shows a client of a host listing `tools`. */
async function listed(tools: ToolGroup[] | undefined): Promise<{ names: string[]; client: Awaited<ReturnType<typeof connectInMemory>> }> {
  const host = createCodeModeHost({ spaces: [{ id: 'travel', name: 'Travel' }], ...(tools ? { tools } : {}), space: { rootDir: project.rootDir, handlers: project.handlers, isolation: 'in-process' } });
  hosts.push(host);
  const client = await connectInMemory(host.createServer());
  return { names: (await client.listTools()).tools.map((t) => t.name), client };
}

describe('server.tools', () => {
  it('lists every group by default, and only code plus the named groups when set', async () => {
    const all = (await listed(undefined)).names;
    for (const name of [...CODE_TOOLS, ...TOOL_GROUPS.sessions, ...TOOL_GROUPS.spaces, 'inject', ...TOOL_GROUPS.skills, 'list_agents']) expect(all).toContain(name);
    expect((await listed(['code'])).names).toEqual(CODE_TOOLS);
    expect((await listed([])).names).toEqual(CODE_TOOLS);
    expect((await listed(['sessions'])).names).toEqual([...CODE_TOOLS, ...TOOL_GROUPS.sessions]);
    const some = (await listed(['skills', 'inject'])).names;
    expect(some).toEqual([...CODE_TOOLS, 'inject', ...TOOL_GROUPS.skills]);
    expect(some).not.toContain('list_spaces');
  });

  it('runs code with only the code group, and refuses a hidden tool as unknown', async () => {
    const { client } = await listed(['code']);
    expect((await callTool(client, 'execute', { code: SCHEDULE_CODE })).body.result).toBeGreaterThan(0);
    for (const hidden of ['create_session', 'send_code', 'list_spaces', 'inject', 'save_skill', 'list_agents']) {
      const answer = await callTool(client, hidden, hidden === 'send_code' ? { sessionId: 'x', code: 'return 1' } : {});
      expect(answer.isError, hidden).toBe(true);
      expect(answer.body.code, hidden).toBe('TOOL_NOT_FOUND');
    }
  });

  it('refuses an unknown group with CONFIG_INVALID and a did-you-mean, and other hostile values', () => {
    const parse = (tools: unknown) => () => parseServerConfig({ server: { tools } }, 'agent-spaces.config.json');
    expect(parse(['code', 'sesions'])).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('did you mean "sessions"?'), data: expect.objectContaining({ key: 'server.tools[1]' }) }));
    expect(parse(['skill'])).toThrow(expect.objectContaining({ message: expect.stringContaining('did you mean "skills"?') }));
    expect(parse(['zzzzzzzzzzzzz'])).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('groups: code, sessions') }));
    for (const bad of ['code', [1], [null], [{}], ['code', 'code'], { code: true }, ['execute'], ['x'.repeat(10_000)], ['__proto__']]) {
      expect(parse(bad), JSON.stringify(bad).slice(0, 40)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    }
    expect(() => createCodeModeHost({ spaces: [{ id: 'a', name: 'A' }], tools: ['agent' as ToolGroup], space: { rootDir: project.rootDir } })).toThrow(
      expect.objectContaining({ code: 'CONFIG_INVALID', message: expect.stringContaining('did you mean "agents"?') }),
    );
    // A long unknown name is not echoed whole.
    expect(parse(['y'.repeat(5000)])).toThrow(expect.objectContaining({ message: expect.not.stringMatching(/y{100}/) }));
    expect(parseServerConfig({ server: { tools: ['code', 'skills'] } }, 'f').server.tools).toEqual(['code', 'skills']);
  });

  it('reads server.tools from the config file of a spawned `mcp serve --stdio`', async () => {
    const config = { capabilities: ['capabilities/*.json'], server: { tools: ['code', 'skills'] }, spaces: [{ id: 'travel', name: 'Travel' }] };
    await writeFile(join(project.rootDir, 'agent-spaces.config.json'), JSON.stringify(config));
    const transport = stdioServe(project.rootDir);
    const client = newClient();
    await client.connect(transport);
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual([...CODE_TOOLS, ...TOOL_GROUPS.skills]);
      expect((await callTool(client, 'list_sessions')).body.code).toBe('TOOL_NOT_FOUND');
    } finally {
      await client.close();
    }
  }, 60_000);
});

describe("execute's events", () => {
  it('carry each call\'s params within the budget, so a copied document is not read back', async () => {
    const { client } = await listed(['code']);
    const doc = `# Report\n${'A line of the quarterly report, copied between tools. '.repeat(600)}`;
    const code = `import { trainSchedule } from '@capabilities/trains';
const doc = ${JSON.stringify(doc)};
await trainSchedule.getSchedule({ station: doc });
await trainSchedule.getSchedule({ station: 'Central' });
return doc.length;`;
    const answer = await callTool(client, 'execute', { code });
    expect(answer.body.result).toBe(doc.length);
    expect(answer.text.length).toBeLessThan(1000);
    const [big, small] = answer.body.events;
    expect(JSON.stringify(big.params).length).toBeLessThanOrEqual(200);
    expect(big.params).toMatchObject({ truncated: true, start: expect.stringMatching(/^\{"station":"# Report/) });
    expect(big.params.start.length + big.params.omittedChars).toBe(JSON.stringify({ station: doc }).length);
    expect(small.params).toEqual({ station: 'Central' });
  });
});
