// Typed results for MCP tools without an output schema, end to end against the official servers: runs record the
// shape of a JSON-text tool's results (everything's `get-env`: the server's environment as JSON), the next build
// types the function's result from them, agent code using the data typechecks and a misuse is refused on its line.
// An inferred type never fails a call; recording is opt-out. Tools that declare an output schema (the memory and
// filesystem servers declare one for every tool) are typed from it and never recorded.
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { observedFile } from '@agent-spaces/capabilities';
import { readObserved } from '@agent-spaces/bridge/output';
import { buildCapabilities, configSources, loadConfig } from '@agent-spaces/compiler';
import { createSpace, type RunResult } from '@agent-spaces/sdk';
import { runCli } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';

const serverScript = (pkg: string) => fileURLToPath(new URL(`../../../node_modules/@modelcontextprotocol/${pkg}/dist/index.js`, import.meta.url));
const SECRET = 'inferred-results-secret-5521';
const ID = 'mcp-everything';

let rootDir: string;
let outDir: string;

async function build(): Promise<string> {
  const { config, rootDir: root } = await loadConfig({ cwd: rootDir });
  const report = await buildCapabilities({ rootDir: root, sources: [], configSources: configSources(config), outDir: config.outDir });
  expect(report.totals.failed).toBe(0);
  return readFile(join(outDir, 'capabilities', ID, 'index.d.ts'), 'utf8');
}

/** Runs `code` in a new space of the project, closed after: what the run recorded is on disk when it returns. */
async function run(code: string, options: { recordResults?: boolean } = {}): Promise<RunResult> {
  const space = await createSpace({ rootDir, policies: { audit: false }, ...options });
  try {
    return await space.run(code);
  } finally {
    await space.close();
  }
}

const getEnv = "import { everything } from '@capabilities/mcp-everything';\nconst r = await everything.getEnv();\n";

beforeAll(async () => {
  const config = {
    capabilities: [],
    mcpServers: { everything: { command: process.execPath, args: [serverScript('server-everything'), 'stdio'], env: { INFERRED_TOKEN: SECRET } } },
  };
  ({ dir: rootDir } = await makeProject({ 'agent-spaces.config.json': config }));
  outDir = join(rootDir, '.agent-spaces');
  await build();
}, 60_000);

