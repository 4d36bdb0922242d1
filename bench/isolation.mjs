// Isolation bench: the runtime's two isolation modes side by side, on the same trivial `add` through a minimal host
// port. `in-process` is the Sandbox (agent code in an isolate of this process); `process` is the ProcessSandbox (each
// run in a supervised sandbox process, calls over IPC). Prints the per-call round trip, the warm trivial run, the cold
// start of a sandbox process, the RSS of one, the creation and idle RSS of a session packed into a session process,
// and for each limit probe how long after its limit the run ended. Then, through the SDK and `mcp serve` in each
// mode: the host's RSS growth over a run of 999 calls with a 1 MB param, and the delay a second MCP client
// (Streamable HTTP) sees while a first client's script spins after an awaited call; and the host's heap (after a full
// GC) and RSS after 1,000 and 10,000 identical runs through createSpace with its defaults, with the growth between;
// and, against the real `mcp serve`, what each type bomb does to another client, the time and the server (type-bombs.mjs).
// The SDK's 1,000-call run and warm run against @utcp/code-mode are in bench/runtime.mjs (both modes).
// Build first (npm run build), then: node --no-node-snapshot bench/isolation.mjs
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ProcessSandbox, Sandbox } from '@agent-spaces/runtime';
import { printTypeBombs, typeBombFigures } from './type-bombs.mjs';

const CALLS = 1_000;
const WARM_RUNS = 200;
const COLD_RUNS = 5;
const IDLE_GAP_MS = 5;
const GOALS = { processLoopMs: 50 };

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const MODULES = new Map([
  [
    '@capabilities/math',
    `import { call } from 'agent-spaces:bridge';\nexport const math = Object.freeze({ add: (params) => call("math", "add", params) });`,
  ],
]);
const TRIVIAL = `import { math } from '@capabilities/math';\nexport default await math.add({ a: 1, b: 2 });`;
const LOOP = `import { math } from '@capabilities/math';\nlet sum = 0;\nfor (let i = 0; i < ${CALLS}; i++) sum = await math.add({ a: sum, b: 1 });\nexport default sum;`;

/** Time of every call on the host: the gap between two is one full round trip. */
const arrivals = [];
const port = {
  call: async (message) => {
    arrivals.push(performance.now());
    return { ok: true, value: message.params.a + message.params.b };
  },
};

async function value(sandbox, code, limits) {
  const outcome = await sandbox.run(code, { port, ...(limits ? { limits } : {}) });
  if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
  return outcome.value;
}

/** Per-call round trip and warm runs of one mode. */
async function warmFigures(sandbox) {
  await value(sandbox, TRIVIAL);
  const loops = [];
  for (let round = 0; round < 3; round++) {
    arrivals.length = 0;
    const started = performance.now();
    await value(sandbox, LOOP, { maxCapabilityCalls: CALLS + 1 });
    loops.push({ loopMs: performance.now() - started, callUs: median(arrivals.slice(1).map((t, i) => (t - arrivals[i]) * 1000)) });
  }
  const best = loops.reduce((a, b) => (a.loopMs <= b.loopMs ? a : b));
  const warm = async (gapMs) => {
    const times = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      if (gapMs > 0) await pause(gapMs);
      const started = performance.now();
      await value(sandbox, TRIVIAL);
      times.push(performance.now() - started);
    }
    return median(times);
  };
  return { ...best, warmIdleMs: await warm(IDLE_GAP_MS), warmBackToBackMs: await warm(0) };
}

/** For reference: the median round trip of a bare Node IPC echo (advanced serialization), this VM's floor per call. */
async function ipcFloorUs() {
  const echo = `process.on('message', (m) => process.send(m));`;
  const child = spawn(process.execPath, ['-e', echo], { serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const times = [];
  for (let i = 0; i < CALLS; i++) {
    const started = performance.now();
    await new Promise((resolve) => {
      child.once('message', resolve);
      child.send({ kind: 'outcome', runId: 1, callId: i, outcome: { ok: true, value: i } });
    });
    times.push((performance.now() - started) * 1000);
  }
  child.kill();
  return median(times);
}

/** Construction of a ProcessSandbox to the result of its first run: a sandbox process's cold start. */
async function coldStart() {
  const times = [];
  for (let i = 0; i < COLD_RUNS; i++) {
    const started = performance.now();
    const sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 1 });
    await value(sandbox, TRIVIAL);
    times.push(performance.now() - started);
    await sandbox.close();
  }
  return median(times);
}

