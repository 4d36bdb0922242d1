// Starting a project with the `agent-spaces` command as a user does, in a temp folder outside the repository (its
// node_modules links to the repository's, as an install would provide the packages): init, build, run, doctor, watch.
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli, runCliInTerminal } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';
import { startWatch, type WatchProcess } from './support/watch.js';

/** A fresh empty folder (test/fixtures/project.ts removes it). */
async function emptyApp(): Promise<string> {
  return (await makeProject()).dir;
}

/** A fresh folder with the packages available, as after `npm install`. */
async function freshApp(): Promise<string> {
  return (await makeProject({}, { nodeModules: true })).dir;
}

let app: string;

beforeAll(async () => {
  app = await freshApp();
});

describe('agent-spaces init', () => {
  it('writes a project that builds and runs, with the Claude Code snippet, and adds the .gitignore entry', async () => {
    await writeFile(join(app, '.gitignore'), 'node_modules');
    const init = await runCli(app, ['init', '--mcp', 'claude']);
    expect(init.code, init.stderr).toBe(0);
    for (const file of ['agent-spaces.config.ts', 'capabilities/hello.ts', 'agents/hello.ts', 'agents/tsconfig.json', '.mcp.json']) {
      expect(init.stderr).toContain(`✓ ${file}`);
      expect(existsSync(join(app, file))).toBe(true);
    }
    expect(await readFile(join(app, '.gitignore'), 'utf8')).toBe('node_modules\n.agent-spaces/\n');
    expect(JSON.parse(await readFile(join(app, '.mcp.json'), 'utf8'))).toEqual({
      mcpServers: { 'agent-spaces': { command: 'npx', args: ['agent-spaces', 'mcp', 'serve', '--config', 'agent-spaces.config.ts'] } },
    });

    // The snippet is the config's mcpServers (no key in the config): the build skips it instead of wrapping itself.
    const build = await runCli(app, ['capabilities', 'build']);
    expect(build.code, build.stderr).toBe(0);
    expect(build.stderr).toContain("mcpServers.agent-spaces skipped: it starts agent-spaces' own MCP server");
    expect(build.stderr).toMatch(/1 built, 0 unchanged, 0 failed/);
    expect(existsSync(join(app, '.agent-spaces/capabilities/mcp-agent-spaces'))).toBe(false);
    const json = await runCli(app, ['capabilities', 'build', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ skipped: ['mcpServers.agent-spaces'], totals: { failed: 0 } });

    const run = await runCli(app, ['run', 'agents/hello.ts']);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('Hello, world!');
  });

  it('refuses to overwrite: writes nothing when any file exists, and says which', async () => {
    const dir = await freshApp();
    await writeFile(join(dir, 'agent-spaces.config.ts'), '// mine\n');
    const result = await runCli(dir, ['init', '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { code: 'WRITE_FAILED', data: { reason: 'exists', files: ['agent-spaces.config.ts'] } } });
    expect(await readFile(join(dir, 'agent-spaces.config.ts'), 'utf8')).toBe('// mine\n');
    expect(existsSync(join(dir, 'capabilities'))).toBe(false);
    expect(existsSync(join(dir, '.gitignore'))).toBe(false);
  });

  it.each([['bogus'], ['claude,cursor'], ['__proto__'], ['']])('rejects --mcp %j with CONFIG_INVALID naming the option', async (client) => {
    const dir = await freshApp();
    const result = await runCli(dir, ['init', '--mcp', client, '--json']);
    expect(result.code).toBe(1);
    expect(JSON.parse(result.stdout)).toMatchObject({ ok: false, error: { code: 'CONFIG_INVALID', data: { field: 'mcp' } } });
    expect(existsSync(join(dir, 'agent-spaces.config.ts'))).toBe(false);
  });

  it.each([
    ['cursor', '.cursor/mcp.json', 'mcpServers'],
    ['vscode', '.vscode/mcp.json', 'servers'],
  ])('writes the %s snippet where that client reads it', async (client, file, key) => {
    const dir = await freshApp();
    expect((await runCli(dir, ['init', '--mcp', client])).code).toBe(0);
    const snippet = JSON.parse(await readFile(join(dir, file), 'utf8')) as Record<string, Record<string, { args: string[] }>>;
    expect(snippet[key]!['agent-spaces']!.args).toEqual(['agent-spaces', 'mcp', 'serve']);
  });
});

describe('agent-spaces doctor', () => {
  it('passes every check in a project just built', async () => {
    const dir = await freshApp();
    expect((await runCli(dir, ['init'])).code).toBe(0);
    expect((await runCli(dir, ['capabilities', 'build'])).code).toBe(0);
    const result = await runCli(dir, ['doctor', '--json']);
    expect(result.code, result.stdout).toBe(0);
    const { checks } = JSON.parse(result.stdout) as { checks: { name: string; ok: boolean }[] };
    expect(checks.map((c) => [c.name, c.ok])).toEqual([
      ['node', true],
      ['isolated-vm', true],
      ['config', true],
      ['build', true],
      ['editor', true],
    ]);
  });

  it('says when the editor plugin cannot be found from the project, and how to install it', async () => {
    // No node_modules: the CLI runs from the repository, the project has no packages of its own.
    const dir = await emptyApp();
    await writeFile(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [] }));
    const result = await runCli(dir, ['doctor', '--json']);
    const { checks } = JSON.parse(result.stdout) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] };
    expect(checks.find((c) => c.name === 'editor')).toEqual({
      name: 'editor',
      ok: false,
      detail: '@agent-spaces/ts-plugin is not installed: editors flag a top-level return (TS1108)',
      fix: expect.stringContaining('npm install --save-dev @agent-spaces/ts-plugin typescript'),
    });
    expect(result.code).toBe(1);
  });

  it('reports each failing check with its fix: a stale build, an unreachable MCP server, a missing OpenAPI spec', async () => {
    const dir = await freshApp();
    await writeFile(join(dir, 'calc.json'), JSON.stringify({ name: 'calc', description: 'd', functions: [{ name: 'one', description: 'd', returns: { type: 'number' } }], executor: { kind: 'runtime' } }));
    await writeFile(
      join(dir, 'agent-spaces.config.json'),
      JSON.stringify({ capabilities: ['calc.json'], mcpServers: { broken: { command: join(dir, 'no-such-server') } }, openapi: [{ name: 'todos', spec: 'specs/missing.yaml' }] }),
    );
    const result = await runCli(dir, ['doctor']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/✗ build +not built or changed since the last build: calc\.json\n +fix: run `agent-spaces capabilities build`/);
    expect(result.stderr).toMatch(/✗ mcpServers\.broken +.+\n +fix: check mcpServers\.broken \(command and args/);
    expect(result.stderr).toMatch(/✗ openapi\.todos +.+\n +fix: check openapi\.todos\.spec/);
    expect(result.stderr).toContain('3 of 7 checks failed.');
  });

  it('reports a config that does not load, naming the file, with its fix', async () => {
    const dir = await freshApp();
    await writeFile(join(dir, 'agent-spaces.config.json'), '{ "capabilities": 7 }');
    const result = await runCli(dir, ['doctor', '--json']);
    expect(result.code).toBe(1);
    const { checks } = JSON.parse(result.stdout) as { checks: { name: string; ok: boolean; detail: string; fix?: string }[] };
    expect(checks.find((c) => c.name === 'config')).toMatchObject({ ok: false, detail: expect.stringContaining('agent-spaces.config.json'), fix: expect.stringContaining('agent-spaces init') });
  });
});


