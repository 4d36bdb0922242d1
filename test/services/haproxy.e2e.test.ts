import { createServer, get, type Server } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { startHaproxy, type HaproxyServer } from './haproxy.js';

interface Backend {
  name: string;
  url: string;
  /** Requests it answered, by path. */
  seen: string[];
  /** When it wrote the second SSE event. */
  secondEventAt?: number;
  /** Whether `/health` and `/ready` answer 200 (else 503). */
  healthy: boolean;
  close(): Promise<void>;
}

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A node:http backend answering its name on `/`, its health on `/health` and `/ready`, and two SSE events 300 ms apart on `/events`. */
async function backend(name: string): Promise<Backend> {
  const server: Server = createServer((req, res) => {
    self.seen.push(req.url ?? '');
    if (req.url === '/health' || req.url === '/ready') return void res.writeHead(self.healthy ? 200 : 503).end();
    if (req.url === '/events') {
      res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache' });
      res.write('data: one\n\n');
      setTimeout(() => {
        self.secondEventAt = Date.now();
        res.end('data: two\n\n');
      }, 300);
      return;
    }
    res.writeHead(200, { 'Content-Type': 'text/plain' }).end(name);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  let closed: Promise<void> | undefined;
  const self: Backend = {
    name,
    url: `http://127.0.0.1:${port}`,
    seen: [],
    healthy: true,
    close: () =>
      (closed ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      })),
  };
  cleanups.push(() => self.close());
  return self;
}

async function haproxy(backends: Backend[], options?: { healthPath?: string }): Promise<HaproxyServer> {
  const proxy = await startHaproxy(backends, options);
  cleanups.push(() => proxy.close());
  return proxy;
}

/** The bodies of `count` requests to `/`, one after another. */
async function names(url: string, count: number): Promise<string[]> {
  const answers: string[] = [];
  for (let i = 0; i < count; i++) {
    const res = await fetch(`${url}/`);
    expect(res.status).toBe(200);
    answers.push(await res.text());
  }
  return answers;
}

const count = (list: string[], item: string) => list.filter((x) => x === item).length;

describe('startHaproxy', () => {
  it('balances requests round robin over the backends', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const proxy = await haproxy([a, b]);
    expect(proxy.url).toBe(`http://127.0.0.1:${proxy.port}`);
    const answers = await names(proxy.url, 10);
    expect([count(answers, 'a'), count(answers, 'b')]).toEqual([5, 5]);
    // Round robin: no two requests in a row go to the same backend.
    expect(answers.every((name, i) => i === 0 || name !== answers[i - 1])).toBe(true);
  });

  it('sends every request to the live backend once the other is gone, at once', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const proxy = await haproxy([a, b]);
    expect(new Set(await names(proxy.url, 4))).toEqual(new Set(['a', 'b']));
    await a.close();
    const started = Date.now();
    expect(await names(proxy.url, 10)).toEqual(Array(10).fill('b'));
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('stops sending requests to a backend failing its health check, on the configured path', async () => {
    const [a, b] = [await backend('a'), await backend('b')];
    const proxy = await haproxy([a, b], { healthPath: '/ready' });
    a.healthy = false;
    // Two failed checks 500 ms apart mark it down.
    await new Promise((r) => setTimeout(r, 1_600));
    expect(a.seen).toContain('/ready');
    expect(a.seen).not.toContain('/health');
    expect(await names(proxy.url, 6)).toEqual(Array(6).fill('b'));
    a.healthy = true;
    await new Promise((r) => setTimeout(r, 800));
    expect(new Set(await names(proxy.url, 4))).toEqual(new Set(['a', 'b']));
  });

  it('streams an SSE response through: the first event arrives before the second is sent', async () => {
    const a = await backend('a');
    const proxy = await haproxy([a]);
    const chunks: { text: string; at: number }[] = [];
    const contentType = await new Promise<string | undefined>((resolve, reject) => {
      get(`${proxy.url}/events`, (res) => {
        res.on('data', (data: Buffer) => chunks.push({ text: data.toString(), at: Date.now() }));
        res.on('end', () => resolve(res.headers['content-type']));
        res.on('error', reject);
      }).on('error', reject);
    });
    expect(contentType).toBe('text/event-stream');
    expect(chunks.map((c) => c.text)).toEqual(['data: one\n\n', 'data: two\n\n']);
    expect(chunks[0]!.at).toBeLessThan(a.secondEventAt!);
  });

  it.each([
    ['a backend name with a space', [{ name: 'a b', url: 'http://127.0.0.1:1' }], {}],
    ['a backend name with a newline', [{ name: 'a\nserver x 127.0.0.1:2', url: 'http://127.0.0.1:1' }], {}],
    ['an empty backend name', [{ name: '', url: 'http://127.0.0.1:1' }], {}],
    ['a health path with a space', [{ name: 'a', url: 'http://127.0.0.1:1' }], { healthPath: '/health x' }],
    ['a health path with a newline', [{ name: 'a', url: 'http://127.0.0.1:1' }], { healthPath: '/h\nbackend evil' }],
    ['a relative health path', [{ name: 'a', url: 'http://127.0.0.1:1' }], { healthPath: 'health' }],
  ])('refuses %s', async (_, backends, options) => {
    await expect(startHaproxy(backends, options)).rejects.toThrow(/not a valid HAProxy server name|must start with \/ and hold no spaces/);
  });
});