/** RSS of this process's sandbox processes, in MiB (one idle process after a run). */
async function childRssMiB() {
  const sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 1 });
  await value(sandbox, TRIVIAL);
  const out = execFileSync('ps', ['-o', 'rss=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  await sandbox.close();
  const rows = out.split('\n').filter((line) => line.includes('process-child'));
  return rows.map((line) => Number(line.trim().split(/\s+/)[0]) / 1024);
}

const SESSIONS = 30;

/** RSS of this process's sandbox processes, in KiB, by pid. */
function childrenRssKiB() {
  const out = execFileSync('ps', ['-o', 'pid=,rss=,args=', '--ppid', String(process.pid)], { encoding: 'utf8' });
  const rows = out.split('\n').filter((line) => line.includes('process-child'));
  return new Map(rows.map((line) => line.trim().split(/\s+/)).map(([pid, rss]) => [pid, Number(rss)]));
}

/**
 * Sessions packed into one session process: the time from createSession() to the result of a first trivial run
 * while the process has room (no spawn), and the process's RSS growth per idle session after one small run each.
 */
async function sessionFigures() {
  const sandbox = new ProcessSandbox({ modules: MODULES, maxProcesses: 1, sessionsPerProcess: SESSIONS + 1 });
  const first = sandbox.createSession();
  await value(first, TRIVIAL);
  await pause(300);
  const before = childrenRssKiB();
  const sessions = [];
  const createMs = [];
  for (let i = 0; i < SESSIONS; i++) {
    const started = performance.now();
    const session = sandbox.createSession();
    await value(session, `${TRIVIAL.replace('export default', `const kept${i} =`)}\nexport default kept${i};`);
    createMs.push(performance.now() - started);
    sessions.push(session);
  }
  await pause(300);
  const after = childrenRssKiB();
  const warmRuns = [];
  for (let i = 0; i < 50; i++) {
    const started = performance.now();
    await value(sessions[i % SESSIONS], TRIVIAL);
    warmRuns.push(performance.now() - started);
  }
  const stats = sandbox.stats();
  await sandbox.close();
  let growthKiB = 0;
  for (const [pid, rss] of after) growthKiB += rss - (before.get(pid) ?? 0);
  return { createMs: median(createMs), warmRunMs: median(warmRuns), perSessionMiB: growthKiB / 1024 / SESSIONS, stats };
}

const PROBES = [
  { name: 'while (true) at the top', code: 'while (true) {}', limits: { timeoutMs: 200 }, limitMs: 200 },
  { name: 'while (true) after an awaited call', code: `import { math } from '@capabilities/math';\nawait math.add({ a: 1, b: 2 });\nwhile (true) {}`, limits: { timeoutMs: 200 }, limitMs: 200 },
  { name: 'CPU limit', code: 'let n = 0;\nwhile (true) n++;', limits: { cpuTimeMs: 200, timeoutMs: 10_000 }, limitMs: 200 },
  { name: 'caught MAX_CALLS loop', code: `import { math } from '@capabilities/math';\nfor (;;) { try { await math.add({ a: 1, b: 2 }); } catch {} }`, limits: { maxCapabilityCalls: 100 } },
  { name: '50 MB console line', code: `console.log('x'.repeat(50 * 1024 * 1024));` },
  { name: 'array growth (32 MiB heap)', code: 'const hog = [];\nwhile (true) hog.push(new Array(10_000).fill(1));', limits: { memoryMb: 32 } },
  { name: 'Map growth (64 MiB heap)', code: 'const m = new Map();\nfor (let i = 0; ; i++) m.set(i, i);', limits: { memoryMb: 64 }, fatal: true },
];

/** How long after its limit each probe's run ended (from its start when the limit is not a time), and its code. */
async function probe(sandbox, inProcess) {
  const results = {};
  for (const { name, code, limits, limitMs, fatal } of PROBES) {
    if (fatal && inProcess) {
      results[name] = 'aborts the host';
      continue;
    }
    const outcome = await sandbox.run(code, { port, limits: { timeoutMs: 20_000, ...limits } });
    const ms = outcome.stats.durationMs - (limitMs ?? 0);
    results[name] = `${outcome.ok ? 'ok' : outcome.error.code} ${limitMs ? '+' : ''}${ms.toFixed(0)} ms`;
  }
  return results;
}


const MODES = ['in-process', 'process'];
const SELF = fileURLToPath(import.meta.url);
const GOALS_HOST = { rssGrowthMiB: 64, delayMs: 50 };

/** A temp project with the `math` capability (runtime handlers) built; returns its folder. */
async function buildProject() {
  const { buildCapabilities } = await import('@agent-spaces/compiler');
  const rootDir = mkdtempSync(join(tmpdir(), 'agent-spaces-bench-isolation-'));
  mkdirSync(join(rootDir, 'capabilities'));
  const definition = {
    name: 'math',
    functions: [
      { name: 'add', parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] } },
      { name: 'take', parameters: { type: 'object', properties: { blob: { type: 'string' } } } },
    ],
  };
  writeFileSync(join(rootDir, 'capabilities/math.json'), JSON.stringify(definition));
  const report = await buildCapabilities({ rootDir, sources: ['capabilities/*.json'] });
  if (report.totals.failed > 0) throw new Error(`build failed: ${JSON.stringify(report.capabilities)}`);
  return rootDir;
}

