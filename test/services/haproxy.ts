import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createConnection } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './postgres.js';

/** A backend server behind the load balancer. */
export interface HaproxyBackend {
  /** Its name in HAProxy's config: letters, digits, `-`, `_`, `.`. */
  name: string;
  /** `http://127.0.0.1:<port>`. */
  url: string;
}

/** Options of {@link startHaproxy}. */
export interface HaproxyOptions {
  /** What the health check asks each backend for; 2xx and 3xx answers are healthy (default `/health`). */
  healthPath?: string;
}

/** A running HAProxy in front of the backends. */
export interface HaproxyServer {
  /** `http://127.0.0.1:<port>`. */
  readonly url: string;
  readonly port: number;
  /** Stops it and removes its folder. */
  close(): Promise<void>;
}

/** Where `haproxy` is; throws naming the package when it is not installed. */
function haproxyBin(): string {
  const found = ['/usr/sbin/haproxy', '/usr/local/sbin/haproxy', '/usr/bin/haproxy'].find((p) => existsSync(p));
  if (!found) throw new Error('HAProxy is not installed: apt-get install haproxy (.ci/run does)');
  return found;
}

/**
 * HAProxy's config: round robin over `backends` with no stickiness, a health check every 500 ms (down after 2 failures,
 * up after 1 success), a request whose backend refuses the connection retried on another, keep-alive to clients, and
 * responses (SSE) streamed as they come.
 */
function config(port: number, backends: readonly HaproxyBackend[], healthPath: string): string {
  const servers = backends.map(({ name, url }) => {
    if (!/^[\w.-]+$/.test(name)) throw new Error(`Backend name ${JSON.stringify(name)} is not a valid HAProxy server name`);
    const { hostname, port: serverPort } = new URL(url);
    return `  server ${name} ${hostname}:${serverPort} check inter 500ms fall 2 rise 1`;
  });
  if (!/^\/[^\s]*$/.test(healthPath)) throw new Error(`Health path ${JSON.stringify(healthPath)} must start with / and hold no spaces`);
  return [
    'global',
    '  maxconn 1024',
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 120s',
    '  timeout server 120s',
    '  timeout http-request 30s',
    // A check answered late on a busy machine is not a failed one (without it, the check's timeout is `inter`).
    '  timeout check 2s',
    '  retries 2',
    '  option redispatch',
    '  option http-no-delay',
    'frontend front',
    `  bind 127.0.0.1:${port}`,
    '  default_backend replicas',
    'backend replicas',
    '  balance roundrobin',
    `  option httpchk GET ${healthPath}`,
    ...servers,
    '',
  ].join('\n');
}

/** Starts HAProxy (`haproxy -W -db`, a child process) on a free port of 127.0.0.1, balancing over `backends`. */
export async function startHaproxy(backends: readonly HaproxyBackend[], options: HaproxyOptions = {}): Promise<HaproxyServer> {
  const bin = haproxyBin();
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'as-haproxy-'));
  const file = join(dir, 'haproxy.cfg');
  try {
    writeFileSync(file, config(port, backends, options.healthPath ?? '/health'));
  } catch (error) {
    rmSync(dir, { recursive: true, force: true });
    throw error;
  }
  const child = spawn(bin, ['-W', '-db', '-f', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (data: Buffer) => (stderr += data.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  async function close(): Promise<void> {
    // SIGTERM: the master stops its worker too (a killed master would leave it running).
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }

  const deadline = Date.now() + 10_000;
  while (!(await accepts(port))) {
    if (child.exitCode !== null || Date.now() > deadline) {
      await close();
      throw new Error(`HAProxy did not start: ${stderr.trim() || 'no answer on its port'}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
  return { url: `http://127.0.0.1:${port}`, port, close };
}

/** Whether something accepts TCP connections on `port` of 127.0.0.1. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = createConnection({ port, host: '127.0.0.1' }, () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}
