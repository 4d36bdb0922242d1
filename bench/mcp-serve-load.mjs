// bench/mcp-serve-load.mjs — `agent-spaces mcp serve --port` under many MCP clients at once, as one replica or three.
//
// Serves this repository's example project (built first) from real `agent-spaces mcp serve` child processes and
// connects 1, 10 and 100 official SDK clients over Streamable HTTP at once. Each client creates a session, runs a
// short typed script that calls a capability in it (`send_code`) and the same kind of script with `execute` (each
// client's script differs, so no check is a repeat), then leaves: once by DELETE (`terminateSession`) and once by
// `close()` only. Prints per round: succeeded, execute and send_code p50/p95, server RSS before, at peak and 5 s after
// the clients left (the server alone and with its sandbox processes), and server CPU per request; then RSS per idle
// session and per idle connection (embedded mode).
// Goals (issue 15): 100 clients all succeed, execute p50 ≤ 150 ms and p95 ≤ 400 ms, ≤ 2 MiB per idle session, ≤ 1 MiB
// per idle connection, RSS back within 10 % of the baseline after the clients leave.
//
// Modes (issue 28; docs/deployment.md), all three by default, then a side-by-side table of their largest round:
//   embedded  one replica with its embedded stores (files in .agent-spaces/)
//   shared    one replica with --database-url and --redis-url (PostgreSQL and Redis started here, in temp folders)
//   replicas  three replicas on the shared stores behind HAProxy (deploy/haproxy.cfg, round robin, no stickiness): a
//             2025-11-25 session's requests reach any replica and are forwarded to the one that holds the session
// Client kinds: the 1.x SDK client (protocol 2025-11-25, sessionful) in every round, and the v2 client
// (`@modelcontextprotocol/client`, protocol 2026-07-28, stateless: it closes its REPL session by id) beside it with
// --client both (default). Every v2 client is the same principal (no token), so the servers allow --clients sessions
// per client (--max-sessions-per-client; a 1.x client is a client of its own and uses one).
// Server CPU per request: user+system CPU of every replica process and its children (sandbox processes, MCP servers;
// /proc/<pid>/stat before and after the round, children reaped meanwhile included) over the HTTP requests the clients
// sent (counted by their fetch), over their tool calls (3 per client) and per client round (one client's whole visit),
// split into the servers' main threads, their other threads (typecheck workers, GC) and their children.
// Goals (issue 32): 100 clients execute p50 ≤ 150 ms, p95 ≤ 400 ms; 10 clients p95 ≤ 100 ms; server CPU per client
// round ≤ 5 ms; each printed with ✓ or ✗ under its round. The CPU floor printed first and beside each round: a bare
// node start with --no-node-snapshot, which every client's own sandbox process costs.
//
// Run after `npm run build`: node bench/mcp-serve-load.mjs [--mode embedded|shared|replicas|all] [--clients 100]
//   [--rounds 1,10,100] [--client 1.x|v2|both] [--idle] [--steady] [--session-processes client|principal]
//   [--root <another built checkout, served instead of this one>]
// Quick path: --mode embedded --rounds 10,100 --client 1.x (naming --rounds skips the idle costs unless --idle).
// (BENCH_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.)
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startHaproxy, startPostgres, startRedis } from './services.mjs';

