// Durable-runs bench: what recording a run's calls costs per call, and how long a paused run takes to resume after its
// process was killed, against the floor of running the same script afresh.
// 1. Recording: 100,000 sequential calls through a host port, bare and behind the run's call recorder (the SDK's
//    wrapper that keeps each call's outcome for a later replay), best of 5.
// 2. Resume: a first process runs a script that makes N calls, then one that waits for approval, and is killed with
//    SIGKILL; the approval is answered from storage; a new process creates the space and resumes the run (the N calls
//    replayed from the ledger, the approved one executed). Floor: the same space running the same script afresh with
//    approvals allowed (every call executed).
// Build first (npm run build), then: node --no-node-snapshot bench/durable.mjs
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const FIRST_LIFE = fileURLToPath(new URL('../packages/sdk/test/fixtures/durable-first-life.mjs', import.meta.url));
const { CallRecorder } = await import(new URL('../packages/sdk/dist/durable/recorder.js', import.meta.url).href);
const { ApprovalService, FileApprovalStore, FileRunStore, createSpace } = await import('@agent-spaces/sdk');
const { buildCapabilities } = await import('@agent-spaces/compiler');

async function recordingCost() {
  const port = { call: async () => ({ ok: true, value: 1 }) };
  const recorder = new CallRecorder({ run: { id: 'r', space: 's', script: '', startedAt: '' }, redact: (v) => v, keep: () => {}, forget: () => {}, maxLedgerBytes: 1 << 20, keepEnded: false });
  const wrapped = recorder.wrap(port);
  const message = { kind: 'call', capability: 'math', function: 'add', params: { a: 1, b: 2 } };
  const signal = new AbortController().signal;
  const time = async (target, n) => {
    const started = performance.now();
    for (let i = 0; i < n; i++) await target.call(message, signal);
    return ((performance.now() - started) * 1000) / n;
  };
  const bare = [];
  const recorded = [];
  for (let round = 0; round < 5; round++) {
    bare.push(await time(port, 100_000));
    recorded.push(await time(recorder.wrap(port), 100_000));
  }
  void wrapped;
  return { bareUs: Math.min(...bare), recordedUs: Math.min(...recorded) };
}

function project() {
  const rootDir = mkdtempSync(join(tmpdir(), 'agent-spaces-durable-bench-'));
  mkdirSync(join(rootDir, 'capabilities'));
  const fn = (name, props, extra = {}) => ({ name, parameters: { type: 'object', properties: props }, ...extra });
  writeFileSync(join(rootDir, 'capabilities/counter.json'), JSON.stringify({ name: 'counter', functions: [fn('bump', { name: { type: 'string' } })], executor: { kind: 'runtime' } }));
  writeFileSync(join(rootDir, 'capabilities/mail.json'), JSON.stringify({ name: 'mail', functions: [fn('send', { to: { type: 'string' } }, { requiresApproval: true })], executor: { kind: 'runtime' } }));
  return rootDir;
}

const script = (n) => `import { counter } from '@capabilities/counter';\nimport { mail } from '@capabilities/mail';\nfor (let i = 0; i < ${n}; i++) await counter.bump({ name: 'n' + i });\nreturn await mail.send({ to: 'bob' });`;
const handlers = { counter: { bump: ({ name }) => ({ bumped: name }) }, mail: { send: ({ to }) => ({ sent: to }) } };

/** Runs the first life until its run pauses, then kills it; resolves with the run and approval ids. */
function pausedAndKilled(rootDir, code) {
  const child = spawn(process.execPath, ['--no-node-snapshot', FIRST_LIFE, rootDir, JSON.stringify({ code })], { stdio: ['ignore', 'pipe', 'inherit'] });
  return new Promise((resolve, reject) => {
    createInterface({ input: child.stdout }).on('line', (text) => {
      const line = JSON.parse(text);
      if ('ran' in line) {
        child.kill('SIGKILL');
        reject(new Error(`the first run ended without pausing: ${text}`));
      }
      if (!('paused' in line)) return;
      child.once('exit', () => resolve(line));
      child.kill('SIGKILL');
    });
  });
}

async function resumeTimes(n) {
  const rootDir = project();
  try {
    await buildCapabilities({ rootDir, sources: ['capabilities/*.json'] });
    const outDir = join(rootDir, '.agent-spaces');
    const stores = () => ({ approvals: new FileApprovalStore(outDir), runs: new FileRunStore(outDir) });
    const resumes = [];
    const fresh = [];
    for (let round = 0; round < 3; round++) {
      const { paused, runId } = await pausedAndKilled(rootDir, script(n));
      await new ApprovalService({ approvals: new FileApprovalStore(outDir) }).answer(paused, { approved: true, by: 'bench', from: 'bench' });
      let started = performance.now();
      const space = await createSpace({ rootDir, isolation: 'in-process', typecheck: false, awaitApprovals: true, handlers, stores: stores(), limits: { maxCapabilityCalls: n + 10 } });
      const resumed = await (await space.resume(runId));
      if (!resumed.ok) throw new Error(`${resumed.error.code}: ${resumed.error.message}`);
      resumes.push(performance.now() - started);
      await space.close();
      started = performance.now();
      const again = await createSpace({ rootDir, isolation: 'in-process', typecheck: false, onApproval: () => true, handlers, limits: { maxCapabilityCalls: n + 10 } });
      const plain = await again.run(script(n));
      if (!plain.ok) throw new Error(`${plain.error.code}: ${plain.error.message}`);
      fresh.push(performance.now() - started);
      await again.close();
    }
    return { resumeMs: Math.min(...resumes), freshMs: Math.min(...fresh) };
  } finally {
    rmSync(rootDir, { recursive: true, force: true });
  }
}

const { bareUs, recordedUs } = await recordingCost();
console.log(`Durable-runs bench (node ${process.version}; lower is better)\n`);
console.log('recording, per call (best of 5 × 100,000 sequential calls through a host port)');
console.log(`  bare port                  ${bareUs.toFixed(3)} µs`);
console.log(`  behind the call recorder   ${recordedUs.toFixed(3)} µs   (+${(recordedUs - bareUs).toFixed(3)} µs per call)`);
console.log('\nresume a paused run after its process was killed (create the space + replay + the approved call; best of 3)');
console.log(`${'calls before the pause'.padEnd(26)}${'resume'.padStart(12)}${'fresh run (floor)'.padStart(20)}${'resume ÷ fresh'.padStart(16)}`);
// The first life runs under the default limit of 1,000 calls a run.
for (const n of [0, 100, 900]) {
  const { resumeMs, freshMs } = await resumeTimes(n);
  console.log(`${String(n).padEnd(26)}${`${resumeMs.toFixed(1)} ms`.padStart(12)}${`${freshMs.toFixed(1)} ms`.padStart(20)}${`${(resumeMs / freshMs).toFixed(2)}×`.padStart(16)}`);
}
