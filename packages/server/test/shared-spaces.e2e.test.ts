// The spaces of a server: a variant's space (a headless run's, or one without the skills a principal may not see)
// closes once unused for a while, so variants do not pile up sandboxes; the definition's own space stays. A rate limit
// is the space's, whichever of its views a call comes through.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SharedSpaces, type SpaceVariant } from '../src/shared-spaces.js';
import { createProject, type TestProject } from './support/project.js';

let project: TestProject;
let spaces: SharedSpaces;
const definition = { id: 'trains', name: 'Trains' };
const variant = (key: string): SpaceVariant => ({ key, hideFunctions: (fn) => fn.capability === 'vault' && key !== 'all' });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

beforeAll(async () => {
  project = await createProject();
  const policies = { rateLimits: { 'trainSchedule.getSchedule': { requests: 2, period: 'minute' as const } } };
  spaces = new SharedSpaces({ rootDir: project.rootDir, handlers: project.handlers, isolation: 'in-process', typecheck: false, policies }, 300);
});

afterAll(async () => {
  await spaces?.close();
  await project?.cleanup();
});

describe('variant spaces', () => {
  it('close once unused for the idle time; the full space and variants in use stay', async () => {
    const full = await spaces.use(definition);
    const busy = await spaces.use(definition, variant('busy'));
    const done = await spaces.use(definition, variant('done'));
    await spaces.catalog(definition, variant('searched'));
    done.release();
    expect(spaces.size).toBe(4);
    await sleep(700);
    // 'done' and 'searched' were unused for longer than 300 ms: closed. The full space and 'busy' (in use) stay.
    expect(spaces.size).toBe(2);
    expect((await busy.space.run('export default 1 + 1')).ok).toBe(true);
    busy.release();
    full.release();
    await sleep(700);
    expect(spaces.size).toBe(1);
    const again = await spaces.use(definition, variant('done'));
    expect((await again.space.run('export default 2')).ok).toBe(true);
    again.release();
  });
});

describe('rate limits', () => {
  it("count the calls of a space's variants and of its full space together", async () => {
    const schedule = "import { trainSchedule } from '@capabilities/trains';\ntry { return (await trainSchedule.getSchedule({})).length; } catch (error) { return (error as { code: string }).code; }";
    // Every view is open before the first call, so none reads another's calls from the audit log when it starts.
    const views = await Promise.all([undefined, 'limits', 'other'].map((key) => spaces.use(definition, key ? variant(key) : undefined)));
    const runIn = async (index: number) => {
      const result = await views[index]!.space.run(schedule);
      return result.ok ? result.result : result.error.code;
    };
    try {
      expect(await runIn(0)).toBe(2);
      expect(await runIn(1)).toBe(2);
      expect(await runIn(2)).toBe('RATE_LIMITED');
      expect(await runIn(0)).toBe('RATE_LIMITED');
    } finally {
      for (const view of views) view.release();
    }
  });
});