const argument = (name, fallback) => {
  const at = process.argv.indexOf(`--${name}`);
  return at > 0 ? process.argv[at + 1] : fallback;
};
// --root <checkout>: serve another built checkout (e.g. a worktree of the baseline) with this bench, for A/B runs.
const root = resolve(argument('root', fileURLToPath(new URL('..', import.meta.url))));
const cli = join(root, 'packages/cli/bin/agent-spaces.js');
const MODES = { embedded: 'one replica, embedded stores', shared: 'one replica, PostgreSQL + Redis', replicas: 'three replicas behind HAProxy, PostgreSQL + Redis' };
const modeArg = argument('mode', 'all');
if (modeArg !== 'all' && !Object.hasOwn(MODES, modeArg)) throw new Error(`--mode must be embedded, shared, replicas or all, not ${modeArg}`);
const RUN_MODES = modeArg === 'all' ? Object.keys(MODES) : [modeArg];
const CLIENTS = Number(argument('clients', '100'));
const ROUNDS = argument('rounds', `1,10,${CLIENTS}`).split(',').map(Number);
// The idle costs take a minute: a run that names its rounds (the quick path) skips them unless --idle asks.
const IDLE = process.argv.includes('--idle') || !process.argv.includes('--rounds');
// --steady: after the rounds, the same numbers of clients already connected with a session run scripts (steadyRound).
const STEADY = process.argv.includes('--steady');
// --session-processes principal: the servers pack sessions by principal (every client here is one, `local`).
const SESSION_PROCESSES = argument('session-processes', undefined);
const clientArg = argument('client', 'both');
if (!['1.x', 'v2', 'both'].includes(clientArg)) throw new Error(`--client must be 1.x, v2 or both, not ${clientArg}`);
const KINDS = clientArg === 'both' ? ['1.x', 'v2'] : [clientArg];
const TOOL_CALLS_PER_CLIENT = 3;
/** Scripts each established client runs in the steady round (`--steady`). */
const STEADY_SCRIPTS = 3;
const IDLE_SESSIONS = 40;
const IDLE_CONNECTIONS = 40;
const AFTER_MS = 5_000;

const mib = (kb) => kb / 1024;
const fmtMib = (kb) => `${mib(kb).toFixed(1)} MiB`;
const pct = (values, p) => (values.length === 0 ? NaN : values.toSorted((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]);
const ms = (v) => (Number.isNaN(v) ? '—' : `${v.toFixed(0)} ms`);

/** Every live process's parent, from /proc. */
function parents() {
  const found = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      found.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  return found;
}

/** `pids` and every live descendant of theirs. */
function treeOf(pids) {
  const byParent = parents();
  const tree = [...pids];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of byParent) if (parent === tree[i]) tree.push(child);
  return tree;
}

const isSandbox = (p) => {
  try {
    return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('process-child');
  } catch {
    return false;
  }
};

/**
 * RSS in KiB of the servers (`pids` — each the server itself — and every descendant but sandbox processes: the MCP
 * servers they started) and of the whole trees, sandbox processes included.
 */
function rss(pids) {
  const rssOf = (p) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  const sizes = treeOf(pids).map((p) => ({ kb: rssOf(p), sandbox: isSandbox(p) }));
  return {
    server: sizes.filter((s) => !s.sandbox).reduce((sum, s) => sum + s.kb, 0),
    tree: sizes.reduce((sum, s) => sum + s.kb, 0),
    processes: sizes.length,
  };
}

/** CPU seconds of process `p` (user + system), and of its children it reaped (cutime + cstime). */
function ticks(p) {
  try {
    const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
    return { own: (Number(fields[11]) + Number(fields[12])) / 100, reaped: (Number(fields[13]) + Number(fields[14])) / 100 };
  } catch {
    return { own: 0, reaped: 0 };
  }
}

/** CPU seconds of process `p`'s main thread (its task `p`); the rest of its own CPU is its other threads'. */
const mainThread = (p) => {
  try {
    const fields = readFileSync(`/proc/${p}/task/${p}/stat`, 'utf8').split(') ')[1].split(' ');
    return (Number(fields[11]) + Number(fields[12])) / 100;
  } catch {
    return 0;
  }
};

/**
 * CPU seconds used so far by the processes `pids` with all their children, live or reaped: `sandboxes` is the live
 * sandbox processes' share, `main` the main threads of `pids`, `threads` their other threads (typecheck workers, GC
 * helpers, libuv's pool).
 */
function treeCpu(pids) {
  let total = 0;
  let sandboxes = 0;
  let main = 0;
  let threads = 0;
  for (const p of treeOf(pids)) {
    const { own, reaped } = ticks(p);
    total += own + reaped;
    if (isSandbox(p)) sandboxes += own;
    if (pids.includes(p)) {
      const mainCpu = mainThread(p);
      main += mainCpu;
      threads += own - mainCpu;
    }
  }
  return { total, sandboxes, main, threads };
}