describe('typed results inferred from recorded calls', () => {
  it('types a JSON-text tool McpToolResult with unknown data until results were seen', async () => {
    const dts = await readFile(join(outDir, 'capabilities', ID, 'index.d.ts'), 'utf8');
    expect(dts).toMatch(/getEnv\(\): Promise<McpToolResult>;/);
    const misuse = await run(`${getEnv}const home: string = r.data.HOME;\nexport default home;`, { recordResults: false });
    expect(misuse).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
    // The data is there at run time, parsed from the text.
    const ok = await run(`${getEnv}export default { same: JSON.stringify(r.data) === JSON.stringify(JSON.parse(r.text)), kind: typeof r.data };`, {
      recordResults: false,
    });
    expect(ok).toMatchObject({ ok: true, result: { same: true, kind: 'object' } });
    expect(readObserved(outDir, ID).tools).toEqual({});
  }, 30_000);

  it('records the shape of two calls, no values, and the rebuild types the result from them', async () => {
    const recorded = await run(`${getEnv}const again = await everything.getEnv();\nexport default [r.text.length > 0, again.text.length > 0];`);
    expect(recorded).toMatchObject({ ok: true, result: [true, true] });
    const file = await readFile(observedFile(outDir, ID), 'utf8');
    expect(file).not.toContain(SECRET);
    expect(file).not.toContain(process.execPath);
    expect(readObserved(outDir, ID).tools['get-env']).toMatchObject({ results: 2, schema: { type: 'object' } });

    const dts = await build();
    expect(dts).toMatch(/Result `data` typed from 2 results seen \(inferred, not declared by the server: a result may differ\)\./);
    expect(dts).toMatch(/getEnv\(\): Promise<McpDataResult<GetEnvData>>;/);
    expect(dts).toMatch(/export (interface|type) GetEnvData\b/);
  }, 60_000);

  it('typechecks agent code using the inferred type, and refuses a misuse on its line', async () => {
    const used = await run(`${getEnv}const values: string[] = Object.values(r.data);\nexport default values.every((v) => typeof v === 'string');`);
    expect(used).toMatchObject({ ok: true, result: true });
    const misuse = await run(`${getEnv}const count: number = r.data.HOME;\nexport default count;`);
    expect(misuse).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR', data: { diagnostics: [{ code: 2322, line: 3 }] } } });
  }, 30_000);

  it('never fails a call whose result does not fit the inferred type', async () => {
    // An observation of echo that its results do not fit: echo answers plain text, without data.
    const file = readObserved(outDir, ID);
    file.tools.echo = { results: 1, schema: { type: 'object', properties: { n: { type: 'integer' } }, required: ['n'] } };
    await writeFile(observedFile(outDir, ID), JSON.stringify(file));
    expect(await build()).toMatch(/echo\(params: EchoParams\): Promise<McpDataResult<EchoData>>;/);
    const echoed = await run("import { everything } from '@capabilities/mcp-everything';\nconst r = await everything.echo({ message: 'hi' });\nexport default { text: r.text, data: r.data ?? null };");
    expect(echoed).toMatchObject({ ok: true, result: { text: 'Echo: hi', data: null } });
  }, 60_000);

  it('records nothing with recordResults: false', async () => {
    const before = readObserved(outDir, ID).tools['get-env']!.results;
    expect(await run(`${getEnv}export default 1;`, { recordResults: false })).toMatchObject({ ok: true });
    expect(readObserved(outDir, ID).tools['get-env']!.results).toBe(before);
    expect(await run(`${getEnv}export default 1;`)).toMatchObject({ ok: true });
    expect(readObserved(outDir, ID).tools['get-env']!.results).toBe(before + 1);
  }, 30_000);

  it('records nothing for agent-spaces run when the config file says recordResults: false', async () => {
    const config = join(rootDir, 'agent-spaces.config.json');
    const original = await readFile(config, 'utf8');
    await writeFile(join(rootDir, 'get-env.ts'), `${getEnv}export default Object.keys(r.data).length > 0;`);
    const before = readObserved(outDir, ID).tools['get-env']!.results;
    try {
      await writeFile(config, JSON.stringify({ ...JSON.parse(original), recordResults: false }));
      const off = await runCli(rootDir, ['run', 'get-env.ts']);
      expect(off.code, off.stderr).toBe(0);
      expect(readObserved(outDir, ID).tools['get-env']!.results).toBe(before);
    } finally {
      await writeFile(config, original);
    }
    const on = await runCli(rootDir, ['run', 'get-env.ts']);
    expect(on.code, on.stderr).toBe(0);
    expect(readObserved(outDir, ID).tools['get-env']!.results).toBe(before + 1);
  }, 60_000);

  it('writes what several runs of a space recorded by the time close() resolves', async () => {
    const before = readObserved(outDir, ID).tools['get-env']!.results;
    const space = await createSpace({ rootDir, policies: { audit: false } });
    try {
      for (let i = 0; i < 3; i++) expect(await space.run(`${getEnv}export default 1;`)).toMatchObject({ ok: true });
    } finally {
      await space.close();
    }
    expect(readObserved(outDir, ID).tools['get-env']!.results).toBe(before + 3);
  }, 30_000);

  it('never fails a run or close() when the observed folder cannot be written', async () => {
    const folder = join(outDir, 'observed');
    await rename(folder, `${folder}.kept`);
    try {
      // A file where the folder should be: nothing can be written under it.
      await writeFile(folder, 'in the way');
      expect(await run(`${getEnv}export default Object.keys(r.data).length > 0;`)).toMatchObject({ ok: true, result: true });
      expect(await readFile(folder, 'utf8')).toBe('in the way');
    } finally {
      await rm(folder, { force: true });
      await rename(`${folder}.kept`, folder);
    }
  }, 30_000);
});

