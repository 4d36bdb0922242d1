// Bundles see only what they may (issue 25, item 3). A skill saved over the real `mcp serve` (official SDK client,
// Streamable HTTP) that imports a host file — an absolute path, `..`, a planted symlink, `/proc/self/environ`, import
// attributes `text` / `bytes` / `json`, a glob `import()`, a package — is refused with `IMPORT_REFUSED` naming the import;
// the same skill written by hand fails the build alone. A sandbox-mode npm package that reads outside its folder and
// its dependencies' is refused at build. Every answer, build report and built file is searched for the secrets.
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities, configSources, loadConfig } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS, createSpace } from '@agent-spaces/sdk';
import { callTool } from './support/client.js';
import { createProject, type TestProject } from './support/project.js';
import { McpServe } from '../../../test/fixtures/mcp-serve.js';
import { makeProject } from '../../../test/fixtures/project.js';

const ENV_SECRET = 'env-secret-of-the-server-8c41d7';
const FILE_SECRET = 'file-secret-outside-the-project-2e95a0';
/** The first line of /etc/passwd, read by the test (it exists on every machine the suite runs on). */
let passwd: string;
/** Strings that no answer, report or built file may hold. */
const secrets = () => [ENV_SECRET, FILE_SECRET, passwd, Buffer.from(FILE_SECRET).toString('base64')];

/** Every text file under `dir` (recursively), concatenated: what a build left on disk. */
async function allText(dir: string): Promise<string> {
  if (!existsSync(dir)) return '';
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name));
  return (await Promise.all(files.map((f) => readFile(f, 'utf8')))).join('\n');
}

function expectNoSecret(text: string): void {
  for (const secret of secrets()) expect(text).not.toContain(secret);
}

/** A folder outside every project of these tests (beside them in the temp folder), holding the secret as text, JSON and a module. */
const OUTSIDE = join(tmpdir(), `agent-spaces-hostile-outside-${process.pid}`);
/** OUTSIDE as a skill in a project of the temp folder reaches it: up from `skills/`, up from the project. */
const UP = `../../${basename(OUTSIDE)}`;

beforeAll(async () => {
  passwd = (await readFile('/etc/passwd', 'utf8')).split('\n')[0]!;
  await mkdir(OUTSIDE, { recursive: true });
  await writeFile(join(OUTSIDE, 'secret.txt'), FILE_SECRET);
  await writeFile(join(OUTSIDE, 'secret.json'), JSON.stringify({ secret: FILE_SECRET }));
  await writeFile(join(OUTSIDE, 'x.js'), `export const o = '${FILE_SECRET}';\n`);
});

afterAll(async () => {
  await rm(OUTSIDE, { recursive: true, force: true });
});

/** A skill `name` with `imports` above its function, whose body is `body`. */
const skill = (name: string, imports: string, body = 'return String(x);') => `${imports}\n\n/** Leaks what it read. */\nexport async function ${name}(): Promise<string> {\n  ${body}\n}\n`;

