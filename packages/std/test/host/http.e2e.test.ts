import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createStdCapability } from '../../src/index.js';
import { isAllowed, parseAllowEntry } from '../../src/host/http.js';
import { errorOf, stdBridge, valueOf } from '../helpers.js';

type Route = (req: IncomingMessage, body: string, res: ServerResponse) => void;

const routes: Record<string, Route> = {
  '/json': (_req, _body, res) => {
    res.setHeader('content-type', 'application/json');
    res.setHeader('x-trace', 'abc');
    res.end(JSON.stringify({ trips: 3 }));
  },
  '/echo': (req, body, res) => res.end(JSON.stringify({ method: req.method, type: req.headers['content-type'], auth: req.headers.authorization, body })),
  '/missing': (_req, _body, res) => {
    res.statusCode = 404;
    res.end('not here');
  },
  '/hang': () => {},
  '/big': (_req, _body, res) => res.end('x'.repeat(5000)),
  '/big-chunked': (_req, _body, res) => {
    res.write('y'.repeat(3000));
    res.end('y'.repeat(3000));
  },
  '/to-json': (_req, _body, res) => {
    res.writeHead(302, { location: '/json' });
    res.end();
  },
  '/post-to-echo': (_req, _body, res) => {
    res.writeHead(303, { location: '/echo' });
    res.end();
  },
  '/to-localhost': (_req, _body, res) => {
    res.writeHead(302, { location: `http://localhost:${port}/json` });
    res.end();
  },
  '/loop': (_req, _body, res) => {
    res.writeHead(302, { location: '/loop' });
    res.end();
  },
};

let server: Server;
let port: number;
let base: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => (routes[new URL(req.url!, 'http://x').pathname] ?? routes['/missing']!)(req, body, res));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise<void>((resolve) => server.close(() => resolve()));
});

const allowed = () => stdBridge({ workspaceDir: '/nonexistent', http: { allowHosts: ['127.0.0.1'], timeoutMs: 2000, maxBytes: 4096 } });

describe('http on the allow-list', () => {
  it('returns status, lower-case headers, body and final URL as plain data', async () => {
    const response = valueOf(await allowed().call('http.request', { url: `${base}/json` })) as Record<string, unknown>;
    expect(response).toMatchObject({ url: `${base}/json`, status: 200, statusText: 'OK', body: '{"trips":3}' });
    expect(response.headers).toMatchObject({ 'content-type': 'application/json', 'x-trace': 'abc' });
  });

  it('sends method, headers and body', async () => {
    const response = valueOf(
      await allowed().call('http.request', {
        url: `${base}/echo`,
        method: 'PUT',
        headers: { 'content-type': 'text/plain', authorization: 'Bearer t' },
        body: 'payload',
      }),
    ) as { body: string };
    expect(JSON.parse(response.body)).toEqual({ method: 'PUT', type: 'text/plain', auth: 'Bearer t', body: 'payload' });
  });

  it('returns non-2xx answers as data', async () => {
    expect(valueOf(await allowed().call('http.request', { url: `${base}/missing` }))).toMatchObject({ status: 404, body: 'not here' });
  });

  it('follows redirects on allowed hosts, turning a 303 after POST into GET', async () => {
    expect(valueOf(await allowed().call('http.request', { url: `${base}/to-json` }))).toMatchObject({ url: `${base}/json`, status: 200 });
    const after303 = valueOf(await allowed().call('http.request', { url: `${base}/post-to-echo`, method: 'POST', body: 'x' })) as { body: string };
    expect(JSON.parse(after303.body)).toMatchObject({ method: 'GET', body: '' });
    expect(errorOf(await allowed().call('http.request', { url: `${base}/loop` })).message).toContain('redirects');
  });

  it('matches a host:port entry only on that port', async () => {
    const onPort = stdBridge({ workspaceDir: '/nonexistent', http: { allowHosts: [`127.0.0.1:${port}`] } });
    expect(valueOf(await onPort.call('http.request', { url: `${base}/json` }))).toMatchObject({ status: 200 });
    const otherPort = stdBridge({ workspaceDir: '/nonexistent', http: { allowHosts: [`127.0.0.1:${port + 1}`] } });
    expect(errorOf(await otherPort.call('http.request', { url: `${base}/json` })).code).toBe('ACCESS_DENIED');
  });
});

