// Compiler benchmark: generates 1,000 JSON tool definitions of mixed shapes in a temp folder, builds them, rebuilds
// with nothing changed, and prints both times against the goals (cold build ≤ 2 s, no-change rebuild ≤ 0.2 s). Then
// the same for npm packages: a host-mode package of 200 functions and a sandbox-mode one (with its bundle's size).
//
// It imports @agent-spaces/compiler from its dist/, so build that first:
//   npx tsc -p packages/capabilities/tsconfig.json && npx tsc -p packages/compiler/tsconfig.json
//   node bench/compile.mjs [count]
// BENCH_DIR picks the folder the temp project goes in (default: the OS temp folder); BENCH_DIR=/dev/shm takes the
// disk out of the figures. Wall times depend on what else the machine is doing: the CPU column (user + system time
// of this process) is steadier on a shared machine.
import { mkdir, mkdtemp, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const COUNT = Number(process.argv[2] ?? 1000);
const GOAL_COLD_MS = 2000;
const GOAL_REBUILD_MS = 200;

/** Parameter schemas of increasing complexity; tool `i` uses shape `i % SHAPES.length`. */
const SHAPES = [
  () => ({ type: 'object', properties: {} }),
  (i) => ({
    type: 'object',
    properties: { query: { type: 'string', description: `Search text ${i}` }, limit: { type: 'integer', minimum: 1, maximum: 100, default: 10 } },
    required: ['query'],
  }),
  () => ({
    type: 'object',
    properties: {
      unit: { type: 'string', enum: ['celsius', 'fahrenheit'] },
      when: { type: ['string', 'null'], format: 'date-time' },
      'x-trace-id': { type: 'string' },
    },
  }),
  () => ({
    type: 'object',
    properties: {
      filter: { type: 'object', properties: { from: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } } },
      rows: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, n: { type: 'number' } }, required: ['id'] } },
      point: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] },
    },
  }),
  () => ({
    type: 'object',
    properties: { target: { $ref: '#/$defs/Target' }, labels: { type: 'object', additionalProperties: { type: 'string' } } },
    required: ['target'],
    $defs: {
      Target: { type: 'object', properties: { id: { type: 'string' }, parent: { anyOf: [{ $ref: '#/$defs/Target' }, { type: 'null' }] } }, required: ['id'] },
    },
  }),
  () => ({
    type: 'object',
    properties: {
      change: { oneOf: [{ type: 'object', properties: { op: { const: 'add' }, value: { type: 'number' } } }, { type: 'object', properties: { op: { const: 'remove' } } }] },
      meta: { allOf: [{ type: 'object', properties: { a: { type: 'string' } } }, { type: 'object', properties: { b: { type: 'boolean' } } }] },
    },
  }),
];

const RESULTS = [
  undefined,
  { type: 'object', title: 'Item', properties: { id: { type: 'string' }, score: { type: 'number' } }, required: ['id'] },
  { type: 'array', items: { type: 'object', properties: { name: { type: 'string' } } } },
  { type: 'string' },
];

function tool(i) {
  return {
    name: `tool_${i}_action`,
    description: `Tool number ${i}: does one thing`,
    parameters: SHAPES[i % SHAPES.length](i),
    ...(RESULTS[i % RESULTS.length] ? { returns: RESULTS[i % RESULTS.length] } : {}),
  };
}

/** Source file `i`: mostly single OpenAI-style tools (some wrapped), every fifth a capability with three functions. */
function definition(i) {
  if (i % 5 === 0) {
    return {
      name: `service${i}`,
      version: '1.0.0',
      functions: [tool(i), tool(i + 1), { ...tool(i + 2), requiresApproval: true, approvalMessage: 'Run {query}?' }],
      config: { rateLimit: { requests: 10, period: 'minute' } },
      executor: { kind: 'http', url: `http://127.0.0.1:9/${i}` },
    };
  }
  if (i % 50 === 1) return { ...tool(i), executor: { kind: 'module', module: `./tool-${i}.handlers.mjs` } };
  return i % 2 === 0 ? { type: 'function', function: tool(i) } : tool(i);
}