/** CPU seconds used so far by the servers (with their children), their live sandbox processes, the engines, and this process (the clients). */
function cpu(deployment) {
  const servers = treeCpu(deployment.servers.map((s) => s.pid));
  const engines = Object.fromEntries(Object.entries(deployment.engines).map(([name, pid]) => [name, treeCpu([pid]).total]));
  const own = process.cpuUsage();
  return { server: servers.total, sandboxes: servers.sandboxes, main: servers.main, threads: servers.threads, engines, clients: own.user / 1e6 + own.system / 1e6 };
}

function script(i, kind) {
  return `import { notes } from '@capabilities/notes';
const note = await notes.create({ title: '${kind} ${i}', content: 'load test' });
const title: string = note.title.toUpperCase();
export default { id: note.id, title, client: ${i} };`;
}

/** HTTP requests the clients sent (every fetch of their transports). */
let requestsSent = 0;
const countingFetch = (url, init) => {
  requestsSent++;
  return fetch(url, init);
};

/** A connected client of `kind`: the 1.x SDK (2025-11-25, a session) or the v2 SDK (2026-07-28, stateless). */
async function connect(url, kind = '1.x') {
  if (kind === 'v2') {
    const v2 = await import('@modelcontextprotocol/client');
    const client = new v2.Client({ name: 'load', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new v2.StreamableHTTPClientTransport(new URL(url), { fetch: countingFetch });
    await client.connect(transport);
    return { client, transport };
  }
  const client = new Client({ name: 'load', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url), { fetch: countingFetch });
  await client.connect(transport);
  return { client, transport };
}

const text = (result) => result.content?.[0]?.text ?? '';
/** `promise`, or a rejection naming `step` after 60 s: a hang shows as an error of its step, not as a bench that never ends. */
const step = (name, promise) =>
  Promise.race([promise, sleep(60_000).then(() => Promise.reject(new Error(`${name}: no answer within 60 s`)))]);

/**
 * One client of `kind`: create_session, send_code, execute, then leave by `leave`: `delete` or `close` (1.x: its MCP
 * session's REPL sessions end with it), or `close_session` (v2: no MCP session, so the REPL session is closed by id).
 */
async function oneClient(url, i, leave, kind = '1.x') {
  const outcome = { ok: false, execute: NaN, sendCode: NaN, error: '' };
  let connection;
  try {
    connection = await step('connect', connect(url, kind));
    const { client } = connection;
    const created = await step('create_session', client.callTool({ name: 'create_session', arguments: {} }));
    if (created.isError) throw new Error(`create_session: ${text(created)}`);
    const { sessionId } = JSON.parse(text(created));
    let started = performance.now();
    const sent = await step('send_code', client.callTool({ name: 'send_code', arguments: { sessionId, code: script(i, 'session') } }));
    outcome.sendCode = performance.now() - started;
    if (sent.isError) throw new Error(`send_code: ${text(sent).slice(0, 200)}`);
    started = performance.now();
    const executed = await step('execute', client.callTool({ name: 'execute', arguments: { code: script(i, 'execute') } }));
    outcome.execute = performance.now() - started;
    if (executed.isError) throw new Error(`execute: ${text(executed).slice(0, 200)}`);
    if (leave === 'close_session') await step('close_session', client.callTool({ name: 'close_session', arguments: { sessionId } }));
    outcome.ok = true;
  } catch (error) {
    outcome.error = error instanceof Error ? `${error.message}${error.cause ? ` (${error.cause.code ?? ''} ${error.cause.message ?? error.cause})` : ''}` : String(error);
  } finally {
    if (connection && leave === 'delete') await step('DELETE', connection.transport.terminateSession()).catch(() => undefined);
    await connection?.client.close().catch(() => undefined);
  }
  return outcome;
}

/** A real `mcp serve` child on a free port with `flags`; resolves once it serves, with its URL and pid. */
async function startServer(flags = []) {
  // Plain node, as the bin's shebang starts it (its sandbox processes set --no-node-snapshot themselves).
  const nodeFlags = process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [];
  // Every v2 client is the same principal (no token): its REPL sessions count against one client's cap.
  const sessionCap = ['--max-sessions-per-client', String(Math.max(16, CLIENTS))];
  const packing = SESSION_PROCESSES ? ['--session-processes', SESSION_PROCESSES] : [];
  const serve = [cli, 'mcp', 'serve', '--port', '0', ...sessionCap, ...packing, ...flags];
  const child = spawn(process.execPath, [...nodeFlags, ...serve], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /serving .* on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`mcp serve exited ${code}: ${stderr}`)));
  });
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
  return { child, url, pid: child.pid, stop };
}

