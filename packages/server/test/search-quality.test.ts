// Search quality on query sets kept in test/search-queries/: the held-out set (written from the tools' purposes before
// the ranking was read or changed) and the set the search was tuned on. Each must keep the wanted function in the top 3
// at least as often as its floor; the figures are printed so a run shows where the search stands.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { examplesCatalog, mcpServersOnly, readQueries, scoreQueries, type BuiltCatalog, type QueryScore } from './search-queries/corpus.js';

/** Share of queries whose wanted function must rank in the top 3. */
const FLOORS = { heldout: 0.85, tuned: 1 } as const;

let built: BuiltCatalog;
beforeAll(async () => {
  built = await examplesCatalog();
}, 120_000);
afterAll(() => built?.remove());

function report(name: string, score: QueryScore): void {
  console.log(`search ${name}: top-1 ${score.top1}/${score.total}, top-3 ${score.top3}/${score.total} (${((100 * score.top3) / score.total).toFixed(1)} %)`);
  for (const miss of score.misses) console.log(`  miss ${JSON.stringify(miss.query)} wants ${miss.expected.join(' or ')}, got ${miss.got.join(', ') || 'nothing'}`);
}

describe('search quality', () => {
  it('builds a catalog holding every function the query sets name', async () => {
    const paths = new Set(built.catalog.entries.map((entry) => entry.path));
    for (const name of ['heldout', 'tuned', 'blind'] as const) {
      for (const { expected } of await readQueries(name)) for (const path of expected) expect(paths, `${name}: ${path}`).toContain(path);
    }
  });

  it(`finds the wanted function in the top 3 for at least ${FLOORS.heldout * 100} % of the held-out queries`, async () => {
    const score = scoreQueries(built.catalog, await readQueries('heldout'));
    report('held-out', score);
    expect(score.total).toBeGreaterThanOrEqual(80);
    expect(score.top3 / score.total).toBeGreaterThanOrEqual(FLOORS.heldout);
  });

  it('finds the wanted function in the top 3 for every query of the tuned set (MCP servers and std only)', async () => {
    const score = scoreQueries(mcpServersOnly(built.catalog), await readQueries('tuned'));
    report('tuned', score);
    expect(score.top3 / score.total).toBeGreaterThanOrEqual(FLOORS.tuned);
  });

  it('a query set with a wrong expectation fails: the measure can tell a miss', () => {
    const score = scoreQueries(built.catalog, [{ query: 'current weather in Oslo', expected: ['memory.readGraph'] }]);
    expect(score).toMatchObject({ total: 1, top1: 0, top3: 0 });
    expect(score.misses[0]!.got[0]).toBe('weather.getWeather');
  });
});
