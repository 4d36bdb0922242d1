// Runtime bench: agent-spaces against @utcp/code-mode on the same trivial in-process `add` tool, side by side:
// per-call round trip, warm trivial run, cold create-and-first-run, peak RSS. Each system runs in its own child
// process (so RSS is its own), [rounds] times alternately; every figure is the better median of the rounds.
// Columns: agent-spaces through the SDK in-process (createSpace with isolation 'in-process', bridge validation, events,
// audit log; typecheck off, as UTCP has none), the same without the audit log (one durable write per call, which UTCP
// does not make), the SDK with its default isolation (each run in a sandbox process, calls over IPC), the same with
// the host's warm processes off ('no warm spare': `warmSandboxProcesses({ spare: 0 })`, each space forks its own, as
// before issue 32), the bare @agent-spaces/runtime Sandbox with a minimal host port, and UTCP code mode. Beside them, the floors of process
// isolation: a bare IPC echo (Node's child_process IPC with 'advanced' serialization, as the sandbox processes use,
// each round trip a call's message out and its outcome back) and a bare fork of a node process until its first message.
// The first table is issue 32's: SDK in-process, SDK process and UTCP, with the goals.
// Build first (npm run build), then: node bench/runtime.mjs [rounds, default 2]
import { execFileSync, fork } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const CALLS = 1_000;
const WARM_RUNS = 200;
const COLD_RUNS = 10;
const IDLE_GAP_MS = 5;
const GOALS = { callUs: 10, warmMs: 0.3, coldMs: 10, firstColdMs: 25, firstLoopMs: 20, rssMiB: 80, callRatio: 5, loopRatio: 2 };
/** Issue 32's goals: in-process per call ≥ 2× faster than UTCP, process per call ≤ 1.3× the IPC floor, and so on. */
const PROCESS_GOALS = { inProcessCallRatio: 2, callFloorRatio: 1.3, loopUtcpRatio: 1.5, coldMs: 10, firstColdMs: 40, rssMiB: 64 };

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Time of every call of the `add` tool, on the host: the gap between two is one full round trip. */
const arrivals = [];
const add = (a, b) => {
  arrivals.push(performance.now());
  return a + b;
};

/**
 * Measures one system. `system.create()` gives `{ run(code), close() }`; `run` resolves with the script's result.
 * Returns the figures as JSON-able numbers.
 */
async function measure(system) {
  const timeCold = async () => {
    const started = performance.now();
    const instance = await system.create();
    check(await instance.run(system.trivial), 3);
    const ms = performance.now() - started;
    await instance.close();
    return ms;
  };
  const firstColdMs = await timeCold();
  const colds = [];
  for (let i = 0; i < COLD_RUNS; i++) colds.push(await timeCold());

  const instance = await system.create();
  check(await instance.run(system.trivial), 3);
  const perCall = async () => {
    arrivals.length = 0;
    const started = performance.now();
    check(await instance.run(system.loop), CALLS);
    const loopMs = performance.now() - started;
    return { callUs: median(arrivals.slice(1).map((t, i) => (t - arrivals[i]) * 1000)), loopMs };
  };
  const firstLoop = await perCall();
  for (let i = 0; i < 3; i++) await perCall();
  const calls = await perCall();
  const warm = async (gapMs) => {
    const times = [];
    for (let i = 0; i < WARM_RUNS; i++) {
      if (gapMs > 0) await pause(gapMs);
      const started = performance.now();
      check(await instance.run(system.trivial), 3);
      times.push(performance.now() - started);
    }
    return median(times);
  };
  const warmIdleMs = await warm(IDLE_GAP_MS);
  const warmBackToBackMs = await warm(0);
  await instance.close();
  return {
    callUs: calls.callUs,
    loopMs: calls.loopMs,
    firstLoopMs: firstLoop.loopMs,
    warmIdleMs,
    warmBackToBackMs,
    coldMs: median(colds),
    firstColdMs,
    rssMiB: process.resourceUsage().maxRSS / 1024,
  };
}