/**
 * Starts what `mode` serves from: `{ url, servers, engines: { name: pid }, close() }`. `shared` and `replicas` start
 * their own PostgreSQL (a new database) and Redis; `replicas` three servers and HAProxy in front of them.
 */
async function deploy(mode) {
  if (mode === 'embedded') {
    const server = await startServer();
    return { url: server.url, servers: [server], engines: {}, close: () => server.stop() };
  }
  const postgres = await startPostgres();
  const redis = await startRedis();
  const closeEngines = () => Promise.all([postgres.close(), redis.close()]);
  try {
    const flags = ['--database-url', await postgres.createDatabase(), '--redis-url', redis.url];
    const servers = [];
    for (let i = 0; i < (mode === 'replicas' ? 3 : 1); i++) servers.push(await startServer(flags));
    const engines = { PostgreSQL: postgres.pid, Redis: redis.pid };
    const closeServers = () => Promise.all(servers.map((s) => s.stop()));
    if (mode === 'shared') return { url: servers[0].url, servers, engines, close: () => closeServers().then(closeEngines) };
    const haproxy = await startHaproxy(servers.map((s) => new URL(s.url).host));
    const path = new URL(servers[0].url).pathname;
    return {
      url: `${haproxy.url}${path}`,
      servers,
      engines: { ...engines, HAProxy: haproxy.pid },
      close: () => haproxy.close().then(closeServers).then(closeEngines),
    };
  } catch (error) {
    await closeEngines();
    throw error;
  }
}

/** Samples the servers' RSS every 50 ms while `work` runs; returns the work's result and the peaks. */
async function sampling(pids, work) {
  let peak = { server: 0, tree: 0 };
  let running = true;
  const sampler = (async () => {
    while (running) {
      const now = rss(pids);
      peak = { server: Math.max(peak.server, now.server), tree: Math.max(peak.tree, now.tree) };
      await sleep(50);
    }
  })();
  try {
    return { result: await work(), peak };
  } finally {
    running = false;
    await sampler;
  }
}

/**
 * Established clients: `n` 1.x clients connect and create a session each (not measured), then all at once run
 * `STEADY_SCRIPTS` scripts each, one `send_code` and one `execute` a script (measured: latencies and server CPU per
 * tool call, which a client's own sandbox process no longer costs), then leave. Prints one line.
 */
async function steadyRound(deployment, n) {
  const clients = await Promise.all(
    Array.from({ length: n }, async () => {
      const connection = await step('connect', connect(deployment.url));
      const created = await step('create_session', connection.client.callTool({ name: 'create_session', arguments: {} }));
      return { ...connection, sessionId: JSON.parse(text(created)).sessionId };
    }),
  );
  await sleep(AFTER_MS);
  const cpuBefore = cpu(deployment);
  const timings = { sendCode: [], execute: [] };
  const call = async (client, kind, name, args) => {
    const started = performance.now();
    const answer = await step(name, client.callTool({ name, arguments: args }));
    if (answer.isError) throw new Error(`${name}: ${text(answer).slice(0, 200)}`);
    timings[kind].push(performance.now() - started);
  };
  await Promise.all(
    clients.map(async ({ client, sessionId }, i) => {
      for (let k = 0; k < STEADY_SCRIPTS; k++) {
        await call(client, 'sendCode', 'send_code', { sessionId, code: script(i * 100 + k, 'steady session') });
        await call(client, 'execute', 'execute', { code: script(i * 100 + k, 'steady execute') });
      }
    }),
  );
  const cpuAfter = cpu(deployment);
  await Promise.all(clients.map((c) => c.transport.terminateSession().then(() => c.client.close()).catch(() => undefined)));
  const toolCalls = n * STEADY_SCRIPTS * 2;
  const per = (key) => `${(((cpuAfter[key] - cpuBefore[key]) * 1000) / toolCalls).toFixed(1)} ms`;
  const children = ((cpuAfter.server - cpuBefore.server - (cpuAfter.main - cpuBefore.main) - (cpuAfter.threads - cpuBefore.threads)) * 1000) / toolCalls;
  const p = (values) => `${ms(pct(values, 50))} / ${ms(pct(values, 95))}`;
  console.log(
    `${String(n).padStart(7)} established, ${STEADY_SCRIPTS} scripts each: execute p50/p95 ${p(timings.execute)}, send_code p50/p95 ${p(timings.sendCode)}; ` +
      `server CPU per tool call ${per('server')} = main thread ${per('main')} + other threads ${per('threads')} + children ${children.toFixed(1)} ms`,
  );
}

