// A TypeScript config's bundle kept in the user's cache ($XDG_CACHE_HOME/agent-spaces/config): taken while no file it
// was built from changed, bundled again when one did, and a cached bundle that fails is bundled anew.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../src/config/load.js';
import { configBundle } from '../src/config/bundle-cache.js';

const root = await mkdtemp(join(tmpdir(), 'agent-spaces-config-cache-'));
afterAll(() => rm(root, { recursive: true, force: true }));
let project: string;
const cache = () => join(process.env.XDG_CACHE_HOME!, 'agent-spaces/config');

beforeEach(async () => {
  process.env.XDG_CACHE_HOME = await mkdtemp(join(root, 'cache-'));
  project = await mkdtemp(join(root, 'project-'));
  await writeFile(join(project, 'shared.ts'), `export const dir: string = 'first';\n`);
  await writeFile(join(project, 'agent-spaces.config.ts'), `import { dir } from './shared.js';\nexport default { outDir: dir };\n`);
});

const outDir = async () => (await loadConfig({ cwd: project })).config.outDir;

describe('config bundle cache', () => {
  it('is taken while the config and the files it imports are unchanged, and bundled again after a change', async () => {
    const file = join(project, 'agent-spaces.config.ts');
    expect(await configBundle(file)).toMatchObject({ cached: false });
    expect(await configBundle(file)).toMatchObject({ cached: true });
    expect(await outDir()).toBe(join(project, 'first'));
    await writeFile(join(project, 'shared.ts'), `export const dir: string = 'second';\n`);
    expect(await configBundle(file)).toMatchObject({ cached: false });
    expect(await outDir()).toBe(join(project, 'second'));
    await writeFile(file, `export default { outDir: 'third' };\n`);
    expect(await outDir()).toBe(join(project, 'third'));
    expect(await readdir(cache())).toHaveLength(1);
  });

  it('is what a start imports (an entry changed by hand shows), and a cached bundle that fails is bundled anew', async () => {
    expect(await outDir()).toBe(join(project, 'first'));
    const [name] = await readdir(cache());
    const entry = JSON.parse(await readFile(join(cache(), name!), 'utf8')) as { code: string };
    await writeFile(join(cache(), name!), JSON.stringify({ ...entry, code: `export default { outDir: 'from-cache' };` }));
    expect(await outDir()).toBe(join(project, 'from-cache'));
    for (const code of [`throw new Error('broken');`, `import 'missing-package-xyz';`, `export default {`]) {
      await writeFile(join(cache(), name!), JSON.stringify({ ...entry, code }));
      expect(await outDir()).toBe(join(project, 'first'));
    }
  });

  it.each([
    ['invalid JSON', '{"code": '],
    ['no inputs', '{"code": "export default {}"}'],
    ['inputs not a list', '{"code": "export default {}", "inputs": 3}'],
    ['a code that is no string', '{"code": 1, "inputs": []}'],
  ])('reads an entry holding %s as a miss', async (_name, text) => {
    expect(await outDir()).toBe(join(project, 'first'));
    const [name] = await readdir(cache());
    await writeFile(join(cache(), name!), text);
    expect(await configBundle(join(project, 'agent-spaces.config.ts'))).toMatchObject({ cached: false });
    expect(await outDir()).toBe(join(project, 'first'));
  });

  it('loads the config as usual when the cache cannot be written, and reports a config that does not parse', async () => {
    await writeFile(join(process.env.XDG_CACHE_HOME!, 'agent-spaces'), 'a file where the folder should be');
    expect(await outDir()).toBe(join(project, 'first'));
    await writeFile(join(project, 'agent-spaces.config.ts'), `export default {`);
    await expect(loadConfig({ cwd: project })).rejects.toMatchObject({ code: 'CONFIG_INVALID' });
  });
});
