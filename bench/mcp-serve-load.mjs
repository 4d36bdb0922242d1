// bench/mcp-serve-load.mjs — `agent-spaces mcp serve --port` under many MCP clients at once.
//
// Serves this repository's example project (built first) from a real `agent-spaces mcp serve` child process and
// connects 1, 10 and 100 official SDK clients over Streamable HTTP at once. Each client creates a session, runs a
// short typed script that calls a capability in it (`send_code`) and the same kind of script with `execute` (each
// client's script differs, so no check is a repeat), then leaves: once by DELETE (`terminateSession`) and once by
// `close()` only. Prints per round: succeeded, execute and send_code p50/p95, server RSS before, at peak and 5 s after
// the clients left (the server alone and with its sandbox processes); then RSS per idle session and per idle connection.
// Goals (issue 15): 100 clients all succeed, execute p50 ≤ 150 ms and p95 ≤ 400 ms, ≤ 2 MiB per idle session, ≤ 1 MiB
// per idle connection, RSS back within 10 % of the baseline after the clients leave.
//
// Run after `npm run build`: node bench/mcp-serve-load.mjs [--rounds 1,10,100]
// (BENCH_SERVER_FLAGS="--cpu-prof --cpu-prof-dir=/tmp/prof" profiles the server.)
import { spawn, execFileSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const cli = fileURLToPath(new URL('../packages/cli/bin/agent-spaces.js', import.meta.url));
const roundsArg = process.argv.indexOf('--rounds');
const ROUNDS = roundsArg > 0 ? process.argv[roundsArg + 1].split(',').map(Number) : [1, 10, 100];
const IDLE_SESSIONS = 40;
const IDLE_CONNECTIONS = 40;
const AFTER_MS = 5_000;

const mib = (kb) => kb / 1024;
const fmtMib = (kb) => `${mib(kb).toFixed(1)} MiB`;
const pct = (values, p) => (values.length === 0 ? NaN : values.toSorted((a, b) => a - b)[Math.min(values.length - 1, Math.floor((p / 100) * values.length))]);
const ms = (v) => (Number.isNaN(v) ? '—' : `${v.toFixed(0)} ms`);

/**
 * RSS in KiB of the server (`pid` — the bin shim — and every descendant but sandbox processes: the server itself and the
 * MCP servers it started) and of the whole tree, sandbox processes included.
 */
function rss(pid) {
  const rssOf = (p) => {
    try {
      return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      return 0;
    }
  };
  const parents = new Map();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  const isSandbox = (p) => {
    try {
      return readFileSync(`/proc/${p}/cmdline`, 'utf8').includes('process-child');
    } catch {
      return false;
    }
  };
  const sizes = tree.map((p) => ({ kb: rssOf(p), sandbox: isSandbox(p) }));
  return {
    server: sizes.filter((s) => !s.sandbox).reduce((sum, s) => sum + s.kb, 0),
    tree: sizes.reduce((sum, s) => sum + s.kb, 0),
    processes: tree.length,
  };
}

/** CPU seconds used so far by the server, by its sandbox processes (live ones) and by this process (the clients). */
function cpu(pid) {
  const ticks = (p) => {
    try {
      const fields = readFileSync(`/proc/${p}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    } catch {
      return 0;
    }
  };
  const children = readdirSync('/proc').filter((e) => /^\d+$/.test(e)).filter((e) => {
    try {
      return readFileSync(`/proc/${e}/cmdline`, 'utf8').includes('process-child') && readFileSync(`/proc/${e}/stat`, 'utf8').split(') ')[1].split(' ')[1] === String(pid);
    } catch {
      return false;
    }
  });
  return { server: ticks(pid), sandboxes: children.reduce((sum, c) => sum + ticks(c), 0), clients: process.cpuUsage().user / 1e6 + process.cpuUsage().system / 1e6 };
}

function script(i, kind) {
  return `import { notes } from '@capabilities/notes';
const note = await notes.create({ title: '${kind} ${i}', content: 'load test' });
const title: string = note.title.toUpperCase();
export default { id: note.id, title, client: ${i} };`;
}

async function connect(url) {
  const client = new Client({ name: 'load', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(url));
  await client.connect(transport);
  return { client, transport };
}

const text = (result) => result.content?.[0]?.text ?? '';
/** `promise`, or a rejection naming `step` after 60 s: a hang shows as an error of its step, not as a bench that never ends. */
const step = (name, promise) =>
  Promise.race([promise, sleep(60_000).then(() => Promise.reject(new Error(`${name}: no answer within 60 s`)))]);

async function oneClient(url, i, leave) {
  const outcome = { ok: false, execute: NaN, sendCode: NaN, error: '' };
  let connection;
  try {
    connection = await step('connect', connect(url));
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
    outcome.ok = true;
  } catch (error) {
    outcome.error = error instanceof Error ? error.message : String(error);
  } finally {
    if (connection && leave === 'delete') await step('DELETE', connection.transport.terminateSession()).catch(() => undefined);
    await connection?.client.close().catch(() => undefined);
  }
  return outcome;
}

async function startServer() {
  // With the flag the shim runs the server itself (no re-exec), so `child` is the server and SIGTERM reaches it.
  const flags = ['--no-node-snapshot', ...(process.env.BENCH_SERVER_FLAGS?.split(' ').filter(Boolean) ?? [])];
  const child = spawn(process.execPath, [...flags, cli, 'mcp', 'serve', '--port', '0'], { cwd: root, stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  const url = await new Promise((resolve, reject) => {
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
      const match = /on (http:\/\/\S+)/.exec(stderr);
      if (match) resolve(match[1]);
    });
    child.once('exit', (code) => reject(new Error(`mcp serve exited ${code}: ${stderr}`)));
  });
  return { child, url, pid: child.pid };
}

/** Samples the server's RSS every 50 ms while `work` runs; returns the work's result and the peaks. */
async function sampling(pid, work) {
  let peak = { server: 0, tree: 0 };
  let running = true;
  const sampler = (async () => {
    while (running) {
      const now = rss(pid);
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

execFileSync(process.execPath, [cli, 'capabilities', 'build'], { cwd: root, stdio: 'ignore' });
const server = await startServer();
try {
  // Warm the server once (first typecheck loads TypeScript), then take the baseline.
  await oneClient(server.url, 0, 'delete');
  await sleep(AFTER_MS);
  console.log('mcp serve under concurrent clients (Streamable HTTP, official SDK client; each: create_session, send_code, execute)');
  console.log('clients  leave   ok       execute p50/p95    send_code p50/p95   RSS server before/peak/after    RSS with sandboxes before/peak/after');
  for (const n of ROUNDS) {
    for (const leave of ['delete', 'close']) {
      const before = rss(server.pid);
      const cpuBefore = cpu(server.pid);
      const { result, peak } = await sampling(server.pid, () => Promise.all(Array.from({ length: n }, (_, i) => oneClient(server.url, i + 1, leave))));
      const cpuAfter = cpu(server.pid);
      await sleep(AFTER_MS);
      const after = rss(server.pid);
      const ok = result.filter((r) => r.ok);
      const errors = [...new Set(result.filter((r) => !r.ok).map((r) => r.error))].slice(0, 3);
      console.log(
        [
          String(n).padStart(7),
          leave.padEnd(6),
          `${ok.length}/${n}`.padEnd(8),
          `${ms(pct(ok.map((r) => r.execute), 50))} / ${ms(pct(ok.map((r) => r.execute), 95))}`.padEnd(18),
          `${ms(pct(ok.map((r) => r.sendCode), 50))} / ${ms(pct(ok.map((r) => r.sendCode), 95))}`.padEnd(19),
          `${fmtMib(before.server)} / ${fmtMib(peak.server)} / ${fmtMib(after.server)}`.padEnd(31),
          `${fmtMib(before.tree)} / ${fmtMib(peak.tree)} / ${fmtMib(after.tree)} (${after.processes} processes)`,
        ].join(' '),
      );
      const used = (key) => (cpuAfter[key] - cpuBefore[key]).toFixed(2);
      console.log(`         CPU s: server ${used('server')}, sandbox processes ${used('sandboxes')} (live ones), clients (this process) ${used('clients')}`);
      for (const error of errors) console.log(`         error: ${error}`);
    }
  }

  // Idle costs: sessions of one client (each has run one script), then connections that only initialized.
  await sleep(AFTER_MS);
  const base = rss(server.pid);
  const owner = await connect(server.url);
  const sessions = [];
  for (let i = 0; i < IDLE_SESSIONS; i++) {
    const created = await owner.client.callTool({ name: 'create_session', arguments: {} });
    const { sessionId } = JSON.parse(text(created));
    await owner.client.callTool({ name: 'send_code', arguments: { sessionId, code: `const n${i} = ${i}; export default n${i};` } });
    sessions.push(sessionId);
  }
  await sleep(1_000);
  const withSessions = rss(server.pid);
  await owner.transport.terminateSession();
  await owner.client.close();
  await sleep(AFTER_MS);
  const base2 = rss(server.pid);
  const idle = [];
  for (let i = 0; i < IDLE_CONNECTIONS; i++) idle.push(await connect(server.url));
  await sleep(1_000);
  const withConnections = rss(server.pid);
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
} finally {
  server.child.kill('SIGTERM');
  await new Promise((resolve) => server.child.once('exit', resolve));
}
