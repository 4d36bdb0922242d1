// OpenAPI bench: compile time of GitHub's REST spec (@octokit/openapi, ≈1,100 operations) into a capability —
// reading, $ref resolution and IR (readOpenApiSource), then the whole build (declarations, proxy, schema.json,
// meta.json written to disk). Goal: ≤ 10 s for the build.
// Build first: npm run build
// Run: node bench/openapi.mjs [rounds, default 3]
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCapabilities, readOpenApiSource } from '@agent-spaces/compiler';

const root = fileURLToPath(new URL('../', import.meta.url));
const spec = join(root, 'node_modules/@octokit/openapi/generated/api.github.com.json');
const ROUNDS = Number(process.argv[2] ?? 3);
const GOAL_MS = 10_000;
const dir = mkdtempSync(join(tmpdir(), 'agent-spaces-bench-openapi-'));
mkdirSync(join(dir, 'capabilities'));
writeFileSync(join(dir, 'capabilities/github.openapi.json'), JSON.stringify({ spec, auth: { type: 'bearer', token: '${GITHUB_TOKEN}' } }));
const outDir = join(dir, '.agent-spaces');
const context = { rootDir: dir, outDir, relative: (file) => relative(dir, file) };

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const ms = (n) => `${n.toFixed(0).padStart(6)} ms`;
const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;

const reads = [];
const builds = [];
let functions = 0;
let warnings = 0;
try {
  for (let round = 0; round < ROUNDS; round++) {
    let start = performance.now();
    const read = await readOpenApiSource({ name: 'github', spec }, context);
    reads.push(performance.now() - start);
    functions = read.capabilities[0]?.functions.length ?? 0;
    warnings = read.diagnostics.length;

    start = performance.now();
    const report = await buildCapabilities({ rootDir: dir, sources: ['capabilities/*'], outDir, force: true });
    builds.push(performance.now() - start);
    const failed = report.capabilities.filter((c) => c.status !== 'built');
    if (failed.length > 0) throw new Error(`build failed: ${JSON.stringify(failed[0]?.diagnostics.slice(0, 3))}`);
  }

  const built = join(outDir, 'capabilities/github');
  const build = median(builds);
  console.log(`GitHub REST spec: ${mb(statSync(spec).size)}, ${functions} functions, ${warnings} warnings (refused operations)`);
  console.log(`  read + IR (readOpenApiSource)   ${ms(median(reads))}  median of ${ROUNDS}`);
  console.log(`  full build (buildCapabilities)  ${ms(build)}  median of ${ROUNDS}, ${(build / GOAL_MS).toFixed(2)}× the 10 s goal`);
  console.log(`  output: index.d.ts ${mb(statSync(join(built, 'index.d.ts')).size)}, schema.json ${mb(statSync(join(built, 'schema.json')).size)}, meta.json ${mb(statSync(join(built, 'meta.json')).size)}`);
} finally {
  rmSync(dir, { recursive: true, force: true });
}
