// Core figures of @agent-spaces/runtime on a trivial `add` capability: per-call round trip, warm run, cold start,
// peak RSS. Build first (npm run build, or tsc -p packages/capabilities && tsc -p packages/runtime), then:
//   node --no-node-snapshot bench/runtime-core.mjs
import { Sandbox } from '@agent-spaces/runtime';

const ADD_MODULE = [
  `import { call } from 'agent-spaces:bridge';`,
  `export const math = Object.freeze({ add: (params) => call("math", "add", params) });`,
  `export const add = math.add;`,
].join('\n');
const MODULES = new Map([['@capabilities/math', ADD_MODULE]]);
const TRIVIAL = `import { add } from '@capabilities/math';\nexport default await add({ a: 1, b: 2 });`;
const GOALS = { callUs: 10, warmMs: 0.3, coldMs: 10, rssMiB: 80 };

/** A HostPort answering `add`; `arrivals` gets the host time of every call. */
function createPort() {
  const arrivals = [];
  return {
    arrivals,
    async call(message) {
      arrivals.push(performance.now());
      return { ok: true, value: message.params.a + message.params.b };
    },
  };
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
};
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function expectOk(promise) {
  const outcome = await promise;
  if (!outcome.ok) throw new Error(`run failed: ${outcome.error.code}: ${outcome.error.message}`);
  return outcome;
}

async function cold() {
  const port = createPort();
  const started = performance.now();
  const sandbox = new Sandbox({ modules: MODULES });
  await expectOk(sandbox.run(TRIVIAL, { port }));
  const ms = performance.now() - started;
  await sandbox.close();
  return ms;
}

async function perCall(sandbox) {
  const port = createPort();
  const code = `import { add } from '@capabilities/math';\nlet sum = 0;\nfor (let i = 0; i < 1000; i++) sum = await add({ a: sum, b: 1 });\nreturn sum;`;
  const outcome = await expectOk(sandbox.run(code, { port }));
  if (outcome.value !== 1000) throw new Error(`unexpected sum ${outcome.value}`);
  // Between two arrivals the sandbox got the previous result back and made the next call: one full round trip.
  const gaps = port.arrivals.slice(1).map((t, i) => (t - port.arrivals[i]) * 1000);
  return { medianUs: median(gaps), totalMs: outcome.stats.durationMs };
}

async function warm(sandbox, gapMs) {
  const port = createPort();
  const times = [];
  for (let i = 0; i < 200; i++) {
    if (gapMs > 0) await pause(gapMs);
    const started = performance.now();
    await expectOk(sandbox.run(TRIVIAL, { port }));
    times.push(performance.now() - started);
  }
  return median(times);
}

const firstCold = await cold();
const colds = [];
for (let i = 0; i < 10; i++) colds.push(await cold());

const sandbox = new Sandbox({ modules: MODULES });
await expectOk(sandbox.run(TRIVIAL, { port: createPort() }));
await perCall(sandbox);
const calls = await perCall(sandbox);
const warmIdle = await warm(sandbox, 5);
const warmBackToBack = await warm(sandbox, 0);
await sandbox.close();
const peakRssMiB = process.resourceUsage().maxRSS / 1024;

const verdict = (value, goal) => (value <= goal ? 'meets goal' : 'misses goal');
const rows = [
  ['per-call round trip (median of 1,000 sequential calls)', `${calls.medianUs.toFixed(1)} µs`, `≤ ${GOALS.callUs} µs`, verdict(calls.medianUs, GOALS.callUs)],
  ['  1,000 calls, whole run', `${calls.totalMs.toFixed(1)} ms`, '', ''],
  ['warm trivial run on an idle space (median of 200)', `${warmIdle.toFixed(3)} ms`, `≤ ${GOALS.warmMs} ms`, verdict(warmIdle, GOALS.warmMs)],
  ['warm trivial run back to back (median of 200)', `${warmBackToBack.toFixed(3)} ms`, `≤ ${GOALS.warmMs} ms`, verdict(warmBackToBack, GOALS.warmMs)],
  ['cold new Sandbox() + first run (median of 10)', `${median(colds).toFixed(2)} ms`, `≤ ${GOALS.coldMs} ms`, verdict(median(colds), GOALS.coldMs)],
  ['  first in a fresh process (esbuild service, prelude bundle)', `${firstCold.toFixed(1)} ms`, '', ''],
  ['peak RSS', `${peakRssMiB.toFixed(1)} MiB`, `≤ ${GOALS.rssMiB} MiB`, verdict(peakRssMiB, GOALS.rssMiB)],
];
console.log(`@agent-spaces/runtime core figures (node ${process.version})\n`);
for (const [name, value, goal, result] of rows) console.log(`${name.padEnd(62)} ${value.padStart(11)}  ${goal.padEnd(11)} ${result}`);
