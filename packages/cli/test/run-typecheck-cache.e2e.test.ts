// `agent-spaces run` keeps its typecheck results in .agent-spaces/cache/typecheck: a script run again unchanged, against
// unchanged capabilities, is answered from there (a new process, no TypeScript); a change to either checks again.
import { readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';

let app: string;
const cache = () => join(app, '.agent-spaces/cache/typecheck');
const entries = async () => (await readdir(cache())).filter((name) => name.endsWith('.json'));
const bad = `import { hello } from '@capabilities/hello';\nconst n: number = (await hello.greet({ name: 'x' })).message;\nexport default n;\n`;

beforeAll(async () => {
  app = (await makeProject({}, { nodeModules: true })).dir;
  expect((await runCli(app, ['init'])).code).toBe(0);
  expect((await runCli(app, ['capabilities', 'build'])).code).toBe(0);
  await writeFile(join(app, 'agents/bad.ts'), bad);
});

describe('agent-spaces run: the typecheck cache', () => {
  it('answers a script run again from the cache, with the same output, and checks again once the cache is cleared', async () => {
    const first = await runCli(app, ['run', 'agents/bad.ts']);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain('2322');
    expect(await entries()).toHaveLength(1);
    const again = await runCli(app, ['run', 'agents/bad.ts']);
    expect({ code: again.code, stdout: again.stdout, stderr: again.stderr }).toEqual({ code: 1, stdout: first.stdout, stderr: first.stderr });

    // An entry changed by hand shows that the second process read it rather than checking.
    const [name] = await entries();
    const entry = JSON.parse(await readFile(join(cache(), name!), 'utf8')) as { key: string };
    await writeFile(join(cache(), name!), JSON.stringify({ key: entry.key, diagnostics: [{ code: 9999, category: 'error', message: 'kept in the cache', line: 1, column: 1 }] }));
    expect((await runCli(app, ['run', 'agents/bad.ts'])).stderr).toContain('kept in the cache');
    await rm(join(app, '.agent-spaces/cache'), { recursive: true });
    const cleared = await runCli(app, ['run', 'agents/bad.ts']);
    expect(cleared.stderr).not.toContain('kept in the cache');
    expect(cleared.stderr).toContain('2322');
  });

  it('checks again when the script or the capabilities changed, and --no-check neither reads nor writes it', async () => {
    await rm(cache(), { recursive: true, force: true });
    expect((await runCli(app, ['run', 'agents/hello.ts'])).code).toBe(0);
    expect(await entries()).toHaveLength(1);
    await writeFile(join(app, 'agents/hello.ts'), `${await readFile(join(app, 'agents/hello.ts'), 'utf8')}\nconst late: string = 1;\n`);
    expect((await runCli(app, ['run', 'agents/hello.ts'])).code).toBe(1);
    expect(await entries()).toHaveLength(2);
    const source = join(app, 'capabilities/hello.ts');
    await writeFile(source, (await readFile(source, 'utf8')).replaceAll('greet', 'welcome'));
    expect((await runCli(app, ['capabilities', 'build'])).code).toBe(0);
    const renamed = await runCli(app, ['run', 'agents/bad.ts']);
    expect(renamed.stderr).toContain('welcome');
    expect(await entries()).toHaveLength(3);
    expect((await runCli(app, ['run', '--no-check', 'agents/hello.ts'])).code).toBe(1);
    expect(await entries()).toHaveLength(3);
  });
});