describe('agent-spaces capabilities build --watch', () => {
  let watcher: WatchProcess | undefined;
  afterEach(async () => {
    if (watcher && watcher.child.exitCode === null) await watcher.stop();
  });

  it('rebuilds a changed source with one line; a broken change keeps the last good output; a fix rebuilds it', async () => {
    const dir = await freshApp();
    expect((await runCli(dir, ['init'])).code).toBe(0);
    watcher = startWatch(dir);
    await watcher.nextLine(/^Watching for changes/);
    const declarations = join(dir, '.agent-spaces/capabilities/hello/index.d.ts');
    expect(await readFile(declarations, 'utf8')).toContain('greet(');

    const source = join(dir, 'capabilities/hello.ts');
    const good = (await readFile(source, 'utf8')).replace("greet: {", "wave: {\n      description: 'Wave',\n      returns: {} as string,\n      handler: async () => 'o/',\n    },\n    greet: {");
    await writeFile(source, good);
    expect(await watcher.nextLine(/^[↻✗] \S+ capabilities\/hello\.ts:/)).toMatch(/^↻ \d\d:\d\d:\d\d capabilities\/hello\.ts: 1 built, 0 unchanged, 0 failed in \d+ ms$/);
    expect(await readFile(declarations, 'utf8')).toContain('wave(');

    await writeFile(source, 'export const hello = defineTool({ this is not TypeScript');
    expect(await watcher.nextLine(/^[↻✗] \S+ capabilities\/hello\.ts:/)).toMatch(/^✗ .* capabilities\/hello\.ts: 0 built, 0 unchanged, 1 failed/);
    expect(await watcher.nextLine(/✗ hello/)).toContain('keeps its last good output');
    expect(await readFile(declarations, 'utf8')).toContain('wave(');

    await writeFile(source, good.replace("'Wave'", "'Wave a hand'"));
    expect(await watcher.nextLine(/^[↻✗] \S+ capabilities\/hello\.ts:/)).toMatch(/1 built, 0 unchanged, 0 failed/);

    // A config that does not load is reported and the last one kept; a config that adds a source rebuilds with it.
    await writeFile(join(dir, 'agent-spaces.config.ts'), 'export default {{{');
    expect(await watcher.nextLine(/^[↻✗] \S+ agent-spaces\.config\.ts/)).toMatch(/^✗ .* agent-spaces\.config\.ts: .*\(keeping the last config\)$/);
    await writeFile(join(dir, 'extra.json'), JSON.stringify({ name: 'extra', description: 'd', functions: [{ name: 'one', description: 'd', returns: { type: 'number' } }], executor: { kind: 'runtime' } }));
    await writeFile(join(dir, 'agent-spaces.config.ts'), "export default { capabilities: ['capabilities/*', 'extra.json'] };\n");
    expect(await watcher.nextLine(/^[↻✗] \S+ agent-spaces\.config\.ts/)).toMatch(/1 built, 1 unchanged, 0 failed/);
    expect(existsSync(join(dir, '.agent-spaces/capabilities/extra/index.d.ts'))).toBe(true);

    // A skill written (its folder new) is built into @capabilities/skills; an edit to it rebuilds it.
    await mkdir(join(dir, 'skills'));
    const skill = '/** Shouts a word. */\nexport async function shout(params: { word: string }): Promise<string> {\n  return params.word.toUpperCase();\n}\n';
    await writeFile(join(dir, 'skills/shout.ts'), skill);
    await expect.poll(() => existsSync(join(dir, '.agent-spaces/capabilities/skills/index.d.ts')), { timeout: 30_000 }).toBe(true);
    await writeFile(join(dir, 'skills/shout.ts'), skill.replace('Shouts a word', 'Shouts a word loudly'));
    expect(await watcher.nextLine(/^[↻✗] \S+ skills\/shout\.ts/)).toMatch(/^↻ .* skills\/shout\.ts: 1 built/);
    await expect.poll(async () => readFile(join(dir, '.agent-spaces/capabilities/skills/index.d.ts'), 'utf8'), { timeout: 30_000 }).toContain('loudly');

    expect(await watcher.stop()).toBe(0);
  });

  /** A folder (no packages) whose config builds every `.json` at any depth, with one source, `a.json`. */
  async function jsonApp(): Promise<string> {
    const dir = await emptyApp();
    await writeFile(join(dir, 'agent-spaces.config.ts'), "export default { capabilities: ['**/*.json'] };\n");
    await writeFile(join(dir, 'a.json'), jsonTool('a'));
    return dir;
  }
  const jsonTool = (name: string, description = 'd') =>
    JSON.stringify({ name, description, functions: [{ name: 'one', description: 'd', returns: { type: 'number' } }], executor: { kind: 'runtime' } });

  it('never watches node_modules or .git, however deep, under a ** pattern at the root', async () => {
    const dir = await jsonApp();
    const ignored = ['node_modules/some-pkg/x.json', '.git/config', 'lib/node_modules/dep/x.json', 'lib/.git/HEAD'];
    for (const file of ignored) {
      await mkdir(dirname(join(dir, file)), { recursive: true });
      await writeFile(join(dir, file), '{}');
    }
    watcher = startWatch(dir);
    await watcher.nextLine(/^Watching for changes/);

    for (const file of ignored) await writeFile(join(dir, file), '{ "changed": true }');
    await mkdir(join(dir, 'node_modules/new-pkg/lib'), { recursive: true });
    await writeFile(join(dir, 'node_modules/new-pkg/lib/y.json'), '{}');
    await rm(join(dir, 'lib/node_modules'), { recursive: true });
    // None of that rebuilds: the next rebuild is the one a real change makes, and it names only that file.
    await writeFile(join(dir, 'a.json'), jsonTool('a', 'changed'));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ a\.json: 1 built, 0 unchanged, 0 failed/);
    expect(await watcher.stop()).toBe(0);
  });

  it('watches a nested folder made under a ** pattern after the start; its removal rebuilds', async () => {
    const dir = await jsonApp();
    watcher = startWatch(dir);
    await watcher.nextLine(/^Watching for changes/);

    await mkdir(join(dir, 'tools/deep/er'), { recursive: true });
    await writeFile(join(dir, 'tools/deep/er/b.json'), jsonTool('b'));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ tools\/deep\/er\/b\.json: 1 built, 1 unchanged, 0 failed/);
    expect(existsSync(join(dir, '.agent-spaces/capabilities/b/index.d.ts'))).toBe(true);

    // The new folder is watched itself: an edit in it rebuilds.
    await writeFile(join(dir, 'tools/deep/er/b.json'), jsonTool('b', 'changed'));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ tools\/deep\/er\/b\.json: 1 built, 1 unchanged, 0 failed/);

    await rm(join(dir, 'tools'), { recursive: true });
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ tools\/deep\/er\/b\.json: /);
    expect(await watcher.stop()).toBe(0);
  });

  it('applies --force to the first build only: a rebuild after a change leaves the other source unchanged', async () => {
    const dir = await jsonApp();
    await writeFile(join(dir, 'b.json'), jsonTool('b'));
    expect((await runCli(dir, ['capabilities', 'build'])).code).toBe(0);
    watcher = startWatch(dir, ['--force']);
    expect(await watcher.nextLine(/ built, /)).toMatch(/^2 built, 0 unchanged, 0 failed/);
    await watcher.nextLine(/^Watching for changes/);

    await writeFile(join(dir, 'a.json'), jsonTool('a', 'changed'));
    expect(await watcher.nextLine(/^[↻✗] /)).toMatch(/^↻ \S+ a\.json: 1 built, 1 unchanged, 0 failed/);
    expect(await watcher.stop()).toBe(0);
  });
});