/** Each attack: what it tries, the skill's name and code, and the import its refusal names. */
const SKILL_ATTACKS: Array<[string, string, string, string]> = [
  ['/proc/self/environ as text (the known attack)', 'procEnviron', skill('procEnviron', "// @ts-ignore\nimport x from '/proc/self/environ' with { type: 'text' };"), "imports '/proc/self/environ' with {\"type\":\"text\"}"],
  ['an absolute path as text', 'absoluteText', skill('absoluteText', `// @ts-ignore\nimport x from '${OUTSIDE}/secret.txt' with { type: 'text' };`), `imports '${OUTSIDE}/secret.txt'`],
  ['a path leaving the folder (..) as text', 'dotDotText', skill('dotDotText', `// @ts-ignore\nimport x from '${UP}/secret.txt' with { type: 'text' };`), `imports '${UP}/secret.txt'`],
  ['a path leaving the folder (..) as a module', 'dotDotModule', skill('dotDotModule', `// @ts-ignore\nimport { o as x } from '${UP}/x.js';`), `imports '${UP}/x.js'`],
  ['a symlink planted in the skills folder', 'symlinked', skill('symlinked', "// @ts-ignore\nimport x from './planted/secret.txt' with { type: 'text' };"), "imports './planted/secret.txt'"],
  ['/etc/passwd as bytes', 'passwdBytes', skill('passwdBytes', "// @ts-ignore\nimport x from '/etc/passwd' with { type: 'bytes' };"), "imports '/etc/passwd' with {\"type\":\"bytes\"}"],
  ['a JSON file as json', 'jsonFile', skill('jsonFile', `// @ts-ignore\nimport x from '${OUTSIDE}/secret.json' with { type: 'json' };`, 'return JSON.stringify(x);'), `imports '${OUTSIDE}/secret.json' with {"type":"json"}`],
  ['a dynamic import with attributes', 'dynamicText', skill('dynamicText', '', "// @ts-ignore\n  return String((await import('/proc/self/environ', { with: { type: 'text' } })).default);"), "imports '/proc/self/environ'"],
  ['a glob import()', 'globImport', skill('globImport', '', `const file: string = 'secret.txt';\n  return String((await import(\`${UP}/\${file}\`)).default);`), 'an import pattern'],
  ['a package of the project', 'packageImport', skill('packageImport', "// @ts-ignore\nimport x from 'secret-pkg';"), "imports 'secret-pkg'"],
  ['a file: URL', 'fileUrl', skill('fileUrl', "// @ts-ignore\nimport x from 'file:///etc/passwd' with { type: 'text' };"), "imports 'file:///etc/passwd'"],
];

const GOOD = `/** Adds one. */\nexport async function plusOne(params: { n: number }): Promise<number> {\n  return params.n + 1;\n}\n`;

describe('skills over mcp serve read nothing but their own code', () => {
  let project: TestProject;
  let server: McpServe;
  let attacker: Client;
  let bystander: Client;

  beforeAll(async () => {
    project = await createProject({
      'agent-spaces.config.json': JSON.stringify({ capabilities: ['capabilities/*.json'] }),
      'node_modules/secret-pkg/package.json': JSON.stringify({ name: 'secret-pkg', version: '1.0.0', type: 'module', main: 'index.js' }),
      'node_modules/secret-pkg/index.js': `export default '${FILE_SECRET}';\n`,
    });
    await mkdir(join(project.rootDir, 'skills'), { recursive: true });
    await symlink(OUTSIDE, join(project.rootDir, 'skills/planted'));
    server = new McpServe(project.rootDir, { HOSTILE_ENV_SECRET: ENV_SECRET });
    [attacker, bystander] = [await server.connect(), await server.connect()];
    expect((await callTool(bystander, 'save_skill', { name: 'plusOne', code: GOOD })).isError).toBe(false);
  }, 120_000);

  afterAll(async () => {
    await server?.stop();
    await project?.cleanup();
  }, 120_000);

  it.each(SKILL_ATTACKS)('refuses %s with IMPORT_REFUSED; both clients are still served', async (_what, name, code, names) => {
    const answer = await callTool(attacker, 'save_skill', { name, code });
    expect(answer.isError, answer.text).toBe(true);
    expect(answer.body.code).toBe('IMPORT_REFUSED');
    expect(answer.body.message).toContain(`skill "${name}" may not`);
    expect(answer.body.message).toContain(names);
    expectNoSecret(answer.text);
    expect(existsSync(join(project.rootDir, `skills/${name}.ts`))).toBe(false);
    // Silencing the checker (@ts-ignore) changed nothing: the attacker and the other client are served as before.
    expect((await callTool(attacker, 'execute', { code: 'return 6 * 7;' })).body.result).toBe(42);
    const run = await callTool(bystander, 'execute', { code: "import { skills } from '@capabilities/skills';\nreturn skills.plusOne({ n: 1 });" });
    expect(run.body.result).toBe(2);
    expectNoSecret(await allText(join(project.outDir, 'capabilities/skills')));
  }, 60_000);

  it('reads nothing for a skill whose import is typed any and resolved only when it runs', async () => {
    const code = skill('anyImport', '', "const path: any = '/proc/self/environ';\n  return String(await import(path));");
    const saved = await callTool(attacker, 'save_skill', { name: 'anyImport', code });
    expect(saved.isError, saved.text).toBe(false);
    const run = await callTool(attacker, 'execute', { code: "import { skills } from '@capabilities/skills';\nreturn skills.anyImport();" });
    expect(run.isError).toBe(true);
    expectNoSecret(run.text);
    expectNoSecret(await allText(join(project.outDir, 'capabilities/skills')));
    expect((await callTool(attacker, 'delete_skill', { name: 'anyImport' })).isError).toBe(false);
  }, 60_000);
});

