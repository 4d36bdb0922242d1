// MCP bench: per-call time of McpClientPool (and the executor the bridge uses) against a bare SDK client, both
// calling server-everything's `echo` over stdio; then the whole path agent code takes (sandbox -> host port ->
// bridge -> pool -> server) through createSpace against the bare client, with the goal of <= 50 µs overhead per
// call; then discovery and build time of the four official servers.
// Build first: npm run build
// Run: node --no-node-snapshot bench/mcp.mjs [calls per round, default 500]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { defineTool } from '@agent-spaces/capabilities';
import { createBridge, loadCapabilities } from '@agent-spaces/bridge';
import { buildCapabilities, configSources, loadConfig } from '@agent-spaces/compiler';
import { McpClientPool, createMcpExecutor, discover, discoverAll } from '@agent-spaces/mcp';
import { createSpace } from '@agent-spaces/sdk';

const root = fileURLToPath(new URL('../', import.meta.url));
const script = (pkg) => join(root, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js');
const CALLS = Number(process.argv[2] ?? 500);
const ROUNDS = 6;
const GOAL_US = 50;
const dir = mkdtempSync(join(tmpdir(), 'agent-spaces-bench-mcp-'));
const everything = { command: process.execPath, args: [script('server-everything'), 'stdio'] };
const servers = {
  everything,
  filesystem: { command: process.execPath, args: [script('server-filesystem'), dir] },
  memory: { command: process.execPath, args: [script('server-memory')], env: { MEMORY_FILE_PATH: join(dir, 'memory.jsonl') } },
  'sequential-thinking': { command: process.execPath, args: [script('server-sequential-thinking')] },
};

/** Runs `call` CALLS times; returns the per-call times in µs. */
async function timeCalls(call) {
  const times = [];
  for (let i = 0; i < CALLS; i++) {
    const start = process.hrtime.bigint();
    await call(i);
    times.push(Number(process.hrtime.bigint() - start) / 1000);
  }
  return times;
}

const stats = (times) => {
  const sorted = [...times].sort((a, b) => a - b);
  const at = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  return { mean: times.reduce((a, b) => a + b, 0) / times.length, p50: at(0.5), p95: at(0.95) };
};
const us = (n) => `${n.toFixed(1).padStart(8)} µs`;

// The four servers built as capabilities (also the input of the bridge and sandbox variants below).
writeFileSync(join(dir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: [], mcpServers: servers }));
const loaded = await loadConfig({ cwd: dir });
const buildServers = (force) =>
  buildCapabilities({ rootDir: dir, sources: [], configSources: configSources(loaded.config), outDir: loaded.config.outDir, force });
await buildServers(true);

// Per-call time: the same tool, rounds interleaved so machine noise hits every variant alike. Each variant talks to a
// server process of its own that serves only its calls: a server serving more calls answers faster (warmer), which
// would flatter whichever variants share it.
const bare = new Client({ name: 'bench', version: '1' });
await bare.connect(new StdioClientTransport({ ...everything, stderr: 'pipe' }));
await bare.listTools(); // the pool lists tools when it connects; do the same so both clients hold the same state
const [pool, executorPool, bridgePool] = [0, 1, 2].map(() => new McpClientPool({ everything }));
const execute = createMcpExecutor(executorPool, 'everything');
const signal = new AbortController().signal;
const context = { capability: 'mcp-everything', function: 'echo', signal };
const bridge = createBridge({
  capabilities: await loadCapabilities(join(loaded.config.outDir, 'capabilities'), ['mcp-everything'], undefined, { mcp: { pool: bridgePool } }),
});
const variants = {
  'bare SDK client': (i) => bare.callTool({ name: 'echo', arguments: { message: `m${i}` } }),
  'McpClientPool.callTool': (i) => pool.callTool('everything', 'echo', { message: `m${i}` }),
  'createMcpExecutor': (i) => execute({ sourceName: 'echo' }, { message: `m${i}` }, context),
  'bridge.call (+ validation, policy, staleness)': (i) =>
    bridge.call({ kind: 'call', capability: 'mcp-everything', function: 'echo', params: { message: `m${i}` } }, signal),
};
for (const call of Object.values(variants)) await timeCalls(call); // warm-up (connects the pool lazily)
const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, call] of Object.entries(variants)) samples[name].push(...(await timeCalls(call)));
}
const base = stats(samples['bare SDK client']);
console.log(`per-call time on the host, server-everything echo over stdio (${ROUNDS} x ${CALLS} calls each)`);
for (const [name, times] of Object.entries(samples)) {
  const s = stats(times);
  const over = name === 'bare SDK client' ? '' : `  overhead ${us(s.mean - base.mean)} (${(s.mean / base.mean).toFixed(3)}x)`;
  console.log(`  ${name.padEnd(46)} mean ${us(s.mean)}  p50 ${us(s.p50)}  p95 ${us(s.p95)}${over}`);
}
await Promise.all([pool, executorPool, bridgePool].map((p) => p.close()));