/** One round: `n` clients of `kind` at once, leaving by `leave`; prints its row and returns its figures. */
async function round(deployment, n, leave, kind) {
  const pids = deployment.servers.map((s) => s.pid);
  const before = rss(pids);
  const cpuBefore = cpu(deployment);
  const requestsBefore = requestsSent;
  const { result, peak } = await sampling(pids, () => Promise.all(Array.from({ length: n }, (_, i) => oneClient(deployment.url, i + 1, leave, kind))));
  const cpuAfter = cpu(deployment);
  const requests = requestsSent - requestsBefore;
  await sleep(AFTER_MS);
  const after = rss(pids);
  const ok = result.filter((r) => r.ok);
  const errors = [...new Set(result.filter((r) => !r.ok).map((r) => r.error))].slice(0, 3);
  const figures = {
    ok: ok.length,
    n,
    execute: [pct(ok.map((r) => r.execute), 50), pct(ok.map((r) => r.execute), 95)],
    sendCode: [pct(ok.map((r) => r.sendCode), 50), pct(ok.map((r) => r.sendCode), 95)],
    serverCpu: cpuAfter.server - cpuBefore.server,
    requests,
    toolCalls: n * TOOL_CALLS_PER_CLIENT,
  };
  console.log(
    [
      String(n).padStart(7),
      `${kind} ${leave}`.padEnd(16),
      `${ok.length}/${n}`.padEnd(8),
      `${ms(figures.execute[0])} / ${ms(figures.execute[1])}`.padEnd(18),
      `${ms(figures.sendCode[0])} / ${ms(figures.sendCode[1])}`.padEnd(19),
      `${fmtMib(before.server)} / ${fmtMib(peak.server)} / ${fmtMib(after.server)}`.padEnd(31),
      `${fmtMib(before.tree)} / ${fmtMib(peak.tree)} / ${fmtMib(after.tree)} (${after.processes} processes)`,
    ].join(' '),
  );
  const used = (key) => (cpuAfter[key] - cpuBefore[key]).toFixed(2);
  const engines = Object.keys(cpuAfter.engines).map((name) => `, ${name} ${(cpuAfter.engines[name] - cpuBefore.engines[name]).toFixed(2)}`).join('');
  console.log(`         CPU s: servers with their children ${used('server')} (live sandbox processes ${used('sandboxes')} of it), clients (this process) ${used('clients')}${engines}`);
  console.log(`         server CPU per request: ${perRequest(figures.serverCpu, requests)} per HTTP request (${requests}), ${perRequest(figures.serverCpu, figures.toolCalls)} per tool call (${figures.toolCalls})`);
  console.log(`         ${perClientRound(figures.serverCpu, n, (key) => cpuAfter[key] - cpuBefore[key])}`);
  const goals = roundGoals(n, figures);
  if (goals) console.log(`         goals (issue 32): ${goals}`);
  for (const error of errors) console.log(`         error: ${error}`);
  return figures;
}

