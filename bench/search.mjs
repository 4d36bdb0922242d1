// bench/search.mjs — how well and how fast `search_capabilities` ranks: top-1 and top-3 hit rates of the query sets in
// packages/server/test/search-queries/ (held-out, tuned, blind) on the example capabilities plus the memory,
// filesystem, everything and sequential-thinking MCP servers, and the time per query on a ~500-function catalog
// (GitHub's REST API from @octokit/openapi). With `--baseline <search.ts>` it measures another version of the ranking
// side by side (timing rounds alternate), e.g. one checked out with `git worktree add /tmp/base <commit>`.
//
// Run from sources (no build needed):
//   node --no-node-snapshot --conditions=@agent-spaces/source --import ./packages/server/test/support/register.mjs \
//     bench/search.mjs [--rounds 5] [--baseline /tmp/base/packages/server/src/search.ts]
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { examplesCatalog, largeCatalog, mcpServersOnly, readQueries, scoreQueries } from '../packages/server/test/search-queries/corpus.ts';
import { searchCatalog } from '../packages/server/src/search.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '5' }, baseline: { type: 'string' }, size: { type: 'string', default: '500' } } });
const rounds = Number(values.rounds);
const rankings = [['current', searchCatalog]];
if (values.baseline) rankings.unshift(['baseline', (await import(pathToFileURL(values.baseline).href)).searchCatalog]);

const sets = { heldout: await readQueries('heldout'), tuned: await readQueries('tuned'), blind: await readQueries('blind') };
const examples = await examplesCatalog();
const large = await largeCatalog(Number(values.size));
try {
  for (const [label, search] of rankings) {
    for (const [name, queries] of Object.entries(sets)) {
      const catalog = name === 'tuned' ? mcpServersOnly(examples.catalog) : examples.catalog;
      const s = scoreQueries(catalog, queries, search);
      const pct = (n) => `${((100 * n) / s.total).toFixed(1)} %`;
      console.log(`${label.padEnd(8)} ${name.padEnd(8)} top-1 ${String(s.top1).padStart(3)}/${s.total} (${pct(s.top1)})  top-3 ${String(s.top3).padStart(3)}/${s.total} (${pct(s.top3)})`);
    }
  }
  // Timing: every query of every set against the large catalog plus the examples, rounds alternating between rankings.
  const catalog = { ...large.catalog, entries: [...large.catalog.entries, ...examples.catalog.entries] };
  const queries = Object.values(sets).flat().map((q) => q.query);
  const times = new Map(rankings.map(([label]) => [label, []]));
  for (const [, search] of rankings) for (const query of queries) search(catalog, query); // warm-up
  for (let round = 0; round < rounds; round++) {
    for (const [label, search] of rankings) {
      const start = performance.now();
      for (const query of queries) search(catalog, query);
      times.get(label).push((performance.now() - start) / queries.length);
    }
  }
  const median = (list) => [...list].sort((a, b) => a - b)[Math.floor(list.length / 2)];
  console.log(`\nper query on ${catalog.entries.length} functions (${queries.length} queries, median of ${rounds} rounds):`);
  for (const [label, list] of times) console.log(`${label.padEnd(8)} ${median(list).toFixed(3)} ms`);
  if (times.size === 2) console.log(`current / baseline: ${(median(times.get('current')) / median(times.get('baseline'))).toFixed(2)}×`);
} finally {
  await Promise.all([examples.remove(), large.remove()]);
}
