import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { isAgentSpacesError } from '@agent-spaces/capabilities';
import { loadConfig, resolveConfig } from '../src/config/load.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let folder: Project;
let dir: string;

/** Writes the given files into the test's project folder (the repo's node_modules are linked in, so configs can import packages). */
async function project(files: Record<string, string>): Promise<string> {
  await folder.write(files);
  return dir;
}

async function loadError(options: Parameters<typeof loadConfig>[0]) {
  const error: unknown = await loadConfig(options).then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isAgentSpacesError(error)) throw new Error(`expected an AgentSpacesError, got ${String(error)}`);
  return error;
}

beforeEach(async () => {
  folder = await makeProject({}, { nodeModules: true });
  dir = folder.dir;
});

describe('loadConfig formats', () => {
  it('loads a TypeScript config that uses defineConfig and a local import, and leaves no temp file', async () => {
    await project({
      'agent-spaces.config.ts': `
        import { defineConfig } from '@agent-spaces/capabilities';
        import { tools } from './paths';
        const out: string = 'build/out';
        export default defineConfig({ capabilities: tools, outDir: out });`,
      'paths.ts': `export const tools: string[] = ['tools/*.json'];`,
    });
    const loaded = await loadConfig({ cwd: dir });
    expect(loaded).toEqual({
      config: { capabilities: ['tools/*.json'], outDir: join(dir, 'build/out'), mcpServers: {}, openapi: [], policies: {}, std: {}, packages: [], recordResults: true, typecheck: {} },
      raw: { capabilities: ['tools/*.json'], outDir: 'build/out' },
      file: join(dir, 'agent-spaces.config.ts'),
      rootDir: dir,
    });
    expect((await readdir(dir)).sort()).toEqual(['agent-spaces.config.ts', 'node_modules', 'paths.ts']);
  });

  it('loads an .mjs config', async () => {
    await project({ 'agent-spaces.config.mjs': `export default { capabilities: ['a.json'] };` });
    const { config, file } = await loadConfig({ cwd: dir });
    expect(file).toBe(join(dir, 'agent-spaces.config.mjs'));
    expect(config.capabilities).toEqual(['a.json']);
  });

  it('loads a .json config', async () => {
    await project({ 'agent-spaces.config.json': JSON.stringify({ outDir: 'out' }) });
    const { config } = await loadConfig({ cwd: dir });
    expect(config).toEqual({ capabilities: ['capabilities/*'], outDir: join(dir, 'out'), mcpServers: {}, openapi: [], policies: {}, std: {}, packages: [], recordResults: true, typecheck: {} });
  });

  it('loads an explicit config file relative to cwd and resolves paths against its folder', async () => {
    await project({ 'conf/custom.json': JSON.stringify({ capabilities: ['x/*.ts'] }) });
    const loaded = await loadConfig({ cwd: dir, configFile: 'conf/custom.json' });
    expect(loaded.rootDir).toBe(join(dir, 'conf'));
    expect(loaded.config.outDir).toBe(join(dir, 'conf/.agent-spaces'));
  });
});

describe('loadConfig lookup', () => {
  it('prefers .ts over .mjs over .json', async () => {
    await project({
      'agent-spaces.config.json': JSON.stringify({ outDir: 'json' }),
      'agent-spaces.config.mjs': `export default { outDir: 'mjs' };`,
    });
    expect((await loadConfig({ cwd: dir })).config.outDir).toBe(join(dir, 'mjs'));
    await project({ 'agent-spaces.config.ts': `export default { outDir: 'ts' };` });
    expect((await loadConfig({ cwd: dir })).config.outDir).toBe(join(dir, 'ts'));
  });

  it('reports CONFIG_NOT_FOUND listing every name tried', async () => {
    const error = await loadError({ cwd: dir });
    expect(error.code).toBe('CONFIG_NOT_FOUND');
    expect(error.data).toEqual({
      cwd: dir,
      tried: ['agent-spaces.config.ts', 'agent-spaces.config.mjs', 'agent-spaces.config.json'],
    });
    expect(error.message).toContain('agent-spaces.config.mjs');
  });

  it('reports CONFIG_NOT_FOUND for a missing explicit file', async () => {
    const error = await loadError({ cwd: dir, configFile: 'nope.ts' });
    expect(error.code).toBe('CONFIG_NOT_FOUND');
    expect(error.data?.tried).toEqual(['nope.ts']);
  });
});

