// Strict files from a user's view, through the real `agent-spaces` command over the built packages: a typo in a JSON
// capability file (`requiresAproval`), in the config file or in an agent file is refused with a "did you mean", naming
// the file and the field; a project started with `init` still builds, and the `$schema` path its JSON files may name
// resolves in its node_modules.
import { existsSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';

const deleteContact = { name: 'delete_contact', parameters: { type: 'object', properties: { id: { type: 'string' } } } };
const SCHEMA = 'node_modules/@agent-spaces/capabilities/schemas/capability-file.schema.json';

describe('strict files', () => {
  it('refuses requiresAproval in a JSON capability: non-zero exit, the file, the field and the suggestion', async () => {
    const project = await makeProject({
      'agent-spaces.config.json': { capabilities: ['capabilities/*'] },
      'capabilities/crm.json': { name: 'crm', functions: [{ ...deleteContact, requiresAproval: true }] },
    });
    const built = await project.cli(['capabilities', 'build']);
    expect(built.code).not.toBe(0);
    expect(built.stdout + built.stderr).toContain(
      'capabilities/crm.json#/functions/0/requiresAproval: functions[0].requiresAproval is not a known key — did you mean "requiresApproval"?',
    );
    const json = await project.cli(['capabilities', 'build', '--json']);
    const report = JSON.parse(json.stdout) as { capabilities: { id: string; status: string; diagnostics: { code: string }[] }[] };
    expect(report.capabilities.find((c) => c.id === 'crm')).toMatchObject({ status: 'failed', diagnostics: [{ code: 'INVALID_DEFINITION' }] });
  }, 60_000);

  it('refuses a typo in the config file with CONFIG_INVALID naming the file and the key', async () => {
    const project = await makeProject({ 'agent-spaces.config.json': { capabilites: ['capabilities/*'] } });
    const built = await project.cli(['capabilities', 'build']);
    expect(built.code).not.toBe(0);
    expect(built.stderr).toContain('CONFIG_INVALID');
    expect(built.stderr).toContain('agent-spaces.config.json: capabilites is not a known key — did you mean "capabilities"?');
  }, 60_000);

  it('builds the init project, and a JSON capability naming its $schema beside it', async () => {
    const project = await makeProject({}, { nodeModules: true });
    expect((await runCli(project.dir, ['init'])).code).toBe(0);
    expect(existsSync(join(project.dir, SCHEMA))).toBe(true);
    await writeFile(join(project.dir, 'capabilities/crm.json'), JSON.stringify({ $schema: `../${SCHEMA}`, name: 'crm', functions: [{ ...deleteContact, requiresApproval: true }] }));
    const built = await runCli(project.dir, ['capabilities', 'build']);
    expect(built.code, built.stderr).toBe(0);
    expect(existsSync(join(project.dir, '.agent-spaces/capabilities/crm'))).toBe(true);
  }, 60_000);
});
