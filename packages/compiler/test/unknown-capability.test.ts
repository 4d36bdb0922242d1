// A space's capability list naming something that is not built: CAPABILITY_NOT_FOUND names the closest built names,
// and when none is close lists what IS built (never "nothing is built" while seven are), through createSpace as users
// meet it and through the bridge's resolver for the listing's bounds.
import { describe, expect, it } from 'vitest';
import { capabilitiesDir } from '@agent-spaces/capabilities';
import { resolveCapabilityNames } from '@agent-spaces/bridge/output';
import { makeProject } from '../../../test/fixtures/project.js';

const tool = (name: string) => ({ name, parameters: { type: 'object', properties: {} } });
const SEVEN = ['calendar', 'crm', 'email', 'files', 'search', 'trains', 'weather'];

async function builtProject(ids: readonly string[]) {
  const project = await makeProject(Object.fromEntries(ids.map((id) => [`capabilities/${id}.json`, tool(`do_${id}`)])));
  const report = await project.build({ sources: ['capabilities/*'] });
  expect(report.totals).toMatchObject({ built: ids.length, failed: 0 });
  return project;
}

describe('a capability list naming something unbuilt', () => {
  const FAR = ['mcp:slack', 'openapi:github', '@company/internal-sdk', 'x', 'a-very-long-capability-name-that-matches-nothing'];
  for (const name of FAR) {
    it(`lists the seven built ids when ${JSON.stringify(name)} is close to none of them`, async () => {
      const project = await builtProject(SEVEN);
      const error = await project.space({ isolation: 'in-process', capabilities: ['trains', name] }).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(error).toMatchObject({ code: 'CAPABILITY_NOT_FOUND', data: { name, closest: [] } });
      expect((error as Error).message).toMatch(/\(built: calendar, crm, email, files, search, trains, weather\)$/);
      expect((error as Error).message).not.toContain('nothing is built');
    });
  }

  it('still names the closest ones when some are close', async () => {
    const project = await builtProject(SEVEN);
    const error = await project.space({ isolation: 'in-process', capabilities: ['wether'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toMatchObject({ code: 'CAPABILITY_NOT_FOUND', data: { name: 'wether', closest: ['weather'] } });
    expect((error as Error).message).toMatch(/\(closest: weather\)$/);
  });

  it('lists the first twenty ids and counts the rest', async () => {
    const ids = Array.from({ length: 23 }, (_, i) => `tool-${String(i).padStart(2, '0')}`);
    const project = await builtProject(ids);
    expect(() => resolveCapabilityNames(capabilitiesDir(project.path('.agent-spaces')), ['mcp:slack'])).toThrowError(
      /\(built: tool-00, tool-01, .*, tool-19 and 3 more\)$/,
    );
  });
});
