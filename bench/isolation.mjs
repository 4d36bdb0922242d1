// Isolation bench: the runtime's two isolation modes side by side, on the same trivial `add` through a minimal host
// port. `in-process` is the Sandbox (agent code in an isolate of this process); `process` is the ProcessSandbox (each
// run in a supervised sandbox process, calls over IPC). Prints the per-call round trip, the warm trivial run, the cold
// start of a sandbox process, the RSS of one, and for each limit probe how long after its limit the run ended.
// Build first (npm run build), then: node --no-node-snapshot bench/isolation.mjs
import { execFileSync, spawn } from 'node:child_process';
import { ProcessSandbox, Sandbox } from '@agent-spaces/runtime';

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

const inProcess = new Sandbox({ modules: MODULES });
const processes = new ProcessSandbox({ modules: MODULES });
const figures = { 'in-process': await warmFigures(inProcess), process: await warmFigures(processes) };
const probes = { 'in-process': await probe(inProcess, true), process: await probe(processes, false) };
await inProcess.close();
await processes.close();
const coldMs = await coldStart();
const floorUs = await ipcFloorUs();
const rss = await childRssMiB();

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
console.log('\nlimit probes: the error, and how long after the limit the run ended (or the whole run, for non-time limits)');
for (const { name } of PROBES) row(`  ${name}`, probes['in-process'][name], probes.process[name]);