describe('loadConfig validation', () => {
  it('rejects an unknown key, naming the file and the key', async () => {
    await project({ 'agent-spaces.config.ts': `export default { capabilities: [], mcpServer: {} };` });
    const error = await loadError({ cwd: dir });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.data).toEqual({ file: join(dir, 'agent-spaces.config.ts'), key: 'mcpServer' });
    expect(error.message).toBe('agent-spaces.config.ts: mcpServer is not a known key — did you mean "mcpServers"?');
  });

  it('rejects a malformed policies field, naming the file and the field, and carries a valid one', async () => {
    await project({ 'agent-spaces.config.json': JSON.stringify({ policies: { rules: { 'mail.send': [{ then: 'maybe' }] } } }) });
    const error = await loadError({ cwd: dir });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.data?.key).toBe('policies');
    expect(error.message).toContain('agent-spaces.config.json: "policies" is invalid (policies.rules["mail.send"][0].then: must be allow, ask or deny)');
    const policies = { toolPermission: 'never', rules: { files: 'deny' } };
    await project({ 'agent-spaces.config.json': JSON.stringify({ policies }) });
    expect((await loadConfig({ cwd: dir })).config.policies).toEqual(policies);
  });

  it.each([
    ['capabilities', `'capabilities/*'`],
    ['capabilities', `[1]`],
    ['outDir', `''`],
    ['outDir', `42`],
    ['recordResults', `'no'`],
    ['recordResults', `0`],
    ['recordResults', `null`],
    ['typecheck', `5000`],
    ['typecheck', `{ timeoutMs: 0 }`],
    ['typecheck', `{ memoryMb: 16 }`],
    ['typecheck', `{ maxSourceBytes: 1.5 }`],
    ['typecheck', `{ timeout: 5000 }`],
  ])('rejects a wrong type for %s (%s)', async (key, value) => {
    await project({ 'agent-spaces.config.mjs': `export default { ${key}: ${value} };` });
    const error = await loadError({ cwd: dir });
    expect(error.code).toBe('CONFIG_INVALID');
    // The field itself: `capabilities[0]` for an entry of `capabilities`.
    expect(String(error.data?.key).split('[')[0]).toBe(key);
  });

  it('names the typecheck field that is wrong, and reads a valid budget as written', async () => {
    await project({ 'small.mjs': 'export default { typecheck: { memoryMb: 16 } };', 'typo.mjs': 'export default { typecheck: { timeout: 5000 } };' });
    expect((await loadError({ cwd: dir, configFile: 'small.mjs' })).message).toContain('"typecheck" is invalid (typecheck.memoryMb must be an integer of at least 64)');
    expect((await loadError({ cwd: dir, configFile: 'typo.mjs' })).message).toContain('"typecheck" is invalid (typecheck has an unknown key "timeout" (known: timeoutMs, memoryMb, maxSourceBytes))');
    await project({ 'agent-spaces.config.json': JSON.stringify({ typecheck: { timeoutMs: 2000 } }) });
    expect((await loadConfig({ cwd: dir })).config.typecheck).toEqual({ timeoutMs: 2000 });
  });

  it.each([
    ['agent-spaces.config.json', '{ "outDir": '],
    ['agent-spaces.config.json', '[]'],
    ['agent-spaces.config.mjs', `export const outDir = 'x';`],
    ['agent-spaces.config.mjs', `throw new Error('boom');`],
    ['agent-spaces.config.ts', `export default { outDir: 'x' `],
  ])('rejects a malformed %s as CONFIG_INVALID', async (name, content) => {
    await project({ [name]: content });
    const error = await loadError({ cwd: dir });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.data).toEqual({ file: join(dir, name), key: 'default' });
  });

  it('rejects an explicit config file of an unsupported type', async () => {
    await project({ 'config.yaml': 'outDir: x' });
    expect((await loadError({ cwd: dir, configFile: 'config.yaml' })).code).toBe('CONFIG_INVALID');
  });
});

