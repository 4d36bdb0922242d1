// A finished run leaves nothing behind on the host: after thousands more identical runs (a capability call each, with
// the space's defaults: typecheck and audit on) the host holds about as many live objects as before, in both isolation
// modes and in a session. A per-run entry kept anywhere (a map by run or call id, a listener, a history without a
// bound) would add at least one object a run, RUNS in all. The slack is for `in-process`: contexts of finished runs
// keep their host callbacks alive until the isolate collects them or is recycled (8 MiB), so the count swings by up to
// ≈ 1,700 objects with no trend, which the least of several counts sees through. bench/isolation.mjs measures the same
// in heap bytes over 10,000 runs.
import { queryObjects } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defineTool } from '@agent-spaces/capabilities';
import { createSpace, type Space } from '@agent-spaces/sdk';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const WARM_RUNS = 200;
const RUNS = 3_000;
const CODE = `import { math } from '@capabilities/math';\nexport default await math.add({ a: 1, b: 2 });`;

const math = defineTool({
  name: 'math',
  functions: {
    add: {
      description: 'Adds two numbers',
      parameters: { a: { type: 'number' }, b: { type: 'number' } },
      handler: ({ a, b }) => (a ?? 0) + (b ?? 0),
    },
  },
});

let project: Project;
const spaces: Space[] = [];

beforeAll(async () => {
  project = await makeProject();
});

afterAll(async () => {
  await Promise.all(spaces.map((space) => space.close()));
});

/** Runs `CODE` `count` times through `target`, each to a result of 3. */
async function runs(target: Pick<Space, 'run'>, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = await target.run(CODE);
    if (!result.ok || result.result !== 3) throw new Error(`run ${i}: ${JSON.stringify(result)}`);
  }
}

/** Live objects of this process's heap (queryObjects collects garbage first), once the runs' clean-up has settled. */
async function liveObjects(): Promise<number> {
  await new Promise((resolve) => setTimeout(resolve, 50));
  return queryObjects(Object, { format: 'count' });
}

describe('what the host keeps of finished runs', () => {
  for (const isolation of ['process', 'in-process'] as const) {
    for (const inSession of [false, true]) {
      it(`keeps no object of a finished run, over ${RUNS} more identical runs (${isolation}${inSession ? ', in a session' : ''})`, async () => {
        const space = await createSpace({ rootDir: project.dir, isolation, capabilities: [math] });
        spaces.push(space);
        const target = inSession ? space.createSession() : space;
        await runs(target, WARM_RUNS);
        // Counted after every sixth of the runs: a swing only ever adds, so the least of the first counts against the
        // least of the last is the trend (a leak of one object a run adds ≥ 2/3 × RUNS to it).
        const counts = [await liveObjects()];
        for (let chunk = 0; chunk < 6; chunk++) {
          await runs(target, RUNS / 6);
          counts.push(await liveObjects());
        }
        expect(Math.min(...counts.slice(-3)) - Math.min(...counts.slice(0, 2))).toBeLessThan(RUNS / 3);
      }, 120_000);
    }
  }
});