function check(value, expected) {
  if (value !== expected) throw new Error(`unexpected result ${JSON.stringify(value)}, expected ${expected}`);
}

/** Builds the `math` capability (runtime executor: handlers given to createSpace) from JSON into a temp project. */
async function buildMath() {
  const { buildCapabilities } = await import('@agent-spaces/compiler');
  const rootDir = mkdtempSync(join(tmpdir(), 'agent-spaces-bench-runtime-'));
  mkdirSync(join(rootDir, 'capabilities'));
  const definition = {
    name: 'math',
    functions: [
      {
        name: 'add',
        parameters: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        returns: { type: 'number' },
      },
    ],
  };
  writeFileSync(join(rootDir, 'capabilities/math.json'), JSON.stringify(definition));
  const report = await buildCapabilities({ rootDir, sources: ['capabilities/*.json'] });
  if (report.totals.failed > 0) throw new Error(`build failed: ${JSON.stringify(report.capabilities)}`);
  return rootDir;
}

/**
 * agent-spaces through the SDK, on the project `buildMath()` made (built by the parent: the compiler is not measured);
 * `audit: false` turns the audit log off.
 */
async function agentSpaces(rootDir, audit = true, isolation = 'in-process', warmProcesses = true) {
  const { createSpace } = await import('@agent-spaces/sdk');
  // Without the host's warm processes, each space forks its own (as before issue 32).
  if (!warmProcesses) (await import('@agent-spaces/runtime')).warmSandboxProcesses({ spare: 0 });
  return measure({
    trivial: `import { math } from '@capabilities/math';\nexport default await math.add({ a: 1, b: 2 });`,
    loop: `import { math } from '@capabilities/math';\nlet sum = 0;\nfor (let i = 0; i < ${CALLS}; i++) sum = await math.add({ a: sum, b: 1 });\nexport default sum;`,
    async create() {
      const space = await createSpace({
        rootDir,
        capabilities: ['math'],
        handlers: { math: { add: ({ a, b }) => add(a, b) } },
        typecheck: false,
        isolation,
        limits: { maxCapabilityCalls: CALLS + 1 },
        ...(audit ? {} : { policies: { audit: false } }),
      });
      return {
        async run(code) {
          const result = await space.run(code);
          if (!result.ok) throw new Error(`${result.error.code}: ${result.error.message}`);
          return result.result;
        },
        close: () => space.close(),
      };
    },
  });
}

/** The bare runtime: a Sandbox with the generated module of `add` and a port that answers it directly. */
async function sandbox() {
  const { Sandbox } = await import('@agent-spaces/runtime');
  const modules = new Map([
    [
      '@capabilities/math',
      `import { call } from 'agent-spaces:bridge';\nexport const math = Object.freeze({ add: (params) => call("math", "add", params) });`,
    ],
  ]);
  const port = { call: async (message) => ({ ok: true, value: add(message.params.a, message.params.b) }) };
  return measure({
    trivial: `import { math } from '@capabilities/math';\nexport default await math.add({ a: 1, b: 2 });`,
    loop: `import { math } from '@capabilities/math';\nlet sum = 0;\nfor (let i = 0; i < ${CALLS}; i++) sum = await math.add({ a: sum, b: 1 });\nexport default sum;`,
    async create() {
      const instance = new Sandbox({ modules, limits: { maxCapabilityCalls: CALLS + 1 } });
      return {
        async run(code) {
          const outcome = await instance.run(code, { port });
          if (!outcome.ok) throw new Error(`${outcome.error.code}: ${outcome.error.message}`);
          return outcome.value;
        },
        close: () => instance.close(),
      };
    },
  });
}