describe('the repository config', () => {
  it('builds the example capabilities from capabilities/*.ts and capabilities/*.json, and the memory MCP server', async () => {
    const repo = resolve(import.meta.dirname, '../../..');
    const loaded = await loadConfig({ cwd: repo });
    expect(loaded).toMatchObject({
      config: { capabilities: ['capabilities/*.ts', 'capabilities/*.json'], outDir: join(repo, '.agent-spaces') },
      file: join(repo, 'agent-spaces.config.ts'),
      rootDir: repo,
    });
    expect(loaded.config.mcpServers).toEqual({
      memory: {
        command: process.execPath,
        args: [join(repo, 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
        env: { MEMORY_FILE_PATH: join(repo, '.agent-spaces/memory.jsonl') },
      },
    });
  });
});

describe('resolveConfig', () => {
  it('fills defaults into a new object without mutating the input', () => {
    const input = Object.freeze({ capabilities: Object.freeze(['a/*']) as string[] });
    const resolved = resolveConfig(input, '/project');
    expect(resolved).toEqual({ capabilities: ['a/*'], outDir: '/project/.agent-spaces', mcpServers: {}, openapi: [], policies: {}, std: {}, packages: [], recordResults: true, typecheck: {} });
    expect(resolveConfig({ recordResults: false }, '/project').recordResults).toBe(false);
    expect(resolved.capabilities).not.toBe(input.capabilities);
    expect(input).toEqual({ capabilities: ['a/*'] });
  });
});

describe('mcpServers', () => {
  const memory = { command: 'node', args: ['memory.js'], env: { TOKEN: '${TOKEN}' } };

  it('carries the config key into the resolved config, placeholders unexpanded', async () => {
    await project({ 'agent-spaces.config.json': JSON.stringify({ mcpServers: { memory, remote: { url: 'http://127.0.0.1:1/mcp' } } }) });
    const { config } = await loadConfig({ cwd: dir });
    expect(config.mcpServers).toEqual({ memory, remote: { url: 'http://127.0.0.1:1/mcp' } });
  });

  it('rejects a malformed server, naming the file, the server and the field', async () => {
    await project({ 'agent-spaces.config.json': JSON.stringify({ mcpServers: { memory: { command: 'node', args: 'memory.js' } } }) });
    const error = await loadError({ cwd: dir });
    expect(error.code).toBe('CONFIG_INVALID');
    expect(error.data).toEqual({ file: join(dir, 'agent-spaces.config.json'), key: 'mcpServers' });
    expect(error.message).toContain('memory.args');
  });

  it('reads and merges the MCP client files beside the config when the config has no mcpServers', async () => {
    const other = { command: 'other' };
    await project({ 'agent-spaces.config.json': '{}', '.mcp.json': JSON.stringify({ mcpServers: { memory } }), 'mcp.json': JSON.stringify({ mcpServers: { memory: other, other } }) });
    const { config } = await loadConfig({ cwd: dir });
    expect(config.mcpServers).toEqual({ memory, other });
    expect(config.mcpNotes).toEqual(['mcp.json: server "memory" ignored (.mcp.json defines it first)']);
  });

  it('prefers the config key over .mcp.json, and reports a broken .mcp.json naming it', async () => {
    await project({ 'agent-spaces.config.json': JSON.stringify({ mcpServers: {} }), '.mcp.json': '{ broken' });
    expect((await loadConfig({ cwd: dir })).config.mcpServers).toEqual({});
    await project({ 'agent-spaces.config.json': '{}' });
    const error = await loadError({ cwd: dir });
    expect(error).toMatchObject({ code: 'INVALID_JSON', data: { file: join(dir, '.mcp.json') } });
  });
});