describe('colour, --quiet and --verbose', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await freshApp();
    expect((await runCli(dir, ['init'])).code).toBe(0);
    expect((await runCli(dir, ['capabilities', 'build'])).code).toBe(0);
  });

  it('--quiet leaves out progress but keeps results and problems', async () => {
    const build = await runCli(dir, ['capabilities', 'build', '-q']);
    expect(build).toMatchObject({ code: 0, stderr: '' });
    const run = await runCli(dir, ['run', 'agents/hello.ts', '--quiet']);
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(run.stdout).toContain('Hello, world!');
    await writeFile(join(dir, 'capabilities/broken.json'), '{ "name": ');
    const failed = await runCli(dir, ['capabilities', 'build', '--quiet']);
    await rm(join(dir, 'capabilities/broken.json'));
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^✗ broken +failed +capabilities\/broken\.json/m);
    expect(failed.stderr).toContain('INVALID_JSON');
    expect(failed.stderr).not.toContain('· hello');
    expect(failed.stderr).toMatch(/0 built, 1 unchanged, 1 failed/);
  });

  it('--verbose adds the data and stack of an error', async () => {
    const plain = await runCli(dir, ['init', '--mcp', 'nope']);
    const verbose = await runCli(dir, ['init', '--mcp', 'nope', '--verbose']);
    expect(plain.code).toBe(1);
    expect(verbose.code).toBe(1);
    expect(plain.stderr).toContain('✗ agent-spaces: CONFIG_INVALID: --mcp must be one of claude, cursor, vscode');
    expect(plain.stderr).not.toContain('data:');
    expect(verbose.stderr).toContain('  data: {"field":"mcp"}');
    expect(verbose.stderr).toMatch(/\n {2}AgentSpacesError: [^\n]+\n +at /);
  });

  it('refuses --quiet with --verbose as bad usage', async () => {
    const result = await runCli(dir, ['doctor', '-q', '--verbose']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--quiet and --verbose exclude each other');
  });

  it('colours only the marks, on a terminal or with FORCE_COLOR, never with NO_COLOR, --json or a pipe', async () => {
    const terminal = await runCliInTerminal(dir, '', ['capabilities', 'build']);
    expect(terminal.code).toBe(0);
    expect(terminal.raw).toContain('\x1b[2m·\x1b[22m hello');
    const forced = await runCli(dir, ['doctor'], { FORCE_COLOR: '1' });
    expect(forced.stderr).toContain('\x1b[32m✓\x1b[39m node');
    const piped = await runCli(dir, ['doctor']);
    expect(piped.stderr).not.toContain('\x1b[');
    expect(piped.stderr).toContain('✓ node');
    const off = await runCli(dir, ['doctor'], { FORCE_COLOR: '0' });
    expect(off.stderr).not.toContain('\x1b[');
    const json = await runCli(dir, ['doctor', '--json'], { FORCE_COLOR: '1' });
    expect(json.stdout + json.stderr).not.toContain('\x1b[');
  });
});