describe('tools that declare an output schema (memory, filesystem)', () => {
  let dir: string;
  let dts: Record<string, string>;

  beforeAll(async () => {
    ({ dir } = await makeProject());
    const mcpServers = {
      memory: { command: process.execPath, args: [serverScript('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
      filesystem: { command: process.execPath, args: [serverScript('server-filesystem'), dir] },
    };
    await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], mcpServers }));
    const { config, rootDir: root } = await loadConfig({ cwd: dir });
    expect((await buildCapabilities({ rootDir: root, sources: [], configSources: configSources(config) })).totals.failed).toBe(0);
    const read = (id: string) => readFile(join(dir, '.agent-spaces/capabilities', id, 'index.d.ts'), 'utf8');
    dts = { memory: await read('mcp-memory'), filesystem: await read('mcp-filesystem') };
  }, 60_000);

  it('types results from the declared schema, records none of them, and refuses a misuse on its line', async () => {
    expect(dts.memory).toMatch(/readGraph\(\): Promise<ReadGraphResult>;/);
    expect(dts.filesystem).toMatch(/listAllowedDirectories\(\): Promise<ListAllowedDirectoriesResult>;/);
    const script = [
      "import { memory } from '@capabilities/mcp-memory';",
      "import { filesystem } from '@capabilities/mcp-filesystem';",
      "await memory.createEntities({ entities: [{ name: 'Ada', entityType: 'person', observations: ['likes trains'] }] });",
      'const graph = await memory.readGraph();',
      'const allowed = await filesystem.listAllowedDirectories();',
    ].join('\n');
    const space = await createSpace({ rootDir: dir, policies: { audit: false } });
    try {
      const used = await space.run(`${script}\nexport default { names: graph.entities.map((e) => e.name), allowed: allowed.content.length > 0 };`);
      expect(used).toMatchObject({ ok: true, result: { names: ['Ada'], allowed: true } });
      const misuse = await space.run(`${script}\nconst first: number = graph.entities[0]!.name;\nexport default first;`);
      expect(misuse).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR', data: { diagnostics: [{ code: 2322, line: 6 }] } } });
    } finally {
      await space.close();
    }
    expect(readObserved(join(dir, '.agent-spaces'), 'mcp-memory').tools).toEqual({});
    expect(readObserved(join(dir, '.agent-spaces'), 'mcp-filesystem').tools).toEqual({});
    // The rebuild keeps the declared types.
    const { config, rootDir: root } = await loadConfig({ cwd: dir });
    await buildCapabilities({ rootDir: root, sources: [], configSources: configSources(config) });
    expect(await readFile(join(dir, '.agent-spaces/capabilities/mcp-memory/index.d.ts'), 'utf8')).toBe(dts.memory);
  }, 60_000);
});

describe('a tool whose results have data only sometimes', () => {
  let dir: string;
  const build = async () => {
    const { config, rootDir: root } = await loadConfig({ cwd: dir });
    expect((await buildCapabilities({ rootDir: root, sources: [], configSources: configSources(config) })).totals.failed).toBe(0);
    return readFile(join(dir, '.agent-spaces/capabilities/mcp-lookup/index.d.ts'), 'utf8');
  };
  const lookup = "import { lookup } from '@capabilities/mcp-lookup';\n";

  beforeAll(async () => {
    ({ dir } = await makeProject());
    // The fixture's `env` tool answers with the value of the variable named: JSON for one, plain text for the other.
    const tools = [{ name: 'env', description: 'Reads an environment variable', inputSchema: { type: 'object', properties: { name: { type: 'string' } }, required: ['name'] } }];
    await writeFile(join(dir, 'tools.json'), JSON.stringify(tools));
    const env = { TOOLS_FILE: join(dir, 'tools.json'), FOUND: JSON.stringify({ id: 7, tags: ['a'] }), MISSING: 'not found' };
    const server = fileURLToPath(new URL('../../../test/fixtures/mcp-tools-server.mjs', import.meta.url));
    await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], mcpServers: { lookup: { command: process.execPath, args: [server], env } } }));
    await build();
  }, 60_000);

  it('types data as possibly absent once a result had none, so code must check it', async () => {
    const space = await createSpace({ rootDir: dir, policies: { audit: false } });
    try {
      const both = await space.run(`${lookup}const a = await lookup.env({ name: 'FOUND' });\nconst b = await lookup.env({ name: 'MISSING' });\nexport default [a.data !== undefined, b.data === undefined, b.text];`);
      expect(both).toMatchObject({ ok: true, result: [true, true, 'not found'] });
    } finally {
      await space.close();
    }
    expect(readObserved(join(dir, '.agent-spaces'), 'mcp-lookup').tools.env).toMatchObject({ results: 1, withoutData: 1 });
    const dts = await build();
    expect(dts).toMatch(/env\(params: EnvParams\): Promise<McpToolResult<EnvData>>;/);
    expect(dts).toContain('Result `data` typed from 1 result seen (inferred, not declared by the server: a result may differ). 1 result had no JSON data: `data` may be absent.');

    const again = await createSpace({ rootDir: dir, policies: { audit: false } });
    try {
      const unchecked = await again.run(`${lookup}const r = await lookup.env({ name: 'FOUND' });\nexport default r.data.id;`);
      expect(unchecked).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR', data: { diagnostics: [{ code: 18048, line: 3 }] } } });
      const checked = await again.run(`${lookup}const r = await lookup.env({ name: 'FOUND' });\nconst id: number | undefined = r.data?.id;\nexport default id;`);
      expect(checked).toMatchObject({ ok: true, result: 7 });
    } finally {
      await again.close();
    }
  }, 60_000);
});