describe('http refusals and limits', () => {
  it('denies every host by default, naming the host', async () => {
    const { call } = stdBridge({ workspaceDir: '/nonexistent' });
    const error = errorOf(await call('http.request', { url: `${base}/json` }));
    expect(error).toMatchObject({ code: 'ACCESS_DENIED', data: { host: `127.0.0.1:${port}` } });
    expect(error.message).toContain(`127.0.0.1:${port}`);
  });

  it('denies a host that is not on the list, also when a redirect leads there', async () => {
    const { call } = allowed();
    expect(errorOf(await call('http.request', { url: `http://localhost:${port}/json` }))).toMatchObject({
      code: 'ACCESS_DENIED',
      data: { host: `localhost:${port}` },
    });
    expect(errorOf(await call('http.request', { url: `${base}/to-localhost` }))).toMatchObject({
      code: 'ACCESS_DENIED',
      data: { host: `localhost:${port}` },
    });
  });

  it('matches *.example.com against subdomains only', async () => {
    const { call } = stdBridge({ workspaceDir: '/nonexistent', http: { allowHosts: ['*.example.test'], timeoutMs: 2000 } });
    expect(errorOf(await call('http.request', { url: 'http://example.test/' })).code).toBe('ACCESS_DENIED');
    expect(errorOf(await call('http.request', { url: 'http://evil-example.test/' })).code).toBe('ACCESS_DENIED');
    // Allowed, so it is attempted: the name does not resolve (HANDLER_ERROR, or TIMEOUT on a slow resolver).
    expect(errorOf(await call('http.request', { url: 'http://api.example.test/' })).code).toMatch(/^(HANDLER_ERROR|TIMEOUT)$/);
  });

  it('refuses schemes other than http and https, and text that is not a URL', async () => {
    const { call } = allowed();
    expect(errorOf(await call('http.request', { url: 'file:///etc/passwd' })).code).toBe('ACCESS_DENIED');
    expect(errorOf(await call('http.request', { url: 'data:text/plain,hi' })).code).toBe('ACCESS_DENIED');
    expect(errorOf(await call('http.request', { url: '/relative' })).code).toBe('INVALID_PARAMS');
    expect(errorOf(await call('http.request', { url: `${base}/json`, method: 'TRACE' })).code).toBe('INVALID_PARAMS');
  });

  it('gives up with TIMEOUT after the requested time', async () => {
    const error = errorOf(await allowed().call('http.request', { url: `${base}/hang`, timeoutMs: 150 }));
    expect(error).toMatchObject({ code: 'TIMEOUT', data: { timeoutMs: 150 } });
  });

  it('stops reading a body over maxBytes with PAYLOAD_TOO_LARGE, declared or streamed', async () => {
    const { call } = allowed();
    expect(errorOf(await call('http.request', { url: `${base}/big` })).code).toBe('PAYLOAD_TOO_LARGE');
    expect(errorOf(await call('http.request', { url: `${base}/big-chunked` })).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('refuses allow-list entries that are not hosts', () => {
    for (const entry of ['http://example.com', 'example.com/path', 'a b', '*']) {
      expect(() => createStdCapability({ workspaceDir: '/w', http: { allowHosts: [entry] } })).toThrowError(
        expect.objectContaining({ code: 'CONFIG_INVALID', data: expect.objectContaining({ field: 'std.http.allowHosts' }) }),
      );
    }
  });

  it('sends only the methods on std.http.methods, naming the method it refuses', async () => {
    const { call } = stdBridge({ workspaceDir: '/nonexistent', http: { allowHosts: ['127.0.0.1'], methods: ['GET'] } });
    expect(valueOf(await call('http.request', { url: `${base}/json` }))).toMatchObject({ status: 200 });
    for (const method of ['POST', 'DELETE', 'PUT']) {
      expect(errorOf(await call('http.request', { url: `${base}/echo`, method, body: 'x' }))).toMatchObject({ code: 'ACCESS_DENIED', data: { method } });
    }
  });

  it('refuses bad http settings with CONFIG_INVALID naming the field', () => {
    const cases: [unknown, string][] = [
      [{ allowHosts: 'api.example.com' }, 'std.http.allowHosts'],
      [{ allowHosts: [''] }, 'std.http.allowHosts'],
      [{ methods: ['get'] }, 'std.http.methods'],
      [{ methods: ['CONNECT'] }, 'std.http.methods'],
      [{ timeoutMs: 0 }, 'std.http.timeoutMs'],
      [{ timeoutMs: Infinity }, 'std.http.timeoutMs'],
      [{ maxBytes: '10' }, 'std.http.maxBytes'],
      [{ allowHost: [] }, 'std.http.allowHost'],
      [['127.0.0.1'], 'std.http'],
    ];
    for (const [http, field] of cases) {
      expect(() => createStdCapability({ workspaceDir: '/w', http: http as never })).toThrowError(
        expect.objectContaining({ code: 'CONFIG_INVALID', data: { field } }),
      );
    }
  });
});

describe('allow-list entries match hosts as URLs write them (punycode, no trailing dot, lower case)', () => {
  const allows = (entries: string[], url: string) => isAllowed(new URL(url), entries.map(parseAllowEntry));

  it.each([
    ['bücher.example', 'https://xn--bcher-kva.example/'],
    ['bücher.example', 'https://bücher.example/'],
    ['bücher.example', 'https://BÜCHER.EXAMPLE./x'],
    ['Bücher.Example.', 'https://xn--bcher-kva.example/'],
    ['ｂücher.example', 'https://xn--bcher-kva.example/'],
    ['xn--bcher-kva.example', 'https://bücher.example/'],
    ['*.bücher.example', 'https://api.xn--bcher-kva.example/'],
    ['bücher.example:8443', 'https://xn--bcher-kva.example:8443/'],
    ['API.Example.COM.', 'http://api.example.com./'],
    ['127.1', 'http://127.0.0.1:8080/'],
    ['[0:0::1]:3000', 'http://[::1]:3000/'],
  ])('%s allows %s', (entry, url) => {
    expect(allows([entry], url)).toBe(true);
  });

  it.each([
    ['bücher.example', 'https://bucher.example/'],
    ['bücher.example', 'https://xn--bcher-kva.example.evil/'],
    ['bücher.example', 'https://api.xn--bcher-kva.example/'],
    ['*.bücher.example', 'https://xn--bcher-kva.example/'],
    ['bücher.example:8443', 'https://xn--bcher-kva.example/'],
    ['гіѵаӏ.com', 'https://rival.com/'],
  ])('%s does not allow %s', (entry, url) => {
    expect(allows([entry], url)).toBe(false);
  });

  it.each(['rivаl.com', 'rival.cοm', 'xn--rivl-73d.com'])('refuses the entry %s, whose label mixes scripts, and never reaches such a host', (entry) => {
    expect(() => parseAllowEntry(entry)).toThrowError(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(isAllowed(new URL(`https://${entry}/`), [parseAllowEntry('*.com')])).toBe(false);
  });

  it('reaches a server by an entry in another form of its address (127.1)', async () => {
    const { call } = stdBridge({ workspaceDir: '/nonexistent', http: { allowHosts: [`127.1:${port}`] } });
    expect(valueOf(await call('http.request', { url: `${base}/json` }))).toMatchObject({ status: 200 });
  });
});
