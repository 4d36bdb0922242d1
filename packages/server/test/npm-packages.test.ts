// npm packages named in the config's `capabilities`, end to end: a real package from npm (`change-case`, a devDependency)
// in `sandbox` mode is bundled into the isolate, typed by its own declarations and called from agent code; packages
// that cannot run there, or are not installed, are refused naming why; search over MCP finds its functions.
import { mkdir, mkdtemp, readFile, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CapabilityMeta } from '@agent-spaces/capabilities';
import { readBuiltFile, readBuiltJson } from '@agent-spaces/bridge/output';
import { buildCapabilities, configSources, loadConfig } from '@agent-spaces/compiler';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { createCodeModeServer } from '@agent-spaces/server';
import { makeProject } from '../../../test/fixtures/project.js';
import { callTool, connectInMemory } from './support/client.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
let dir: string;
let space: Space;

/** A local package on disk, as `npm install` leaves one. */
async function localPackage(name: string, files: Record<string, string>): Promise<void> {
  const pkgDir = join(dir, 'node_modules', name);
  await mkdir(pkgDir, { recursive: true });
  for (const [file, text] of Object.entries(files)) {
    await mkdir(join(pkgDir, file, '..'), { recursive: true });
    await writeFile(join(pkgDir, file), text);
  }
}

/** Builds the project with `capabilities` as its config key; returns the report. */
async function build(capabilities: unknown[]) {
  await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities }));
  const { config, rootDir } = await loadConfig({ cwd: dir });
  return buildCapabilities({ rootDir, sources: config.capabilities, outDir: config.outDir, configSources: configSources(config) });
}

beforeAll(async () => {
  ({ dir } = await makeProject());
  await mkdir(join(dir, 'node_modules'));
  await symlink(join(repo, 'node_modules/change-case'), join(dir, 'node_modules/change-case'));
  await localPackage('needs-fs', {
    'package.json': JSON.stringify({ name: 'needs-fs', version: '1.0.0', type: 'module', main: 'index.js', types: 'index.d.ts' }),
    'index.js': "export { read } from './lib/read.js';\n",
    'lib/read.js': "import { readFileSync } from 'node:fs';\nexport const read = (p) => readFileSync(p, 'utf8');\n",
    'index.d.ts': 'export declare function read(path: string): string;\n',
  });
  await localPackage('untyped', {
    'package.json': JSON.stringify({ name: 'untyped', version: '1.0.0', type: 'module', main: 'index.js' }),
    'index.js': 'export const twice = (x) => x * 2;\n',
  });
  const report = await build(['npm:change-case', { package: 'change-case', name: 'cases', exports: ['snakeCase'] }]);
  expect(report.capabilities.map((c) => [c.id, c.status, c.diagnostics])).toEqual([
    ['change-case', 'built', []],
    ['cases', 'built', []],
  ]);
  space = await createSpace({ rootDir: dir, isolation: 'in-process' });
}, 60_000);

afterAll(async () => {
  await space?.close();
});

describe('an npm package in sandbox mode', () => {
  it('runs in the isolate with the package own signatures, without a host call', async () => {
    const result = await space.run(`import { camelCase, capitalCase } from '@capabilities/change-case';
import { snakeCase } from '@capabilities/cases';
const words: string = camelCase('morning train schedule');
export default [words, capitalCase('central station'), snakeCase('Platform Two')];`);
    expect(result).toMatchObject({ ok: true, result: ['morningTrainSchedule', 'Central Station', 'platform_two'], stats: { capabilityCalls: 0 } });
  });

  it('catches a type error against the package declarations on the agent line', async () => {
    const result = await space.run(`import { camelCase } from '@capabilities/change-case';
const n: number = camelCase('a b');
export default n;`);
    expect(result.ok).toBe(false);
    if (result.ok) return;
    expect(result.error.code).toBe('TYPE_ERROR');
    expect(result.error.message).toMatch(/agent\.ts:2/);
    const limited = await space.run(`import { camelCase } from '@capabilities/cases';\nexport default camelCase('x');`);
    expect(limited).toMatchObject({ ok: false, error: { code: 'TYPE_ERROR' } });
  });

  it('records the package name, version and mode in meta.json', async () => {
    const version = (JSON.parse(await readFile(join(repo, 'node_modules/change-case/package.json'), 'utf8')) as { version: string }).version;
    const meta = readBuiltJson(join(dir, '.agent-spaces/capabilities'), 'change-case', 'meta.json') as CapabilityMeta;
    expect(meta).toMatchObject({ source: { kind: 'npm', file: 'npm:change-case' }, package: { name: 'change-case', version, mode: 'sandbox' }, functions: [] });
  });
});

