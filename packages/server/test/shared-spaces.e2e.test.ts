// The spaces of a server: a variant's space (a headless run's, or one without the skills a principal may not see)
// closes once unused for a while, so variants do not pile up sandboxes; the definition's own space stays.
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
  spaces = new SharedSpaces({ rootDir: project.rootDir, handlers: project.handlers, isolation: 'in-process', typecheck: false }, 300);
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
