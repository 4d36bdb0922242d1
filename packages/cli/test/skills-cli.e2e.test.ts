// `agent-spaces skills list|save|remove` as users run the built bin, in a project outside the repository.
import { existsSync } from 'node:fs';
import { beforeAll, expect, it } from 'vitest';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;

const COUNTER = {
  name: 'counter',
  description: 'A counter kept by the host application',
  functions: [{ name: 'add', description: 'Add to the counter', parameters: { type: 'object', properties: { by: { type: 'integer' } }, required: ['by'] }, returns: { type: 'integer' } }],
  executor: { kind: 'runtime' },
};

beforeAll(async () => {
  project = await makeProject(
    {
      'capabilities/counter.json': COUNTER,
      'agent-spaces.config.json': { capabilities: ['capabilities/*.json'] },
      'double-it.ts':
        "import { counter } from '@capabilities/counter';\n\nexport async function doubleIt(params: { by: number }): Promise<number> {\n  return counter.add({ by: params.by * 2 });\n}\n",
      'bad.ts': "import { counter } from '@capabilities/counter';\n\n/** Bad. */\nexport async function bad(): Promise<number> {\n  return counter.add({ by: 'x' });\n}\n",
    },
    { nodeModules: true },
  );
});

it('saves a file as a skill, lists it, refuses code that does not typecheck, and removes it', async () => {
  expect((await project.cli(['capabilities', 'build'])).code).toBe(0);
  const save = await project.cli(['skills', 'save', 'double-it.ts', '--name', 'doubleIt', '--description', 'Adds twice the amount.']);
  expect(save.code, save.stderr).toBe(0);
  expect(save.stdout).toBe("✓ saved skills/doubleIt.ts: skills.doubleIt(params: { by: number }): Promise<number>\n  import { skills } from '@capabilities/skills';\n");
  expect(existsSync(project.path('.agent-spaces/capabilities/skills/index.js'))).toBe(true);

  const list = await project.cli(['skills', 'list', '--json']);
  expect(JSON.parse(list.stdout)).toEqual([
    { name: 'doubleIt', file: 'skills/doubleIt.ts', built: true, signature: 'skills.doubleIt(params: { by: number }): Promise<number>', summary: 'Adds twice the amount.', owner: 'operator', shared: 'space' },
  ]);

  const bad = await project.cli(['skills', 'save', 'bad.ts']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toMatch(/TYPE_ERROR: skill "bad" does not typecheck against the current capabilities: skills\/bad\.ts:5:\d+ TS2322/);
  expect(existsSync(project.path('skills/bad.ts'))).toBe(false);
  const twice = await project.cli(['skills', 'save', 'double-it.ts', '--name', 'doubleIt']);
  expect(twice.stderr).toContain('NAME_COLLISION: skill "doubleIt" exists (skills/doubleIt.ts); to overwrite it, ask for a replacement (replace: true; --replace in the CLI)');

  const remove = await project.cli(['skills', 'remove', 'doubleIt']);
  expect(remove.code, remove.stderr).toBe(0);
  expect(remove.stdout).toBe('✓ removed skills/doubleIt.ts\n');
  expect(existsSync(project.path('.agent-spaces/capabilities/skills'))).toBe(false);
  const empty = await project.cli(['skills', 'list']);
  expect(empty.stderr).toContain('No skills yet');
}, 90_000);

it("marks a skill an MCP client saved, which the operator may still replace and remove", async () => {
  const code = '/** Adds one. */\nexport async function plusOne(params: { n: number }): Promise<number> {\n  return params.n + 1;\n}\n';
  expect((await project.cli(['capabilities', 'build'])).code).toBe(0);
  const { saveSkill } = await import('@agent-spaces/sdk');
  await saveSkill({ rootDir: project.dir, name: 'plusOne', code, owner: 'mcp-client-1' });
  const list = await project.cli(['skills', 'list']);
  expect(list.stdout).toBe('skills.plusOne(params: { n: number }): Promise<number>  // Adds one. (saved by an MCP client)\n');
  await project.write({ 'plus-one.ts': code.replace('+ 1', '+ 2') });
  const replaced = await project.cli(['skills', 'save', 'plus-one.ts', '--name', 'plusOne', '--replace']);
  expect(replaced.code, replaced.stderr).toBe(0);
  expect(JSON.parse((await project.cli(['skills', 'list', '--json'])).stdout)).toEqual([expect.objectContaining({ name: 'plusOne', owner: 'operator' })]);
  const removed = await project.cli(['skills', 'remove', 'plusOne']);
  expect(removed.code, removed.stderr).toBe(0);
}, 90_000);
