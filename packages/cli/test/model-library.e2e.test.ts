// The model libraries (`ai`, `@ai-sdk/*`) are optional peer dependencies: a project installed without them builds and
// runs agent code, and `ask` says which packages to add. Each project gets a node_modules of links to every package
// the repository has but the ones left out, and the CLI runs with --preserve-symlinks, so Node resolves packages from
// that folder exactly as in an install without them (nothing is deleted from the repository's node_modules).
import { execFile } from 'node:child_process';
import { mkdir, readdir, symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { makeProject } from '../../../test/fixtures/project.js';

const REPO_MODULES = fileURLToPath(new URL('../../../node_modules/', import.meta.url));
const TOOL = { name: 'n', description: 'd', functions: [{ name: 'one', description: 'd', returns: { type: 'number' } }], executor: { kind: 'runtime' } };

/** Links every package of the repository's node_modules into `dir`'s, bar those of `without` (names or scoped names). */
async function installWithout(dir: string, without: readonly string[]): Promise<void> {
  const link = async (from: string, to: string, name: string): Promise<void> => {
    if (without.includes(name)) return;
    if (!name.startsWith('@') || name.includes('/')) return symlink(join(from, name), join(to, name), 'dir');
    // A scope: its packages one by one, so one of them can be left out.
    await mkdir(join(to, name));
    for (const entry of await readdir(join(from, name))) await link(from, to, `${name}/${entry}`);
  };
  await mkdir(join(dir, 'node_modules'));
  for (const entry of await readdir(REPO_MODULES)) await link(REPO_MODULES, join(dir, 'node_modules'), entry);
}

/** A built project whose model is `provider` (nothing listens at its URL), installed without `without`. */
async function projectWithout(without: readonly string[], provider = 'openai-compatible') {
  const model = { provider, model: 'm', baseURL: 'http://127.0.0.1:9/v1', maxRetries: 0 };
  const project = await makeProject({ 'agent-spaces.config.json': { capabilities: ['n.json'], model }, 'n.json': TOOL });
  await installWithout(project.dir, without);
  const bin = join(project.dir, 'node_modules/@agent-spaces/cli/bin/agent-spaces.js');
  const cli = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
      execFile(process.execPath, ['--preserve-symlinks', '--preserve-symlinks-main', bin, ...args], { cwd: project.dir, timeout: 60_000 }, (error, stdout, stderr) => {
        done({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stdout, stderr });
      });
    });
  return { project, cli };
}

describe('an install without the model libraries', () => {
  it('builds, runs agent code and starts every command without them', async () => {
    const { project, cli } = await projectWithout(['ai', '@ai-sdk']);
    const build = await cli(['capabilities', 'build']);
    expect(build.code, build.stderr).toBe(0);
    await project.write({ 'agent.ts': "import { n } from '@capabilities/n';\nexport default typeof n.one;\n" });
    const run = await cli(['run', 'agent.ts']);
    expect({ code: run.code, stdout: run.stdout.trim() }, run.stderr).toEqual({ code: 0, stdout: "'function'" });
  });

  it.each([
    { without: ['ai', '@ai-sdk'], provider: 'openai-compatible', missing: 'ai', packages: ['ai', '@ai-sdk/openai-compatible'] },
    { without: ['ai'], provider: 'openai-compatible', missing: 'ai', packages: ['ai', '@ai-sdk/openai-compatible'] },
    { without: ['@ai-sdk/openai-compatible'], provider: 'openai-compatible', missing: '@ai-sdk/openai-compatible', packages: ['ai', '@ai-sdk/openai-compatible'] },
    { without: ['@ai-sdk/anthropic'], provider: 'anthropic', missing: '@ai-sdk/anthropic', packages: ['ai', '@ai-sdk/anthropic'] },
  ])('ask without $without ($provider): MODEL_LIBRARY_MISSING names $packages', async ({ without, provider, missing, packages }) => {
    const { cli } = await projectWithout(without, provider);
    expect((await cli(['capabilities', 'build'])).code).toBe(0);
    const json = await cli(['ask', 'hi', '--json']);
    expect(json.code).toBe(1);
    const install = `npm install ${packages.join(' ')}`;
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'MODEL_LIBRARY_MISSING', data: { packages, missing, install } } });
    const human = await cli(['ask', 'hi']);
    expect(human.code).toBe(1);
    expect(human.stderr).toContain(`MODEL_LIBRARY_MISSING`);
    expect(human.stderr).toContain(`\`${install}\``);
  });

  it('with them linked the same way, ask reaches the model (the set-up itself hides nothing else)', async () => {
    const { cli } = await projectWithout([]);
    expect((await cli(['capabilities', 'build'])).code).toBe(0);
    const json = await cli(['ask', 'hi', '--json']);
    expect(JSON.parse(json.stdout)).toMatchObject({ ok: false, error: { code: 'MODEL_ERROR' } });
  });
});
