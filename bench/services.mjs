// bench/services.mjs — the real PostgreSQL, Redis and HAProxy of the system's packages, for benches (the same logic as
// test/services/postgres.ts and redis.ts, which a plain .mjs cannot import). Each runs in a temp folder of its own on a
// free port of 127.0.0.1 and is removed by close().
import { execFile, execFileSync, spawn } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createConnection, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** The load balancer's config, shared with deploy/local/start.sh and deploy/compose.yaml. */
export const HAPROXY_CONFIG = fileURLToPath(new URL('../deploy/haproxy.cfg', import.meta.url));

/** A free TCP port on 127.0.0.1. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** The first of `paths` that exists; throws naming the Debian package otherwise. */
function binary(paths, packageName) {
  const found = paths.find((p) => existsSync(p));
  if (!found) throw new Error(`${packageName} is not installed: apt-get install ${packageName}`);
  return found;
}

/** Where Debian's PostgreSQL binaries are (the highest version installed). */
function postgresBin() {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('PostgreSQL is not installed: apt-get install postgresql-15');
  return join(root, newest, 'bin');
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asPostgres(command, args) {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** Whether something accepts TCP connections on `port` of 127.0.0.1 (and, given `probe`, answers it with `expect`). */
function answers(port, probe, expect) {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => (probe ? socket.write(probe) : (socket.destroy(), resolve(true))));
    socket.once('data', (data) => {
      socket.destroy();
      resolve(data.toString().startsWith(expect));
    });
    socket.once('error', () => resolve(false));
  });
}

/** Waits until `ready()` or throws `what` did not start (also when `child` exited). */
async function until(ready, child, what, log = () => '') {
  const deadline = Date.now() + 20_000;
  while (!(await ready())) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`${what} did not start: ${log()}`);
    await sleep(50);
  }
}

/**
 * A fresh PostgreSQL cluster (initdb, trust auth on 127.0.0.1, fsync off, 300 connections: three replicas' pools):
 * `{ url, pid, createDatabase(): Promise<url>, close() }`.
 */
export async function startPostgres() {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'as-bench-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, Number(execFileSync('id', ['-u', 'postgres'])), Number(execFileSync('id', ['-g', 'postgres'])));
  const data = join(dir, 'data');
  await run(...asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']));
  const port = await freePort();
  const [command, args] = asPostgres(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'max_connections=300']);
  const child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  const isReady = () => run(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]).then(() => true, () => false);
  await until(isReady, child, 'PostgreSQL', () => log);
  let databases = 0;
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    /** The postmaster's pid (under runuser, the pid of runuser: its child is the postmaster). */
    pid: child.pid,
    async createDatabase() {
      const name = `bench_${process.pid}_${++databases}`;
      await run(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-qc', `CREATE DATABASE ${name}`]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null) await run(...asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop'])).catch(() => child.kill('SIGKILL'));
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** A Redis server persisting nothing (no RDB snapshots, no AOF): `{ url, pid, close() }`. */
export async function startRedis() {
  const bin = binary(['/usr/bin/redis-server', '/usr/local/bin/redis-server'], 'redis-server');
  const dir = mkdtempSync(join(tmpdir(), 'as-bench-redis-'));
  const port = await freePort();
  const child = spawn(bin, ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', '--dir', dir], { stdio: 'ignore' });
  await until(() => answers(port, 'PING\r\n', '+PONG'), child, 'Redis');
  return {
    url: `redis://127.0.0.1:${port}`,
    pid: child.pid,
    async close() {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null) child.kill('SIGKILL');
      await exited;
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** HAProxy with deploy/haproxy.cfg, round robin over the three `backends` (`host:port` each): `{ url, pid, close() }`. */
export async function startHaproxy(backends) {
  if (backends.length !== 3) throw new Error('deploy/haproxy.cfg balances over exactly three replicas');
  const bin = binary(['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy'], 'haproxy');
  const port = await freePort();
  const env = { ...process.env, AGENT_SPACES_LB_BIND: `127.0.0.1:${port}` };
  backends.forEach((backend, i) => (env[`AGENT_SPACES_REPLICA_${i + 1}`] = backend));
  const child = spawn(bin, ['-W', '-db', '-f', HAPROXY_CONFIG], { env, stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr.on('data', (chunk) => (log = (log + chunk).slice(-4000)));
  await until(() => answers(port), child, 'HAProxy', () => log);
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid,
    async close() {
      // SIGTERM: the master stops its worker too (a killed master would leave it running).
      const exited = new Promise((resolve) => child.once('exit', resolve));
      if (child.exitCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}