/** Issue 32's goal for the server's CPU per client round (create_session, send_code, execute, leave), in ms. */
const CPU_PER_CLIENT_GOAL_MS = 5;

/**
 * The floor of a client round's CPU, in ms: a session process hosts one client's sessions only (a crash must end no
 * other client's), so every new client costs at least one node start with --no-node-snapshot, as the sandbox
 * processes are started: the median user+system CPU of 7 bare ones, each up to its last line of JavaScript.
 */
function processFloorMs() {
  const cpu = [];
  for (let i = 0; i < 7; i++) {
    const out = execFileSync(process.execPath, ['--no-node-snapshot', '-e', 'const u = process.cpuUsage(); process.stdout.write(String((u.user + u.system) / 1000))'], { encoding: 'utf8' });
    cpu.push(Number(out));
  }
  return pct(cpu, 50);
}
const PROCESS_FLOOR_MS = processFloorMs();
/** Issue 32's `execute` latency goals by round size: p50 and p95 in ms (`undefined`: no goal). */
const EXECUTE_GOALS = { 10: [undefined, 100], 100: [150, 400] };
const mark = (value, goal) => (goal === undefined ? '' : `${ms(value)} ${value <= goal ? '✓' : '✗'} (goal ≤ ${goal} ms)`);

/**
 * "server CPU per client round: …": the servers' CPU over `n` clients, split into the servers' main threads, their
 * other threads (typecheck workers, GC helpers, libuv's pool) and their children (sandbox processes, live and reaped;
 * MCP servers); `used(key)` is a CPU figure's change over the round, in s.
 */
function perClientRound(serverSeconds, n, used) {
  const per = (seconds) => `${((seconds * 1000) / n).toFixed(1)} ms`;
  const total = (serverSeconds * 1000) / n;
  const children = serverSeconds - used('main') - used('threads');
  return (
    `server CPU per client round: ${total.toFixed(1)} ms ${total <= CPU_PER_CLIENT_GOAL_MS ? '✓' : '✗'} (goal ≤ ${CPU_PER_CLIENT_GOAL_MS} ms${SESSION_PROCESSES === 'principal' ? '' : `; floor ${PROCESS_FLOOR_MS.toFixed(1)} ms: the client's own sandbox process`}) = ` +
    `main thread ${per(used('main'))} + other threads (typecheck workers, GC) ${per(used('threads'))} + children (sandbox processes, MCP servers) ${per(children)}`
  );
}

/** The round's `execute` latencies against issue 32's goals for its size, or undefined when it has none. */
function roundGoals(n, figures) {
  const goal = EXECUTE_GOALS[n];
  if (!goal) return undefined;
  return [goal[0] === undefined ? '' : `execute p50 ${mark(figures.execute[0], goal[0])}`, `execute p95 ${mark(figures.execute[1], goal[1])}`]
    .filter(Boolean)
    .join(', ');
}

const perRequest = (seconds, requests) => (requests === 0 ? '—' : `${((seconds * 1000) / requests).toFixed(1)} ms`);

/** Idle costs of one server: sessions of one client (each has run one script), then connections that only initialized. */
async function idleCosts(server) {
  await sleep(AFTER_MS);
  const base = rss([server.pid]);
  const owner = await connect(server.url);
  for (let i = 0; i < IDLE_SESSIONS; i++) {
    const created = await owner.client.callTool({ name: 'create_session', arguments: {} });
    const { sessionId } = JSON.parse(text(created));
    await owner.client.callTool({ name: 'send_code', arguments: { sessionId, code: `const n${i} = ${i}; export default n${i};` } });
  }
  await sleep(1_000);
  const withSessions = rss([server.pid]);
  await owner.transport.terminateSession();
  await owner.client.close();
  await sleep(AFTER_MS);
  const base2 = rss([server.pid]);
  const idle = [];
  for (let i = 0; i < IDLE_CONNECTIONS; i++) idle.push(await connect(server.url));
  await sleep(1_000);
  const withConnections = rss([server.pid]);
  await Promise.all(idle.map((c) => c.transport.terminateSession().then(() => c.client.close())));
  const perSession = (kb) => `${(mib(kb) / IDLE_SESSIONS).toFixed(2)} MiB`;
  const perConnection = (kb) => `${(mib(kb) / IDLE_CONNECTIONS).toFixed(2)} MiB`;
  console.log(
    `RSS per idle session (${IDLE_SESSIONS} in one client, one run each): server ${perSession(withSessions.server - base.server)}, ` +
      `with sandboxes ${perSession(withSessions.tree - base.tree)} (goal ≤ 2 MiB)`,
  );
  console.log(
    `RSS per idle connection (${IDLE_CONNECTIONS} initialized clients): server ${perConnection(withConnections.server - base2.server)}, ` +
      `with sandboxes ${perConnection(withConnections.tree - base2.tree)} (goal ≤ 1 MiB)`,
  );
}