// Agent code -> MCP: a run making CALLS echo calls in a loop, minus an empty run, per call; against CALLS bare
// calls, and against a run whose in-process handler makes the same call with a bare client of its own (what the
// sandbox crossing costs). Here too each variant has a server process of its own.
const relayClient = new Client({ name: 'bench-relay', version: '1' });
await relayClient.connect(new StdioClientTransport({ ...everything, stderr: 'pipe' }));
await relayClient.listTools();
const relay = defineTool({
  name: 'relay',
  functions: {
    echo: {
      description: 'Calls echo with the bare client',
      parameters: { message: { type: 'string' } },
      handler: ({ message }) => relayClient.callTool({ name: 'echo', arguments: { message } }),
    },
  },
});
const space = await createSpace({ rootDir: dir, capabilities: ['mcp-everything', relay], typecheck: false, limits: { maxCapabilityCalls: CALLS + 1 } });
const loop = (module, name) => `import { ${name} } from '@capabilities/${module}';
  for (let i = 0; i < ${CALLS}; i++) await ${name}.echo({ message: 'm' + i });`;
const timeRun = async (code) => {
  const start = process.hrtime.bigint();
  const { ok, error } = await space.run(code);
  if (!ok) throw new Error(`${error.code}: ${error.message}`);
  return Number(process.hrtime.bigint() - start) / 1000;
};
const timeBare = async () => {
  const start = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) await bare.callTool({ name: 'echo', arguments: { message: `m${i}` } });
  return Number(process.hrtime.bigint() - start) / 1000;
};
await timeRun(loop('mcp-everything', 'everything')); // connects the space's pool
const perCall = { bare: [], relay: [], mcp: [] };
for (let round = 0; round < ROUNDS; round++) {
  const empty = await timeRun('return 0;');
  perCall.bare.push((await timeBare()) / CALLS);
  // Alternate the order of the two sandbox variants, so neither always runs after the other's garbage.
  const order = round % 2 === 0 ? ['relay', 'mcp'] : ['mcp', 'relay'];
  for (const variant of order) {
    const code = variant === 'relay' ? loop('relay', 'relay') : loop('mcp-everything', 'everything');
    perCall[variant].push(((await timeRun(code)) - empty) / CALLS);
  }
}
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const overhead = mean(perCall.mcp) - mean(perCall.bare);
console.log(`\nagent code -> MCP per call, echo over stdio (${ROUNDS} runs x ${CALLS} calls; a run's fixed cost subtracted)`);
console.log(`  ${'bare SDK client'.padEnd(46)} mean ${us(mean(perCall.bare))}`);
console.log(`  ${'sandbox -> handler -> bare client'.padEnd(46)} mean ${us(mean(perCall.relay))}  overhead ${us(mean(perCall.relay) - mean(perCall.bare))}`);
console.log(
  `  ${'sandbox -> mcp-everything (createSpace)'.padEnd(46)} mean ${us(mean(perCall.mcp))}  overhead ${us(overhead)}` +
    `  (goal <= ${GOAL_US} µs: ${overhead <= GOAL_US ? 'met' : 'missed'}; over the handler path ${us(mean(perCall.mcp) - mean(perCall.relay))})`,
);
await space.close();
await relayClient.close();
await bare.close();

// Discovery: each server alone (connect, initialize, list everything, close), then all four in parallel.
console.log('\ndiscovery (spawn + initialize + tools/resources/prompts lists + close)');
let sum = 0;
for (const [name, config] of Object.entries(servers)) {
  const start = performance.now();
  const found = await discover(name, config);
  const ms = performance.now() - start;
  sum += ms;
  console.log(`  ${name.padEnd(20)} ${ms.toFixed(0).padStart(6)} ms  ${String(found.tools.length).padStart(3)} tools`);
}
const start = performance.now();
const outcomes = await discoverAll(servers);
const parallel = performance.now() - start;
console.log(`  ${'one after another'.padEnd(20)} ${sum.toFixed(0).padStart(6)} ms`);
console.log(`  ${'discoverAll (parallel)'.padEnd(20)} ${parallel.toFixed(0).padStart(6)} ms  ${outcomes.filter((o) => o.ok).length}/4 ok`);

// Build: the four servers as config sources (discovery, IR, .d.ts, proxy, schema.json, meta.json), then a rebuild
// that finds every server unchanged.
console.log('\nbuild of the four servers from mcpServers (capabilities build)');
for (const [label, force] of [['full build (--force)', true], ['rebuild, nothing changed', false]]) {
  const start = performance.now();
  const report = await buildServers(force);
  const { built, unchanged, failed } = report.totals;
  console.log(`  ${label.padEnd(26)} ${(performance.now() - start).toFixed(0).padStart(6)} ms  ${built} built, ${unchanged} unchanged, ${failed} failed`);
}
rmSync(dir, { recursive: true, force: true });
