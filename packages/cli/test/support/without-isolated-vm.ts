// An install of agent-spaces without isolated-vm, as on a machine where its native build failed or was skipped: a
// temporary node_modules holding copies of the built workspace packages and links to every other dependency of the
// checkout except isolated-vm. Nothing in the checkout changes, so tests running beside it are not affected.
import { cp, mkdir, mkdtemp, readdir, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));

/** The install: the path of its `agent-spaces` bin, and `remove()` to delete it. */
export interface InstallWithoutIsolatedVm {
  bin: string;
  remove(): Promise<void>;
}

/** Lays out the install in a temp folder (built packages copied: run after the build). */
export async function installWithoutIsolatedVm(): Promise<InstallWithoutIsolatedVm> {
  const root = await mkdtemp(join(tmpdir(), 'agent-spaces-no-ivm-'));
  const modules = join(root, 'node_modules');
  await mkdir(join(modules, '@agent-spaces'), { recursive: true });
  for (const name of await readdir(join(REPO_ROOT, 'node_modules'))) {
    if (name === 'isolated-vm' || name === '@agent-spaces' || name.startsWith('.')) continue;
    await symlink(join(REPO_ROOT, 'node_modules', name), join(modules, name));
  }
  for (const name of await readdir(join(REPO_ROOT, 'packages'))) {
    const from = join(REPO_ROOT, 'packages', name);
    const to = join(modules, '@agent-spaces', name);
    await cp(from, to, { recursive: true, filter: (source) => !/[/\\](src|test|node_modules)$/.test(source) });
    for (const nested of await readdir(join(from, 'node_modules')).catch(() => [])) {
      await mkdir(join(to, 'node_modules'), { recursive: true });
      await symlink(join(from, 'node_modules', nested), join(to, 'node_modules', nested));
    }
  }
  return { bin: join(modules, '@agent-spaces', 'cli', 'bin', 'agent-spaces.js'), remove: () => rm(root, { recursive: true, force: true }) };
}
