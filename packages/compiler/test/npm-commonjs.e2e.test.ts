// Packages from npm (not written here) in sandbox mode, through the CLI as users run it: `path-to-regexp` (CommonJS,
// `__esModule`, an `exports` map, its own .d.ts) and `change-case` (an ES module) are built, called from one agent
// script by `agent-spaces run`, and a misuse of each is refused by `agent-spaces check` on its line.
import { symlink } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));
const PACKAGES = ['path-to-regexp', 'change-case'];

const AGENT = `import { match, compile, pathToRegexp } from '@capabilities/path-to-regexp';
import { camelCase } from '@capabilities/change-case';

const route = match<{ id: string }>('/trains/:id');
const found = route('/trains/ic-42');
const path = compile<{ id: string }>('/trains/:id')({ id: 'ic 7' });
export default { params: found ? found.params : null, missing: route('/planes/1'), path, regexp: pathToRegexp('/a/:b').regexp instanceof RegExp, name: camelCase('morning train') };
`;

let project: Project;

beforeAll(async () => {
  project = await makeProject({
    'agent-spaces.config.json': { capabilities: PACKAGES.map((name) => `npm:${name}`) },
    'agent.ts': AGENT,
    'misuse-cjs.ts': `import { match } from '@capabilities/path-to-regexp';\n\nconst route = match(42);\nexport default route;\n`,
    'misuse-esm.ts': `import { camelCase } from '@capabilities/change-case';\n\n\nconst n: number = camelCase('a b');\nexport default n;\n`,
  });
  await project.write({ 'node_modules/.keep': '' });
  for (const name of PACKAGES) await symlink(join(repo, 'node_modules', name), project.path(`node_modules/${name}`));
  const build = await project.cli(['capabilities', 'build', '--json']);
  expect(build.code, build.stderr).toBe(0);
  expect(JSON.parse(build.stdout)).toMatchObject({
    capabilities: [
      { id: 'change-case', status: 'built', diagnostics: [] },
      { id: 'path-to-regexp', status: 'built', diagnostics: [] },
    ],
  });
}, 120_000);

describe('packages from npm in sandbox mode, from agent code', () => {
  it('runs a CommonJS and an ES module package in one script, in the isolate', async () => {
    const run = await project.cli(['run', 'agent.ts', '--json']);
    expect(run.code, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({
      ok: true,
      result: { params: { id: 'ic-42' }, missing: false, path: '/trains/ic%207', regexp: true, name: 'morningTrain' },
      stats: { capabilityCalls: 0 },
    });
  });

  it('refuses a misuse of each with check, on its line', async () => {
    const cjs = await project.cli(['check', 'misuse-cjs.ts']);
    expect(cjs.code).toBe(1);
    expect(cjs.stdout + cjs.stderr).toMatch(/misuse-cjs\.ts:3:\d+.*TS2345/);
    const esm = await project.cli(['check', 'misuse-esm.ts']);
    expect(esm.code).toBe(1);
    expect(esm.stdout + esm.stderr).toMatch(/misuse-esm\.ts:4:\d+.*TS2322/);
    const good = await project.cli(['check', 'agent.ts']);
    expect(good.code, good.stdout + good.stderr).toBe(0);
  });
});