const HANDLERS = { math: { add: ({ a, b }) => a + b, take: ({ blob }) => blob?.length ?? 0 } };

/** In a fresh process: RSS before and after a run of 999 calls with a 1 MB param through createSpace, in MiB. */
async function rssGrowth(rootDir, isolation) {
  const { createSpace } = await import('@agent-spaces/sdk');
  const space = await createSpace({ rootDir, isolation, handlers: HANDLERS, typecheck: false, policies: { audit: false } });
  const trivial = await space.run(TRIVIAL);
  if (!trivial.ok) throw new Error(trivial.error.message);
  const before = process.memoryUsage().rss;
  const run = await space.run(`import { math } from '@capabilities/math';\nconst blob = 'x'.repeat(1_000_000);\nlet n = 0;\nfor (let i = 0; i < 999; i++) n += await math.take({ blob });\nexport default n;`);
  if (!run.ok) throw new Error(run.error.message);
  const after = process.resourceUsage().maxRSS * 1024;
  await space.close();
  return { growthMiB: (after - before) / 1048576 };
}

/** `mcp serve` over HTTP: while client A's script spins after a call, client B's `list_spaces` round trips (p50/p95). */
async function clientDelay(rootDir, isolation) {
  const { createCodeModeHost, startHttpServer } = await import('@agent-spaces/server');
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StreamableHTTPClientTransport } = await import('@modelcontextprotocol/sdk/client/streamableHttp.js');
  const host = createCodeModeHost({ spaces: [{ id: 'math', name: 'Math' }], space: { rootDir, isolation, handlers: HANDLERS, limits: { timeoutMs: 3_000 } } });
  const http = await startHttpServer({ createServer: () => host.createServer(), port: 0, authToken: 'bench-token-0123456789', rateLimit: false });
  const connect = async () => {
    const client = new Client({ name: 'bench', version: '1' });
    await client.connect(new StreamableHTTPClientTransport(new URL(http.url), { requestInit: { headers: { Authorization: 'Bearer bench-token-0123456789' } } }));
    return client;
  };
  const [a, b] = await Promise.all([connect(), connect()]);
  await b.callTool({ name: 'list_spaces', arguments: {} });
  let spinning = true;
  const hostile = a
    .callTool({ name: 'execute', arguments: { code: `import { math } from '@capabilities/math';\nawait math.add({ a: 1, b: 2 });\nwhile (true) {}` } })
    .finally(() => (spinning = false));
  await pause(50);
  const times = [];
  while (spinning) {
    const started = performance.now();
    await b.callTool({ name: 'list_spaces', arguments: {} });
    times.push(performance.now() - started);
    await pause(20);
  }
  await hostile;
  await Promise.all([a.close(), b.close()]);
  await http.close();
  await host.close();
  const sorted = [...times].sort((x, y) => x - y);
  return { p50: sorted[Math.floor(sorted.length / 2)] ?? NaN, p95: sorted[Math.floor(sorted.length * 0.95)] ?? NaN, samples: times.length };
}

