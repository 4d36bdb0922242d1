// The tarballs a user installs (`npm run pack`): one version for the whole set, and each package carries its license,
// changelog, engines and repository. The install into a fresh app is scripts/fresh-app.mjs, a step of .ci/run.
import { execFile } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = join(import.meta.dirname, '..');
const run = promisify(execFile);
const rootPkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string; engines: unknown; license: string };
const packages = readdirSync(join(ROOT, 'packages')).sort();

/** What `node scripts/<script> ...args` printed, and its exit code; never rejects. */
async function script(name: string, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await run(process.execPath, [join(ROOT, 'scripts', name), ...args], { cwd: ROOT });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('one version for the whole set', () => {
  it('every package has the root version, pins its siblings to it and carries the shared metadata', async () => {
    expect(await script('version.mjs', '--check')).toMatchObject({ code: 0, stdout: `version: every package is ${rootPkg.version}\n` });
    for (const dir of packages) {
      const pkg = JSON.parse(readFileSync(join(ROOT, 'packages', dir, 'package.json'), 'utf8')) as Record<string, unknown> & {
        dependencies?: Record<string, string>;
        files: string[];
      };
      expect(pkg).toMatchObject({ version: rootPkg.version, license: rootPkg.license, engines: rootPkg.engines, repository: { directory: `packages/${dir}` } });
      expect(pkg.files).toContain('CHANGELOG.md');
      for (const [name, range] of Object.entries(pkg.dependencies ?? {})) if (name.startsWith('@agent-spaces/')) expect(range).toBe(rootPkg.version);
    }
  });

  it.each([['1.2'], ['v1.2.3'], ['1.2.3; rm -rf /'], ['']])('refuses %j as a version and changes nothing', async (version) => {
    const result = await script('version.mjs', '--check', version);
    expect(result.code).toBe(version === '' ? 0 : 2);
    if (version !== '') expect(result.stderr).toContain('is not a semver version');
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version).toBe(rootPkg.version);
  });
});

describe('npm run pack', () => {
  it('writes one tarball per package into packs/, each with LICENSE, CHANGELOG.md and its built dist', async () => {
    const result = await script('pack.mjs', '--no-build');
    expect(result.code, result.stderr).toBe(0);
    const tarballs = readdirSync(join(ROOT, 'packs')).sort();
    expect(tarballs).toEqual(packages.map((dir) => `agent-spaces-${dir}-${rootPkg.version}.tgz`));
    for (const [i, tarball] of tarballs.entries()) {
      const { stdout } = await run('tar', ['-tzf', join(ROOT, 'packs', tarball)]);
      const files = stdout.split('\n');
      expect(files).toEqual(expect.arrayContaining(['package/LICENSE', 'package/CHANGELOG.md', 'package/package.json']));
      // The built file the package's entry names (its exports' default, or its main).
      const pkg = JSON.parse(readFileSync(join(ROOT, 'packages', packages[i]!, 'package.json'), 'utf8')) as { main?: string; exports?: { '.': { default: string } } };
      const entry = (pkg.exports?.['.'].default ?? pkg.main)!;
      expect(entry).toMatch(/^\.\/dist\//);
      expect(files).toContain(`package/${entry.slice(2)}`);
      expect(files.filter((file) => file.startsWith('package/src/'))).toEqual([]);
    }
    expect(result.stdout).toContain(`Install them into your app with: npm install ${join(ROOT, 'packs')}/*.tgz`);
    // The copies made for packing do not stay behind in the packages.
    for (const dir of packages) expect(readdirSync(join(ROOT, 'packages', dir))).not.toContain('LICENSE');
  });
});
