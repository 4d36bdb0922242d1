// The `openapi` key of the config: each entry becomes a capability labelled `openapi.<name>`, rebuilt only when it changed.
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { beforeEach, describe, expect, it } from 'vitest';
import { buildCapabilities, configSources, loadConfig } from '../src/index.js';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const petstore = fileURLToPath(new URL('../../../node_modules/@readme/oas-examples/3.0/json/petstore.json', import.meta.url));
let project: Project;

beforeEach(async () => {
  project = await makeProject();
});

async function writeConfig(config: unknown): Promise<void> {
  await project.write({ 'agent-spaces.config.json': config });
}

describe('openapi in the config', () => {
  it('builds each source as a capability, and reports it unchanged on the next build', async () => {
    await project.write({ 'petstore.json': await readFile(petstore) });
    await writeConfig({ capabilities: [], openapi: [{ name: 'pets', spec: 'petstore.json', requiresApproval: false }] });
    const { config, rootDir } = await loadConfig({ cwd: project.dir });
    const build = () => buildCapabilities({ rootDir, sources: config.capabilities, configSources: configSources(config) });

    const first = await build();
    expect(first.capabilities.map((c) => [c.id, c.file, c.status])).toEqual([['pets', 'openapi.pets', 'built']]);
    const dts = await readFile(project.path('.agent-spaces/capabilities/pets/index.d.ts'), 'utf8');
    expect(dts).toContain("declare module '@capabilities/pets'");
    expect(dts).toContain('findPetsByStatus(params: FindPetsByStatusParams): Promise<Pet[]>;');

    const second = await build();
    expect(second.capabilities.map((c) => c.status)).toEqual(['unchanged']);
  });

  it('names the entry and field of a bad source', async () => {
    await writeConfig({ openapi: [{ name: 'ok', spec: 'a.json' }, { name: 'broken' }] });
    await expect(loadConfig({ cwd: project.dir })).rejects.toMatchObject({
      code: 'CONFIG_INVALID',
      message: expect.stringContaining('"openapi" [1].spec give "spec"'),
    });
  });

  it('fails a source whose spec is missing alone, naming it', async () => {
    await writeConfig({ capabilities: [], openapi: [{ name: 'gone', spec: 'missing.json' }] });
    const { config, rootDir } = await loadConfig({ cwd: project.dir });
    const report = await buildCapabilities({ rootDir, sources: [], configSources: configSources(config) });
    expect(report.totals.failed).toBe(1);
    expect(report.capabilities[0]!.diagnostics[0]!.message).toContain('missing.json');
  });
});