describe('hand-written skills that read host files fail the build alone', () => {
  it('reports each with IMPORT_REFUSED naming the import; the good skill builds and runs; nothing was read', async () => {
    const { dir } = await makeProject();
    process.env.HOSTILE_ENV_SECRET = ENV_SECRET;
    try {
      await mkdir(join(dir, 'skills'), { recursive: true });
      await symlink(OUTSIDE, join(dir, 'skills/planted'));
      for (const [, name, code] of SKILL_ATTACKS) await writeFile(join(dir, `skills/${name}.ts`), code);
      await writeFile(join(dir, 'skills/plusOne.ts'), GOOD);
      const report = await buildCapabilities({ rootDir: dir, sources: [], sandboxDeclarations: SANDBOX_DECLARATIONS });
      const failed = Object.fromEntries(report.capabilities.filter((c) => c.status === 'failed').map((c) => [c.file, c.diagnostics]));
      for (const [, name, , names] of SKILL_ATTACKS) {
        expect(failed[`skills/${name}.ts`], name).toEqual([expect.objectContaining({ code: 'IMPORT_REFUSED', message: expect.stringContaining(names) })]);
      }
      expect(report.capabilities.find((c) => c.file === 'skills')?.status).toBe('built');
      expectNoSecret(JSON.stringify(report));
      expectNoSecret(await allText(join(dir, '.agent-spaces')));
      const space = await createSpace({ rootDir: dir, isolation: 'in-process' });
      try {
        expect(await space.run("import { skills } from '@capabilities/skills';\nreturn skills.plusOne({ n: 41 });")).toMatchObject({ ok: true, result: 42 });
      } finally {
        await space.close();
      }
    } finally {
      delete process.env.HOSTILE_ENV_SECRET;
    }
  }, 90_000);
});

/** A package in `dir/node_modules/<name>` with a `.d.ts`, as `npm install` leaves one. */
async function localPackage(dir: string, name: string, files: Record<string, string>, manifest: Record<string, unknown> = {}): Promise<void> {
  const pkgDir = join(dir, 'node_modules', name);
  await mkdir(pkgDir, { recursive: true });
  const all = {
    'package.json': JSON.stringify({ name, version: '1.0.0', type: 'module', main: 'index.js', types: 'index.d.ts', ...manifest }),
    'index.d.ts': 'export declare const leak: () => string;\n',
    ...files,
  };
  for (const [file, text] of Object.entries(all)) {
    await mkdir(join(pkgDir, file, '..'), { recursive: true });
    await writeFile(join(pkgDir, file), text);
  }
}