const HEAP_MARKS = [1_000, 10_000];
const GOAL_HEAP_GROWTH = 10;

/**
 * In a fresh process: the host's heap (after a full GC) and RSS, in MiB, after 1,000 and 10,000 identical runs of a
 * script with one capability call, through createSpace with its defaults (typecheck and audit on).
 */
async function heapAfterRuns(rootDir, isolation) {
  const { createSpace } = await import('@agent-spaces/sdk');
  const space = await createSpace({ rootDir, isolation, handlers: HANDLERS });
  const marks = {};
  for (let i = 1; i <= HEAP_MARKS.at(-1); i++) {
    const run = await space.run(TRIVIAL);
    if (!run.ok) throw new Error(run.error.message);
    if (!HEAP_MARKS.includes(i)) continue;
    await pause(50);
    globalThis.gc();
    const { heapUsed, rss } = process.memoryUsage();
    marks[i] = { heapMiB: heapUsed / 1048576, rssMiB: rss / 1048576 };
  }
  await space.close();
  return marks;
}

/** Prints the heap and RSS rows of {@link heapAfterRuns} for each mode, with the growth from the first mark to the last. */
function printHeapGrowth(rootDir, row) {
  const marks = Object.fromEntries(MODES.map((mode) => [mode, inFreshProcess('heap', rootDir, mode)]));
  const [first, last] = HEAP_MARKS;
  const growth = (mode, key) => (marks[mode][last][key] / marks[mode][first][key] - 1) * 100;
  const worst = Math.max(...MODES.map((mode) => growth(mode, 'heapMiB')));
  console.log(`\nhost memory over ${last.toLocaleString('en')} identical runs (createSpace defaults, one call a run; heap after a full GC)`);
  for (const [label, key] of [['heap used', 'heapMiB'], ['RSS', 'rssMiB']]) {
    for (const mark of HEAP_MARKS) {
      row(`  ${label} after ${mark.toLocaleString('en')} runs`, ...MODES.map((mode) => `${marks[mode][mark][key].toFixed(1)} MiB`));
    }
    const extra = key === 'heapMiB' ? `goal < ${GOAL_HEAP_GROWTH} %: ${worst < GOAL_HEAP_GROWTH ? 'met' : 'missed'}` : '';
    row(`  ${label} growth, run ${first.toLocaleString('en')} → ${last.toLocaleString('en')}`, ...MODES.map((mode) => `${growth(mode, key).toFixed(1)} %`), extra);
  }
}

const ROLES = { rss: rssGrowth, delay: clientDelay, heap: heapAfterRuns };
if (process.argv[2] in ROLES) {
  process.stdout.write(JSON.stringify(await ROLES[process.argv[2]](process.argv[3], process.argv[4])));
  process.exit(0);
}