/** Every round of one mode; returns the figures of its largest round, per client kind. */
async function runMode(mode) {
  const deployment = await deploy(mode);
  const largest = {};
  try {
    // Warm every server once (first typecheck loads TypeScript): through the balancer, one client per replica.
    for (let i = 0; i < deployment.servers.length; i++) await oneClient(deployment.url, 0, 'delete');
    await sleep(AFTER_MS);
    const packing = SESSION_PROCESSES ? `; sessions packed by ${SESSION_PROCESSES}` : '';
    console.log(`\nmode ${mode}: ${MODES[mode]} (Streamable HTTP, official SDK clients; each: create_session, send_code, execute${packing})`);
    console.log('clients  client          ok       execute p50/p95    send_code p50/p95   RSS server before/peak/after    RSS with sandboxes before/peak/after');
    const legs = KINDS.flatMap((kind) => (kind === 'v2' ? [['v2', 'close_session']] : [['1.x', 'delete'], ['1.x', 'close']]));
    for (const n of ROUNDS) {
      for (const [kind, leave] of legs) {
        const figures = await round(deployment, n, leave, kind);
        if (n === Math.max(...ROUNDS) && leave !== 'close') largest[kind] = figures;
      }
    }
    if (STEADY && KINDS.includes('1.x')) for (const n of ROUNDS) await steadyRound(deployment, n);
    if (mode === 'embedded' && KINDS.includes('1.x') && IDLE) await idleCosts(deployment.servers[0]);
  } finally {
    await deployment.close();
  }
  return largest;
}

/** The side-by-side table of each mode's largest round, one row per mode and client kind. */
function summary(results) {
  const n = Math.max(...ROUNDS);
  console.log(`\n${n} clients at once, side by side (1.x: leaving by DELETE; server CPU: every replica with its children)`);
  console.log('mode      client  ok        execute p50/p95    send_code p50/p95   server CPU per HTTP request / per tool call / per client round');
  for (const [mode, byKind] of Object.entries(results)) {
    for (const [kind, f] of Object.entries(byKind)) {
      console.log(
        [
          mode.padEnd(9),
          kind.padEnd(7),
          `${f.ok}/${f.n}`.padEnd(9),
          `${ms(f.execute[0])} / ${ms(f.execute[1])}`.padEnd(18),
          `${ms(f.sendCode[0])} / ${ms(f.sendCode[1])}`.padEnd(19),
          `${perRequest(f.serverCpu, f.requests)} / ${perRequest(f.serverCpu, f.toolCalls)} / ${perRequest(f.serverCpu, f.n)} (goal ≤ ${CPU_PER_CLIENT_GOAL_MS} ms)`,
        ].join(' '),
      );
    }
  }
}

execFileSync(process.execPath, [cli, 'capabilities', 'build'], { cwd: root, stdio: 'ignore' });
console.log(
  `floor: each client's sessions get a sandbox process of their own (a crash ends no other client's), and a bare node ` +
    `start with --no-node-snapshot costs ${PROCESS_FLOOR_MS.toFixed(1)} ms of CPU (median of 7): no client round can cost less` +
    (SESSION_PROCESSES === 'principal' ? ' — except here: with --session-processes principal, one principal\'s clients share processes' : ''),
);
const results = {};
for (const mode of RUN_MODES) results[mode] = await runMode(mode);
summary(results);
