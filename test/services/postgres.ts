import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A real PostgreSQL server of the system's packages, in a folder of its own on a free port (tests only). */
export interface PostgresServer {
  /** `postgres://postgres@127.0.0.1:<port>/postgres`. */
  readonly url: string;
  readonly port: number;
  /** A new empty database on this server; its URL. */
  createDatabase(): Promise<string>;
  /** Stops the server at once (`immediate`: connections are cut, nothing is flushed politely). */
  stop(): Promise<void>;
  /** Starts it again on the same port and folder. */
  start(): Promise<void>;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

/** Where Debian's PostgreSQL binaries are (the highest version installed); throws naming the package when none is. */
function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  const newest = versions.sort((a, b) => Number(b) - Number(a))[0];
  if (!newest) throw new Error('PostgreSQL is not installed: apt-get install postgresql-15 (.ci/run does)');
  return join(root, newest, 'bin');
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, its commands run as the `postgres` user. */
function asPostgres(command: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', command, ...args]] : [command, args];
}

/** Starts a fresh PostgreSQL cluster (initdb, trust auth on 127.0.0.1, fsync off: a test's data need not survive a crash of the machine). */
export async function startPostgres(): Promise<PostgresServer> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'as-pg-'));
  if (process.getuid?.() === 0) chownSync(dir, uidOf('postgres'), gidOf('postgres'));
  const data = join(dir, 'data');
  await run(...asPostgres(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']));
  const port = await freePort();
  let child: ChildProcess | undefined;
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;

  async function start(): Promise<void> {
    const [command, args] = asPostgres(join(bin, 'postgres'), ['-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', dir, '-c', 'fsync=off', '-c', 'max_connections=200']);
    child = spawn(command, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    let log = '';
    child.stderr!.on('data', (chunk: Buffer) => (log = (log + chunk.toString()).slice(-4000)));
    const deadline = Date.now() + 20_000;
    for (;;) {
      try {
        await run(join(bin, 'pg_isready'), ['-h', '127.0.0.1', '-p', String(port)]);
        return;
      } catch {
        if (child.exitCode !== null || Date.now() > deadline) throw new Error(`PostgreSQL did not start:\n${log}`);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  async function stop(): Promise<void> {
    const running = child;
    if (!running || running.exitCode !== null) return;
    const exited = new Promise((r) => running.once('exit', r));
    await run(...asPostgres(join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', 'stop'])).catch(() => running.kill('SIGKILL'));
    await exited;
  }

  await start();
  let databases = 0;
  return {
    url,
    port,
    start,
    stop,
    async createDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      await run(join(bin, 'psql'), ['-h', '127.0.0.1', '-p', String(port), '-U', 'postgres', '-qc', `CREATE DATABASE ${name}`]);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async close() {
      await stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

function uidOf(user: string): number {
  return Number(execFileSync('id', ['-u', user]).toString().trim());
}

function gidOf(user: string): number {
  return Number(execFileSync('id', ['-g', user]).toString().trim());
}