const { buildCapabilities } = await import('@agent-spaces/compiler');
const root = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'agent-spaces-bench-'));
try {
  await mkdir(join(root, 'capabilities'));
  let functions = 0;
  await Promise.all(
    Array.from({ length: COUNT }, async (_, i) => {
      const value = definition(i);
      functions += value.functions?.length ?? 1;
      await writeFile(join(root, 'capabilities', `tool-${i}.json`), JSON.stringify(value, null, 2));
      if (value.executor?.kind === 'module') {
        await writeFile(join(root, 'capabilities', `tool-${i}.handlers.mjs`), `export async function tool_${i}_action(params) { return params; }\n`);
      }
    }),
  );
  const options = { rootDir: root, sources: ['capabilities/*.json'] };

  /** Runs `task`, returning its result, wall time and CPU time (ms). */
  const timed = async (task) => {
    const wall = performance.now();
    const cpu = process.cpuUsage();
    const result = await task();
    const used = process.cpuUsage(cpu);
    return { result, wallMs: performance.now() - wall, cpuMs: (used.user + used.system) / 1000 };
  };
  const cold = await timed(() => buildCapabilities(options));
  const warm = await timed(() => buildCapabilities(options));

  const check = (report, status) => {
    const counts = report.totals;
    if (counts.failed > 0 || counts[status] !== COUNT) {
      const failed = report.capabilities.find((c) => c.status === 'failed');
      throw new Error(`expected ${COUNT} ${status}, got ${JSON.stringify(counts)}${failed ? `: ${JSON.stringify(failed.diagnostics[0])}` : ''}`);
    }
  };
  check(cold.result, 'built');
  check(warm.result, 'unchanged');

  const ms = (value) => `${value.toFixed(0).padStart(6)} ms`;
  const row = (label, run, goal) =>
    `${label.padEnd(18)} wall ${ms(run.wallMs)}  cpu ${ms(run.cpuMs)}  goal ${ms(goal)}  wall/goal ${(run.wallMs / goal).toFixed(2)}`;
  console.log(`${COUNT} JSON sources (${functions} functions, ${Math.ceil(COUNT / 50)} bundled handler modules) in ${root}, Node ${process.version}`);
  console.log(row('cold build', cold, GOAL_COLD_MS));
  console.log(row('no-change rebuild', warm, GOAL_REBUILD_MS));
} finally {
  await rm(root, { recursive: true, force: true });
}

// npm packages as capabilities: a generated host-mode package of NPM_FUNCTIONS functions (declarations read with the
// TypeScript checker, schemas derived, host module bundled) and the repo's change-case devDependency in sandbox mode.
const NPM_FUNCTIONS = 200;
const { configSources, loadConfig } = await import('@agent-spaces/compiler');
const npmRoot = await mkdtemp(join(process.env.BENCH_DIR ?? tmpdir(), 'agent-spaces-bench-npm-'));
try {
  const pkgDir = join(npmRoot, 'node_modules', 'many-functions');
  await mkdir(pkgDir, { recursive: true });
  const fns = Array.from({ length: NPM_FUNCTIONS }, (_, i) => i);
  await writeFile(join(pkgDir, 'package.json'), JSON.stringify({ name: 'many-functions', version: '1.0.0', type: 'module', main: 'index.js', types: 'index.d.ts' }));
  await writeFile(join(pkgDir, 'index.js'), fns.map((i) => `export const fn${i} = async (query, options = {}) => ({ query, n: ${i}, ...options });`).join('\n'));
  await writeFile(
    join(pkgDir, 'index.d.ts'),
    'export interface Options { limit?: number; tags?: string[]; mode?: "fast" | "full" }\n' +
      fns.map((i) => `/** Function ${i}. */\nexport declare function fn${i}(query: string, options?: Options): Promise<{ query: string; n: number }>;`).join('\n'),
  );
  await symlink(fileURLToPath(new URL('../node_modules/change-case', import.meta.url)), join(npmRoot, 'node_modules', 'change-case'));
  await writeFile(join(npmRoot, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [{ package: 'many-functions', mode: 'host' }, 'npm:change-case'] }));
  const { config } = await loadConfig({ cwd: npmRoot });
  const npmOptions = { rootDir: npmRoot, sources: config.capabilities, outDir: config.outDir, configSources: configSources(config) };
  const timed = async (task) => {
    const wall = performance.now();
    const result = await task();
    return { result, wallMs: performance.now() - wall };
  };
  const cold = await timed(() => buildCapabilities(npmOptions));
  const warm = await timed(() => buildCapabilities(npmOptions));
  if (cold.result.totals.built !== 2 || warm.result.totals.unchanged !== 2) throw new Error(`npm build: ${JSON.stringify([cold.result.totals, warm.result.totals])}`);
  const size = (await stat(join(config.outDir, 'capabilities', 'change-case', 'index.js'))).size;
  console.log(`npm packages: many-functions (${NPM_FUNCTIONS} functions, host mode) + change-case (sandbox mode) in ${npmRoot}`);
  console.log(`cold build          wall ${cold.wallMs.toFixed(0).padStart(6)} ms  goal   2000 ms`);
  console.log(`no-change rebuild   wall ${warm.wallMs.toFixed(0).padStart(6)} ms  goal    200 ms`);
  console.log(`change-case bundled into the sandbox: ${(size / 1024).toFixed(1)} KiB`);
} finally {
  await rm(npmRoot, { recursive: true, force: true });
}