describe('sandbox-mode npm packages read only their own folder and their dependencies', () => {
  let dir: string;

  beforeAll(async () => {
    // A file of the project, outside every package folder.
    ({ dir } = await makeProject({ 'outside/x.js': `export const o = '${FILE_SECRET}';\n` }));
    const leak = (imports: string, value = 'x') => ({ 'index.js': `${imports}\nexport const leak = () => String(${value});\n` });
    await localPackage(dir, 'reads-passwd', leak("import x from '/etc/passwd' with { type: 'text' };"));
    await localPackage(dir, 'reads-environ', leak("import x from '/proc/self/environ' with { type: 'text' };"));
    await localPackage(dir, 'reads-up', leak("import { o as x } from '../../outside/x.js';"));
    await localPackage(dir, 'reads-bytes', leak(`import x from '${OUTSIDE}/secret.txt' with { type: 'bytes' };`, 'new TextDecoder().decode(x)'));
    await localPackage(dir, 'reads-json', leak(`import x from '${OUTSIDE}/secret.json' with { type: 'json' };`, 'JSON.stringify(x)'));
    await localPackage(dir, 'reads-glob', { 'index.js': `export const leak = (f) => import(\`../../outside/\${f}\`);\n` });
    await localPackage(dir, 'reads-undeclared', leak("import x from 'secret-pkg';"));
    await localPackage(dir, 'secret-pkg', { 'index.js': `export default '${FILE_SECRET}';\n` });
    // Its exports map points at a folder of its own that is a symlink to the outside; one with `..` esbuild refuses itself.
    await localPackage(dir, 'exports-out', {}, { exports: { '.': { types: './index.d.ts', default: './linked/x.js' } } });
    await symlink(OUTSIDE, join(dir, 'node_modules/exports-out/linked'));
    await localPackage(dir, 'exports-dotdot', {}, { exports: { '.': { types: './index.d.ts', default: './../../outside/x.js' } } });
    // The control: a package that imports the dependency it declares builds.
    await localPackage(dir, 'helper', { 'index.js': "export const help = () => 'helped';\n" });
    await localPackage(dir, 'uses-helper', leak("import { help } from 'helper';", 'help()'), { dependencies: { helper: '1.0.0' } });
  }, 60_000);

  async function build(capabilities: string[]) {
    await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities }));
    const { config, rootDir } = await loadConfig({ cwd: dir });
    return buildCapabilities({ rootDir, sources: config.capabilities, outDir: config.outDir, configSources: configSources(config) });
  }

  it.each([
    ['reads-passwd', "imports '/etc/passwd' with {\"type\":\"text\"}"],
    ['reads-environ', "imports '/proc/self/environ' with {\"type\":\"text\"}"],
    ['reads-up', "node_modules/reads-up/index.js imports '../../outside/x.js'"],
    ['reads-bytes', `imports '${OUTSIDE}/secret.txt' with {"type":"bytes"}`],
    ['reads-json', `imports '${OUTSIDE}/secret.json' with {"type":"json"}`],
    ['reads-glob', 'an import pattern'],
    ['reads-undeclared', "node_modules/reads-undeclared/index.js imports 'secret-pkg'"],
    ['exports-out', "imports 'exports-out'"],
  ])('refuses %s with IMPORT_REFUSED naming the import; the others build', async (pkg, names) => {
    process.env.HOSTILE_ENV_SECRET = ENV_SECRET;
    try {
      const report = await build([`npm:${pkg}`, 'npm:uses-helper']);
      const entry = report.capabilities.find((c) => c.file === `npm:${pkg}`)!;
      expect(entry.status).toBe('failed');
      expect(entry.diagnostics).toEqual([expect.objectContaining({ code: 'IMPORT_REFUSED', message: expect.stringContaining(names) })]);
      expect(entry.diagnostics[0]!.message).toContain(`${pkg} may not`);
      expect(['built', 'unchanged']).toContain(report.capabilities.find((c) => c.file === 'npm:uses-helper')?.status);
      expectNoSecret(JSON.stringify(report));
      expectNoSecret(await allText(join(dir, '.agent-spaces')));
    } finally {
      delete process.env.HOSTILE_ENV_SECRET;
    }
  }, 60_000);

  it('refuses an exports map with .. (esbuild follows Node: no target outside the package), reading nothing', async () => {
    const report = await build(['npm:exports-dotdot']);
    const entry = report.capabilities.find((c) => c.file === 'npm:exports-dotdot')!;
    expect(entry).toMatchObject({ status: 'failed', diagnostics: [{ code: 'INVALID_DEFINITION', message: expect.stringContaining('Could not resolve "exports-dotdot"') }] });
    expectNoSecret(JSON.stringify(report));
    expectNoSecret(await allText(join(dir, '.agent-spaces')));
  }, 60_000);

  it('bundles a package with the dependency it declares, which runs in the isolate', async () => {
    const report = await build(['npm:uses-helper']);
    expect(report.capabilities.map((c) => [c.file, c.status])).toEqual([['npm:uses-helper', 'built']]);
    const space = await createSpace({ rootDir: dir, isolation: 'in-process' });
    try {
      expect(await space.run("import { leak } from '@capabilities/uses-helper';\nexport default leak();")).toMatchObject({ ok: true, result: 'helped' });
    } finally {
      await space.close();
    }
  }, 60_000);
});
