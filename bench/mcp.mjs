// MCP bench: per-call time of McpClientPool (and the executor the bridge uses) against a bare SDK client, both
// calling server-everything's `echo` over stdio, and discovery time of the four official servers.
// Build first: npx tsc -p packages/capabilities/tsconfig.json && npx tsc -p packages/mcp/tsconfig.json
// Run: node bench/mcp.mjs [calls per round, default 500]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { McpClientPool, createMcpExecutor, discover, discoverAll } from '@agent-spaces/mcp';

const root = fileURLToPath(new URL('../', import.meta.url));
const script = (pkg) => join(root, 'node_modules/@modelcontextprotocol', pkg, 'dist/index.js');
const CALLS = Number(process.argv[2] ?? 500);
const ROUNDS = 5;
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

// Per-call time: the same server, the same tool, rounds interleaved so machine noise hits every variant alike.
const bare = new Client({ name: 'bench', version: '1' });
await bare.connect(new StdioClientTransport({ ...everything, stderr: 'pipe' }));
await bare.listTools(); // the pool lists tools when it connects; do the same so both clients hold the same state
const pool = new McpClientPool({ everything });
const execute = createMcpExecutor(pool, 'everything');
const context = { capability: 'mcp-everything', function: 'echo', signal: new AbortController().signal };
const variants = {
  'bare SDK client': (i) => bare.callTool({ name: 'echo', arguments: { message: `m${i}` } }),
  'McpClientPool.callTool': (i) => pool.callTool('everything', 'echo', { message: `m${i}` }),
  'createMcpExecutor (bridge)': (i) => execute({ sourceName: 'echo' }, { message: `m${i}` }, context),
};
for (const call of Object.values(variants)) await timeCalls(call); // warm-up (connects the pool lazily)
const samples = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, call] of Object.entries(variants)) samples[name].push(...(await timeCalls(call)));
}
const base = stats(samples['bare SDK client']);
console.log(`per-call time, server-everything echo over stdio (${ROUNDS} x ${CALLS} calls each)`);
for (const [name, times] of Object.entries(samples)) {
  const s = stats(times);
  const over = name === 'bare SDK client' ? '' : `  overhead ${us(s.mean - base.mean)} (${(s.mean / base.mean).toFixed(3)}x)`;
  console.log(`  ${name.padEnd(28)} mean ${us(s.mean)}  p50 ${us(s.p50)}  p95 ${us(s.p95)}${over}`);
}
await bare.close();
await pool.close();

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
rmSync(dir, { recursive: true, force: true });
