// The type-bomb section of bench/isolation.mjs, against the real `mcp serve` (the built CLI as a child process, over
// Streamable HTTP, the official SDK client): while one client sends each type bomb of test/fixtures/type-bombs.mjs,
// another client pings. Figures: that client's worst ping delay, how long after the typecheck budget each bomb's error
// came, and the server's RSS at its peak against its baseline (the typecheck workers are threads of the server).
import { spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { typeBombs } from '../test/fixtures/type-bombs.mjs';

/** The default typecheck budget (DEFAULT_TYPECHECK_BUDGET), which the server keeps. */
const BUDGET_MS = 5_000;
/** Big enough that every bomb runs past the budget (about 0.3 s a unit, warm). */
const SCALE = 60;
const GOALS = { pingMs: 100, overBudgetMs: 200, rssMiB: 512 };
const BIN = fileURLToPath(new URL('../packages/cli/bin/agent-spaces.js', import.meta.url));
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The server's RSS in MiB, from /proc (threads included). */
const rssMiB = (pid) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;

/** Starts `mcp serve --port 0` in `rootDir`; resolves with the child and its MCP URL. */
async function startServe(rootDir) {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN, 'mcp', 'serve', '--port', '0'], { cwd: rootDir, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  for (let i = 0; i < 600 && !/http:\/\/127\.0\.0\.1:\d+\/mcp/.test(stderr); i++) await pause(100);
  const url = /http:\/\/127\.0\.0\.1:\d+\/mcp/.exec(stderr)?.[0];
  if (!url) throw new Error(`mcp serve did not start: ${stderr}`);
  return { child, url };
}

async function connect(url) {
  const client = new Client({ name: 'bench', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  return client;
}

/** While `attacker` runs `code`, `victim` pings every 20 ms and the server's RSS is sampled; the figures. */
async function underBomb(serve, attacker, victim, code) {
  let done = false;
  let peak = 0;
  const started = performance.now();
  const bomb = attacker.callTool({ name: 'execute', arguments: { code } }).finally(() => (done = true));
  const pings = [];
  while (!done) {
    const t = performance.now();
    await victim.ping();
    pings.push(performance.now() - t);
    peak = Math.max(peak, rssMiB(serve.child.pid));
    await pause(20);
  }
  const answer = JSON.parse((await bomb).content[0].text);
  return { code: answer.code, budget: answer.data?.budget, totalMs: performance.now() - started, worstPingMs: Math.max(...pings), pings: pings.length, peakMiB: peak };
}

/** Runs the bombs against a server in `rootDir` (a project with built capabilities); prints the table. */
export async function typeBombFigures(rootDir) {
  writeFileSync(join(rootDir, 'agent-spaces.config.json'), JSON.stringify({ capabilities: ['capabilities/*.json'] }));
  const serve = await startServe(rootDir);
  try {
    const [attacker, victim] = await Promise.all([connect(serve.url), connect(serve.url)]);
    // Both typecheck workers warm (TypeScript loaded, declarations checked): the budget then counts the bomb alone.
    await Promise.all([attacker, victim].map((c) => c.callTool({ name: 'execute', arguments: { code: 'return 1;' } })));
    const baseline = rssMiB(serve.child.pid);
    const rows = [];
    for (const [name, code] of Object.entries(typeBombs(SCALE))) rows.push({ name, ...(await underBomb(serve, attacker, victim, code)) });
    await Promise.all([attacker.close(), victim.close()]);
    return { baseline, rows };
  } finally {
    serve.child.kill('SIGTERM');
  }
}

/** Prints {@link typeBombFigures}' result. */
export function printTypeBombs({ baseline, rows }) {
  console.log(`\ntype bombs over mcp serve (default budget: ${BUDGET_MS} ms; the server's RSS before: ${baseline.toFixed(0)} MiB, workers warm)`);
  const row = (...cells) => console.log(cells.map((c, i) => (i === 0 ? String(c).padEnd(24) : String(c).padStart(22))).join(''));
  row('bomb', 'answer', 'error came', "other's worst ping", 'server RSS peak');
  for (const r of rows) {
    const came = r.budget === 'time' ? `budget +${(r.totalMs - BUDGET_MS).toFixed(0)} ms` : `at ${(r.totalMs / 1000).toFixed(1)} s`;
    row(r.name, `${r.code}/${r.budget}`, came, `${r.worstPingMs.toFixed(1)} ms`, `+${(r.peakMiB - baseline).toFixed(0)} MiB`);
  }
  const worst = (key) => Math.max(...rows.map((r) => r[key]));
  const met = (ok) => (ok ? 'met' : 'missed');
  const overBudget = Math.max(...rows.filter((r) => r.budget === 'time').map((r) => r.totalMs - BUDGET_MS));
  console.log(
    `goals: worst ping ≤ ${GOALS.pingMs} ms: ${met(worst('worstPingMs') <= GOALS.pingMs)}; error ≤ budget + ${GOALS.overBudgetMs} ms: ${met(overBudget <= GOALS.overBudgetMs)}; RSS ≤ baseline + ${GOALS.rssMiB} MiB: ${met(worst('peakMiB') - baseline <= GOALS.rssMiB)}`,
  );
}