/** Runs one role in a fresh process (its RSS and event loop its own) and returns its figures. */
function inFreshProcess(role, rootDir, isolation) {
  const out = execFileSync(process.execPath, ['--no-node-snapshot', '--expose-gc', SELF, role, rootDir, isolation], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return JSON.parse(out);
}

const inProcess = new Sandbox({ modules: MODULES });
const processes = new ProcessSandbox({ modules: MODULES });
const figures = { 'in-process': await warmFigures(inProcess), process: await warmFigures(processes) };
const probes = { 'in-process': await probe(inProcess, true), process: await probe(processes, false) };
await inProcess.close();
await processes.close();
const coldMs = await coldStart();
const floorUs = await ipcFloorUs();
const rss = await childRssMiB();
const packed = await sessionFigures();

console.log(`Isolation bench (node ${process.version}; lower is better)\n`);
const row = (label, a, b, extra = '') => console.log(`${label.padEnd(66)}${String(a).padStart(20)}${String(b).padStart(24)}  ${extra}`);
row('', 'in-process', 'process');
const ours = figures.process;
row(`per-call round trip (median of ${CALLS} sequential calls)`, `${figures['in-process'].callUs.toFixed(1)} µs`, `${ours.callUs.toFixed(1)} µs`);
row('  for reference: a bare Node IPC round trip (median)', '', `${floorUs.toFixed(1)} µs`);
row(
  `  ${CALLS}-call run, whole`,
  `${figures['in-process'].loopMs.toFixed(1)} ms`,
  `${ours.loopMs.toFixed(1)} ms`,
  `goal (process) ≤ ${GOALS.processLoopMs} ms: ${ours.loopMs <= GOALS.processLoopMs ? 'met' : 'missed'}`,
);
row(`warm trivial run, idle (median of ${WARM_RUNS}, ${IDLE_GAP_MS} ms apart)`, `${figures['in-process'].warmIdleMs.toFixed(3)} ms`, `${ours.warmIdleMs.toFixed(3)} ms`);
row(`warm trivial run, back to back (median of ${WARM_RUNS})`, `${figures['in-process'].warmBackToBackMs.toFixed(3)} ms`, `${ours.warmBackToBackMs.toFixed(3)} ms`);
row(`cold start of a sandbox process, to a first result (median of ${COLD_RUNS})`, '', `${coldMs.toFixed(1)} ms`);
row('RSS of an idle sandbox process', '', rss.map((mb) => `${mb.toFixed(1)} MiB`).join(', '));
row(`session create (warm process), to a first result (median of ${SESSIONS})`, '', `${packed.createMs.toFixed(2)} ms`);
row('  for reference: a later trivial run of a session (median of 50)', '', `${packed.warmRunMs.toFixed(2)} ms`);
row(
  `RSS per idle session (${SESSIONS} sessions in one process)`,
  '',
  `${packed.perSessionMiB.toFixed(2)} MiB`,
  `goal ≤ 2 MiB: ${packed.perSessionMiB <= 2 ? 'met' : 'missed'} (one small run each; ${packed.stats.processes} processes for ${packed.stats.sessions} sessions)`,
);
console.log('\nlimit probes: the error, and how long after the limit the run ended (or the whole run, for non-time limits)');
for (const { name } of PROBES) row(`  ${name}`, probes['in-process'][name], probes.process[name]);

const project = await buildProject();
try {
  const growth = Object.fromEntries(MODES.map((mode) => [mode, inFreshProcess('rss', project, mode)]));
  const delay = Object.fromEntries(MODES.map((mode) => [mode, inFreshProcess('delay', project, mode)]));
  console.log('\nthrough the SDK and mcp serve');
  row(
    '  host RSS growth over 999 calls with a 1 MB param (createSpace)',
    `${growth['in-process'].growthMiB.toFixed(1)} MiB`,
    `${growth.process.growthMiB.toFixed(1)} MiB`,
    `goal ≤ ${GOALS_HOST.rssGrowthMiB} MiB: ${Math.max(...MODES.map((m) => growth[m].growthMiB)) <= GOALS_HOST.rssGrowthMiB ? 'met' : 'missed'}`,
  );
  const fmt = (d) => `${d.p50.toFixed(1)} / ${d.p95.toFixed(1)} ms`;
  row(
    "  a second client's list_spaces while a script spins (p50 / p95)",
    fmt(delay['in-process']),
    fmt(delay.process),
    `goal (process) p95 ≤ ${GOALS_HOST.delayMs} ms: ${delay.process.p95 <= GOALS_HOST.delayMs ? 'met' : 'missed'}`,
  );
  printHeapGrowth(project, row);
  printTypeBombs(await typeBombFigures(project));
} finally {
  rmSync(project, { recursive: true, force: true });
}
