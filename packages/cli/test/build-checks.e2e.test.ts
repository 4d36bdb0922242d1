// Builds that refuse what cannot work, end to end: functions named `call` and `then` are renamed and the capability
// works in the sandbox (no redeclared binding, no thenable); a defineTool() file that exits at import fails its source
// and the build's exit code while the other sources build. Through the committed bin over the built packages.
import { beforeAll, describe, expect, it } from 'vitest';
import { createSpace } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

let project: Project;

beforeAll(async () => {
  const clash = { name: 'clash', functions: [{ name: 'call' }, { name: 'then' }, { name: 'get' }], executor: { kind: 'runtime' } };
  project = await makeProject({ 'capabilities/clash.json': clash, 'agent-spaces.config.json': { capabilities: ['capabilities/*'] } });
});

describe('names the proxy cannot use', () => {
  it('builds call and then as call_ and then_, warning, and agent code imports and calls them', async () => {
    const built = await project.cli(['capabilities', 'build']);
    expect(built.code, built.stderr).toBe(0);
    expect(built.stdout + built.stderr).toContain('function "call" is exported as call_');
    expect(built.stdout + built.stderr).toContain('function "then" is exported as then_');
    const handlers = { clash: { call: () => 'called', then: () => 'thenned', get: () => 'got' } };
    const space = await createSpace({ rootDir: project.dir, handlers, policies: { audit: false } });
    try {
      const result = await space.run(`import { clash, call_, then_ } from '@capabilities/clash';
        const awaited = await clash;
        export default { same: awaited === clash, call: await clash.call_(), then: await then_(), direct: await call_(), get: await clash.get() };`);
      if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
      expect(result.result).toEqual({ same: true, call: 'called', then: 'thenned', direct: 'called', get: 'got' });
    } finally {
      await space.close();
    }
  }, 60_000);
});

describe('a defineTool() file that exits at import', () => {
  it('fails that source with SOURCE_UNREADABLE, builds the rest, and the build exits 1', async () => {
    await project.write({
      'capabilities/exits.ts': `process.exit(0);\nexport const exits = { name: 'exits', functions: { run: { handler: () => 1 } } };\n`,
      'capabilities/fine.ts': `export const fine = { name: 'fine', functions: { run: { handler: () => 1 } } };\n`,
    });
    const built = await project.cli(['capabilities', 'build', '--json']);
    expect(built.code, built.stderr).toBe(1);
    const report = JSON.parse(built.stdout) as { capabilities: { id: string; status: string; diagnostics: { code: string; message: string }[] }[] };
    const byId = Object.fromEntries(report.capabilities.map((c) => [c.id, c]));
    expect(byId.fine?.status).toBe('built');
    expect(byId.exits?.status).toBe('failed');
    expect(byId.exits?.diagnostics[0]).toMatchObject({ code: 'SOURCE_UNREADABLE', message: expect.stringContaining('exited with code 0') });
  }, 60_000);
});