/** UTCP code mode: a direct-call manual with the same `add`; its sandbox calls tools synchronously. */
async function utcp() {
  // The package's `import` export names a file it does not ship; its CommonJS build works.
  const require = createRequire(import.meta.url);
  const { CodeModeUtcpClient } = require('@utcp/code-mode');
  const { addFunctionToUtcpDirectCall } = require('@utcp/direct-call');
  // UTCP logs every call and registration to the console; silenced so the terminal's speed does not count against
  // it (and the table stays readable). Failures still throw.
  for (const level of ['log', 'info', 'warn', 'error']) console[level] = () => {};
  const manual = () => ({
    utcp_version: '1.0.1',
    manual_version: '1.0.0',
    tools: [
      {
        name: 'add',
        description: 'Adds two numbers',
        inputs: { type: 'object', properties: { a: { type: 'number' }, b: { type: 'number' } }, required: ['a', 'b'] },
        outputs: { type: 'number' },
        tags: [],
        tool_call_template: { name: 'math', call_template_type: 'direct-call', callable_name: 'add' },
      },
    ],
  });
  return measure({
    trivial: `return math.add({ a: 1, b: 2 });`,
    loop: `let sum = 0;\nfor (let i = 0; i < ${CALLS}; i++) sum = math.add({ a: sum, b: 1 });\nreturn sum;`,
    async create() {
      // Registered again for every client: closing a client forgets the callables.
      addFunctionToUtcpDirectCall('add', add);
      addFunctionToUtcpDirectCall('math_manual', manual);
      const client = await CodeModeUtcpClient.create();
      const registered = await client.registerManual({ name: 'math', call_template_type: 'direct-call', callable_name: 'math_manual' });
      if (!registered.success) throw new Error(`registerManual failed: ${registered.errors.join('; ')}`);
      return {
        async run(code) {
          const { result, logs } = await client.callToolChain(code);
          if (logs.some((line) => line.startsWith('[ERROR]'))) throw new Error(logs.join('\n'));
          return result;
        },
        close: () => client.close(),
      };
    },
  });
}

/**
 * The floors of process isolation, measured like the systems: the median round trip of {@link CALLS} sequential
 * call-sized messages over a bare IPC echo (a forked child that answers each `call` with its `outcome`, 'advanced'
 * serialization), and the time from `fork` of a bare node child (`--no-node-snapshot`, as the sandbox processes) to
 * its first message.
 */