describe('a sandbox-mode package in search', () => {
  let client: Client;
  beforeAll(async () => {
    client = await connectInMemory(createCodeModeServer({ spaces: [{ id: 'npm', name: 'Npm' }], space: { rootDir: dir, isolation: 'in-process' } }));
  });
  afterAll(() => client?.close());

  it('is found over MCP by what its functions do, under the import line to write, and runs as found', async () => {
    const byDoc = await callTool(client, 'search_capabilities', { query: 'an array of words, separating numbers', limit: 3 });
    expect(byDoc.text.split('\n').slice(0, 2)).toEqual([
      "// import { splitSeparateNumbers } from '@capabilities/change-case'",
      'splitSeparateNumbers(value: string): string[] // Split the input string into an array of words, separating numbers.',
    ]);
    const bySnake = await callTool(client, 'search_capabilities', { query: 'convert a string to snake case', limit: 3, detail: 'full' });
    // Both packages' snakeCase first (the query says what they do), then pascalSnakeCase.
    expect(bySnake.text.startsWith("// import { snakeCase } from '@capabilities/cases'\n/**\n * Convert a string to snake case (`foo_bar`).\n */\nsnakeCase(input: string, options?: Options): string;\n")).toBe(true);
    expect(bySnake.text).toContain(
      "// import { snakeCase, pascalSnakeCase } from '@capabilities/change-case'\n" +
        '/**\n * Convert a string to snake case (`foo_bar`).\n */\nsnakeCase(input: string, options?: Options): string;\n',
    );
    expect(bySnake.text).toContain('/**\n * Convert a string to pascal snake case (`Foo_Bar`).\n */\npascalSnakeCase(input: string, options?: Options): string;\n');
    // The types the signature names come with it, transitively.
    expect(bySnake.text).toMatch(/export interface Options \{[\s\S]*export type Locale = string\[\] \| string \| false \| undefined;/);
    const run = await callTool(client, 'execute', { code: "import { snakeCase } from '@capabilities/cases';\nexport default snakeCase('Platform Two');" });
    expect(run.body).toMatchObject({ result: 'platform_two', metadata: { capability_calls: 0 } });
  });

  it('describes the module with the package signatures, and the compiled prompt lists them', async () => {
    const described = await callTool(client, 'describe_capabilities', { capability: 'camelCase' });
    expect(described.text).toMatch(/^\/\/ @capabilities\/change-case\n/);
    expect(described.text).toContain('export function camelCase(input: string, options?: PascalCaseOptions): string;');
    const { prompt } = (await callTool(client, 'inject', { spaceId: 'npm' })).body as { prompt: string };
    expect(prompt).toContain("`import { snakeCase } from '@capabilities/cases';`");
    expect(prompt).toContain("an npm package's functions keep their own signatures, as listed");
    expect(prompt).toContain("// import { snakeCase } from '@capabilities/cases'\nsnakeCase(input: string, options?: Options): string // Convert a string to snake case (`foo_bar`).");
  });
});

describe('rebuilds', () => {
  it('skips an unchanged package, and rebuilds it when another version is installed', async () => {
    const version = (v: string, body: string) =>
      localPackage('pure-math', {
        'package.json': JSON.stringify({ name: 'pure-math', version: v, type: 'module', main: 'index.js', types: 'index.d.ts' }),
        'index.js': `export const double = (x) => ${body};\n`,
        'index.d.ts': 'export declare function double(x: number): number;\n',
      });
    await version('1.0.0', 'x * 2');
    expect((await build(['npm:pure-math'])).capabilities.map((c) => c.status)).toEqual(['built']);
    expect((await build(['npm:pure-math'])).capabilities.map((c) => c.status)).toEqual(['unchanged']);
    await version('1.0.1', 'x + x');
    expect((await build(['npm:pure-math'])).capabilities).toMatchObject([{ status: 'built' }]);
    const meta = readBuiltJson(join(dir, '.agent-spaces/capabilities'), 'pure-math', 'meta.json') as CapabilityMeta;
    expect(meta.package).toEqual({ name: 'pure-math', version: '1.0.1', mode: 'sandbox' });
    expect(readBuiltFile(join(dir, '.agent-spaces/capabilities'), 'pure-math', 'index.js')).toContain('x + x');
  });
});

describe('packages that cannot be built', () => {
  it('refuses a package that needs a Node built-in, naming the built-in and the file importing it', async () => {
    const report = await build(['npm:needs-fs']);
    const [entry] = report.capabilities;
    expect(entry).toMatchObject({ status: 'failed', diagnostics: [{ code: 'INVALID_DEFINITION', file: 'npm:needs-fs' }] });
    expect(entry!.diagnostics[0]!.message).toContain("node_modules/needs-fs/lib/read.js imports the Node built-in 'node:fs'");
  });

  it('refuses a package that is not installed, or has no declarations', async () => {
    const report = await build(['npm:not-installed-anywhere', 'npm:untyped']);
    expect(report.capabilities.map((c) => [c.file, c.status, c.diagnostics[0]?.code])).toEqual([
      ['npm:not-installed-anywhere', 'failed', 'SOURCE_NOT_FOUND'],
      ['npm:untyped', 'failed', 'INVALID_DEFINITION'],
    ]);
  });

  it('refuses malformed package entries with CONFIG_INVALID naming the entry and field', async () => {
    const cases: [unknown, string][] = [
      ['npm:', '[0] "npm:" does not name an npm package'],
      ['npm:Bad Name', '[0] "npm:Bad Name" does not name an npm package'],
      [{ package: 'a/b/c' }, '[0].package must be an npm package name or a folder path starting with ./ or ../'],
      [{ package: '/etc' }, '[0].package must be an npm package name'],
      [{ package: 'change-case', mode: 'remote' }, "[0].mode must be 'sandbox' or 'host'"],
      [{ package: 'change-case', exports: [] }, '[0].exports must be a non-empty array of export names'],
      [{ package: 'change-case', exports: ['a-b'] }, '[0].exports must be a non-empty array of export names'],
      [{ package: 'change-case', name: '---' }, '[0].name must be a module name'],
      [{ package: 'change-case', version: '1' }, '[0].version is not a known key'],
      [7, '[0] must be a file glob, npm:<package> or { package, name?, exports?, mode? }'],
      ['', '[0] must be a file glob'],
    ];
    for (const [entry, message] of cases) {
      await expect(build([entry])).rejects.toMatchObject({ code: 'CONFIG_INVALID', message: expect.stringContaining(message) });
    }
  });
});

describe('a defineTool() capability importing npm packages', () => {
  it('bundles them into host.mjs, lists them in meta.json, and runs after the project folder moves', async () => {
    const project = await mkdtemp(join(tmpdir(), 'agent-spaces-bundled-'));
    const moved = `${project}-moved`;
    try {
      await mkdir(join(project, 'node_modules/@agent-spaces'), { recursive: true });
      await symlink(join(repo, 'node_modules/change-case'), join(project, 'node_modules/change-case'));
      await symlink(join(repo, 'packages/capabilities'), join(project, 'node_modules/@agent-spaces/capabilities'));
      await mkdir(join(project, 'capabilities'));
      await writeFile(
        join(project, 'capabilities/keys.ts'),
        `import { defineTool } from '@agent-spaces/capabilities';
import { snakeCase } from 'change-case';
export const keys = defineTool({
  name: 'keys',
  functions: { key: { description: 'A snake_case key', parameters: { text: { type: 'string' } }, returns: {} as string, handler: async ({ text }) => snakeCase(text) } },
});
`,
      );
      const report = await buildCapabilities({ rootDir: project, sources: ['capabilities/*.ts'] });
      expect(report.capabilities).toMatchObject([{ id: 'keys', status: 'built' }]);
      const meta = readBuiltJson(join(project, '.agent-spaces/capabilities'), 'keys', 'meta.json') as CapabilityMeta;
      const version = (JSON.parse(await readFile(join(repo, 'node_modules/change-case/package.json'), 'utf8')) as { version: string }).version;
      expect(meta.dependencies).toEqual([
        { name: '@agent-spaces/capabilities', version: expect.any(String) },
        { name: 'change-case', version },
      ]);
      const host = readBuiltFile(join(project, '.agent-spaces/capabilities'), 'keys', 'host.mjs');
      expect(host).not.toMatch(/from ["'][^"']*node_modules/);
      await rename(project, moved);
      await rm(join(moved, 'node_modules'), { recursive: true, force: true });
      const movedSpace = await createSpace({ rootDir: moved, isolation: 'in-process' });
      try {
        const result = await movedSpace.run(`import { keys } from '@capabilities/keys';\nexport default await keys.key({ text: 'Morning Train' });`);
        expect(result).toMatchObject({ ok: true, result: 'morning_train' });
      } finally {
        await movedSpace.close();
      }
    } finally {
      await rm(project, { recursive: true, force: true });
      await rm(moved, { recursive: true, force: true });
    }
  });
});
