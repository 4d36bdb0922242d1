// Runtime bench: agent-spaces against @utcp/code-mode on the same trivial in-process `add` tool, side by side:
// per-call round trip, warm trivial run, cold create-and-first-run, peak RSS. Each system runs in its own child
// process (so RSS is its own), [rounds] times alternately; every figure is the better median of the rounds.
// Columns: agent-spaces through the SDK in-process (createSpace with isolation 'in-process', bridge validation, events,
// audit log; typecheck off, as UTCP has none), the same without the audit log (one durable write per call, which UTCP
// does not make), the SDK with its default isolation (each run in a sandbox process, calls over IPC), the bare
// @agent-spaces/runtime Sandbox with a minimal host port, and UTCP code mode.
// Build first (npm run build), then: node --no-node-snapshot bench/runtime.mjs [rounds, default 2]
import { execFileSync } from 'node:child_process';
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
async function agentSpaces(rootDir, audit = true, isolation = 'in-process') {
  const { createSpace } = await import('@agent-spaces/sdk');
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

const SYSTEMS = {
  'agent-spaces': agentSpaces,
  'SDK, no audit': (rootDir) => agentSpaces(rootDir, false),
  'SDK, process': (rootDir) => agentSpaces(rootDir, true, 'process'),
  'runtime only': sandbox,
  '@utcp/code-mode': utcp,
};
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
        const args = ['--no-node-snapshot', self, name, rootDir];
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
  const names = Object.keys(SYSTEMS);
  console.log(`Runtime bench (node ${process.version}, best of ${rounds} round${rounds === 1 ? '' : 's'}; lower is better)\n`);
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