async function floors() {
  const echo = `process.on('message', (m) => process.send({ kind: 'outcome', runId: m.runId, seq: m.seq, outcome: { ok: true, value: m.message.params.a + m.message.params.b } }));\nprocess.send({ kind: 'ready' });`;
  const dir = mkdtempSync(join(tmpdir(), 'agent-spaces-bench-ipc-'));
  const file = join(dir, 'echo.mjs');
  writeFileSync(file, echo);
  const spawnMs = [];
  let roundTrips = [];
  try {
    for (let i = 0; i < COLD_RUNS; i++) {
      const started = performance.now();
      const child = fork(file, [], { serialization: 'advanced', execArgv: ['--no-node-snapshot'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
      await new Promise((resolve) => child.once('message', resolve));
      spawnMs.push(performance.now() - started);
      if (i === COLD_RUNS - 1) roundTrips = await echoRoundTrips(child);
      child.kill();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
  return { callUs: median(roundTrips), spawnMs: median(spawnMs), rssMiB: process.resourceUsage().maxRSS / 1024 };
}

/** Round trips of {@link CALLS} sequential call messages to `child`, five times; the last time's, in µs. */
async function echoRoundTrips(child) {
  let times = [];
  for (let round = 0; round < 5; round++) {
    times = [];
    let sum = 0;
    for (let seq = 0; seq < CALLS; seq++) {
      const started = performance.now();
      child.send({ kind: 'call', runId: 1, seq, message: { kind: 'call', capability: 'math', function: 'add', params: { a: sum, b: 1 } } });
      sum = await new Promise((resolve) => child.once('message', (m) => resolve(m.outcome.value)));
      times.push((performance.now() - started) * 1000);
    }
  }
  return times;
}

const SYSTEMS = {
  'agent-spaces': agentSpaces,
  'SDK, no audit': (rootDir) => agentSpaces(rootDir, false),
  'SDK, process': (rootDir) => agentSpaces(rootDir, true, 'process'),
  'no warm spare': (rootDir) => agentSpaces(rootDir, true, 'process', false),
  'runtime only': sandbox,
  '@utcp/code-mode': utcp,
  'IPC floor': floors,
};
/** Systems whose process creates no isolate: started with plain `node`, as the CLI and SDK apps are. */
const PLAIN_NODE = new Set(['SDK, process', 'no warm spare', 'IPC floor']);
const role = process.argv[2];

if (role in SYSTEMS) {
  process.stdout.write(JSON.stringify(await SYSTEMS[role](process.argv[3])));
} else {
  const rounds = Number(role ?? 2);
  const self = fileURLToPath(import.meta.url);
  const rootDir = await buildMath();
  const results = Object.fromEntries(Object.keys(SYSTEMS).map((name) => [name, []]));
  try {
    for (let round = 0; round < rounds; round++) {
      for (const name of Object.keys(SYSTEMS)) {
        // Isolates in the bench's own process need --no-node-snapshot; process isolation's host runs with plain node.
        const args = [...(PLAIN_NODE.has(name) ? [] : ['--no-node-snapshot']), self, name, rootDir];
        results[name].push(JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] })));
      }
    }
  } finally {
    rmSync(rootDir, { recursive: true, force: true });
  }
  const best = (name, key) => Math.min(...results[name].map((r) => r[key]));
  const ours = 'agent-spaces';
  const theirs = '@utcp/code-mode';
  const rows = [
    ['per-call round trip (median of 1,000 sequential calls)', 'callUs', 'µs', 1, GOALS.callUs],
    [`  1,000-call run, a space's first`, 'firstLoopMs', 'ms', 1, GOALS.firstLoopMs],
    ['  1,000-call run, warmed (5th)', 'loopMs', 'ms', 1],
    [`warm trivial run, idle space (median of ${WARM_RUNS}, ${IDLE_GAP_MS} ms apart)`, 'warmIdleMs', 'ms', 3, GOALS.warmMs],
    [`warm trivial run, back to back (median of ${WARM_RUNS})`, 'warmBackToBackMs', 'ms', 3],
    [`cold create + first run (median of ${COLD_RUNS})`, 'coldMs', 'ms', 2, GOALS.coldMs],
    ['  first in a fresh process', 'firstColdMs', 'ms', 1, GOALS.firstColdMs],
    ['peak RSS of the process', 'rssMiB', 'MiB', 1, GOALS.rssMiB],
  ];
  const names = Object.keys(SYSTEMS).filter((name) => name !== 'IPC floor');
  console.log(`Runtime bench (node ${process.version}, best of ${rounds} round${rounds === 1 ? '' : 's'}; lower is better)\n`);
  printIssueTable(best);
  console.log(`\nEvery system (UTCP ÷ ours: ours is ${ours})\n`);
  console.log(`${''.padEnd(62)}${names.map((n) => n.padStart(16)).join('')}  ${'UTCP ÷ ours'.padStart(11)}  goal (ours)`);
  for (const [label, key, unit, digits, goal] of rows) {
    const cells = names.map((name) => `${best(name, key).toFixed(digits)} ${unit}`.padStart(16)).join('');
    const ratio = `${(best(theirs, key) / best(ours, key)).toFixed(1)}×`.padStart(11);
    const verdict = goal === undefined ? '' : `≤ ${goal} ${unit}: ${best(ours, key) <= goal ? 'met' : 'missed'}`;
    console.log(`${label.padEnd(62)}${cells}  ${ratio}  ${verdict}`);
  }
  console.log('');
  for (const name of names.filter((n) => n !== theirs)) {
    const loopRatio = best(theirs, 'loopMs') / best(name, 'loopMs');
    console.log(
      `warmed 1,000-call run, UTCP's best ÷ ${name}: ${loopRatio.toFixed(1)}× (goal ≥ ${GOALS.loopRatio}×: ${loopRatio >= GOALS.loopRatio ? 'met' : 'missed'})`,
    );
  }
  for (const name of names.filter((n) => n !== theirs)) {
    const callRatio = best(theirs, 'callUs') / best(name, 'callUs');
    console.log(`per call, UTCP ÷ ${name}: ${callRatio.toFixed(1)}× (goal ≥ ${GOALS.callRatio}×: ${callRatio >= GOALS.callRatio ? 'met' : 'missed'})`);
  }
}

/**
 * Issue 32's table: SDK in-process, SDK process and UTCP side by side, with the floors of process isolation (bare IPC
 * round trip, bare fork) and each goal's ratio and verdict. `best(name, key)` is the best figure of the rounds.
 */
function printIssueTable(best) {
  const columns = ['agent-spaces', 'SDK, process', '@utcp/code-mode'];
  const verdict = (ok) => (ok ? 'met' : 'missed');
  const ipcUs = best('IPC floor', 'callUs');
  const spawnMs = best('IPC floor', 'spawnMs');
  const inProcessRatio = best('@utcp/code-mode', 'callUs') / best('agent-spaces', 'callUs');
  const floorRatio = best('SDK, process', 'callUs') / ipcUs;
  const loopRatio = best('SDK, process', 'loopMs') / best('@utcp/code-mode', 'loopMs');
  const table = [
    ['per call, median of 1,000 sequential', 'callUs', 'µs', 1, `in-process ${inProcessRatio.toFixed(2)}× faster than UTCP (≥ ${PROCESS_GOALS.inProcessCallRatio}×: ${verdict(inProcessRatio >= PROCESS_GOALS.inProcessCallRatio)}); process ${floorRatio.toFixed(2)}× the IPC floor of ${ipcUs.toFixed(1)} µs (≤ ${PROCESS_GOALS.callFloorRatio}×: ${verdict(floorRatio <= PROCESS_GOALS.callFloorRatio)})`],
    ['1,000-call run, warmed', 'loopMs', 'ms', 1, `process ${loopRatio.toFixed(2)}× UTCP (≤ ${PROCESS_GOALS.loopUtcpRatio}×: ${verdict(loopRatio <= PROCESS_GOALS.loopUtcpRatio)})`],
    ['cold: create a space + first run', 'coldMs', 'ms', 2, `process ≤ ${PROCESS_GOALS.coldMs} ms: ${verdict(best('SDK, process', 'coldMs') <= PROCESS_GOALS.coldMs)} (a bare fork: ${spawnMs.toFixed(1)} ms)`],
    ['first run in a fresh process', 'firstColdMs', 'ms', 1, `process ≤ ${PROCESS_GOALS.firstColdMs} ms: ${verdict(best('SDK, process', 'firstColdMs') <= PROCESS_GOALS.firstColdMs)}`],
    ['peak RSS (process: the host only)', 'rssMiB', 'MiB', 1, `process ≤ ${PROCESS_GOALS.rssMiB} MiB: ${verdict(best('SDK, process', 'rssMiB') <= PROCESS_GOALS.rssMiB)}`],
  ];
  console.log(`${'figure'.padEnd(38)}${['SDK in-process', 'SDK process', '@utcp/code-mode'].map((n) => n.padStart(16)).join('')}  goal`);
  for (const [label, key, unit, digits, goal] of table) {
    const cells = columns.map((name) => `${best(name, key).toFixed(digits)} ${unit}`.padStart(16)).join('');
    console.log(`${label.padEnd(38)}${cells}  ${goal}`);
  }
  console.log(`${'floor: bare IPC round trip / bare fork'.padEnd(38)}${`${ipcUs.toFixed(1)} µs`.padStart(32)}${`${spawnMs.toFixed(1)} ms`.padStart(16)}`);
}
