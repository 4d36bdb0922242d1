import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AgentSpacesError, type OpenApiExecutorSpec, type OpenApiOperationSpec } from '@agent-spaces/capabilities';
import { createOpenApiExecutor } from '../../src/executors/openapi.js';
import { readOpenApiExecutorSpec } from '../../src/executors/openapi-spec.js';

/** What the server saw of one request. */
interface Seen {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

/** A real HTTP server on 127.0.0.1 whose routes are plain functions; every request is recorded. */
const seen: Seen[] = [];
const counters = new Map<string, number>();
let server: Server;
let baseUrl: string;

function route(request: IncomingMessage, body: string, response: ServerResponse): void {
  const path = new URL(request.url ?? '/', 'http://x').pathname;
  const count = (counters.get(path) ?? 0) + 1;
  counters.set(path, count);
  const json = (status: number, value: unknown, headers: Record<string, string> = {}) => {
    response.writeHead(status, { 'content-type': 'application/json', ...headers });
    response.end(JSON.stringify(value));
  };
  switch (path) {
    case '/echo':
      return json(200, { method: request.method, url: request.url, body: body === '' ? null : JSON.parse(body) });
    case '/busy-seconds':
      return count === 1 ? json(503, { error: 'busy' }, { 'retry-after': '0' }) : json(200, { attempts: count });
    case '/busy-date':
      return count === 1 ? json(429, { error: 'slow down' }, { 'retry-after': new Date(Date.now() + 500).toUTCString() }) : json(200, { attempts: count });
    case '/busy-long':
      return json(503, { error: 'maintenance' }, { 'retry-after': '3600' });
    case '/always-busy':
      return json(503, { error: 'busy' }, { 'retry-after': '0' });
    case '/leak':
      return json(401, { error: `bad token ${String(request.headers.authorization)}`, key: new URL(request.url ?? '/', 'http://x').searchParams.get('key') });
    case '/slow':
      setTimeout(() => json(200, { late: true }), 2_000);
      return;
    case '/text':
      response.writeHead(200, { 'content-type': 'text/plain' });
      return void response.end('plain words');
    case '/empty':
      response.writeHead(204);
      return void response.end();
    default:
      return json(404, { error: 'no route' });
  }
}

beforeAll(async () => {
  server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk.toString()));
    request.on('end', () => {
      seen.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body });
      route(request, body, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function spec(operations: Record<string, OpenApiOperationSpec>, extra: Partial<OpenApiExecutorSpec> = {}): OpenApiExecutorSpec {
  return { kind: 'openapi', baseUrl, operations, ...extra };
}

const signal = () => ({ signal: new AbortController().signal });

async function failure(promise: Promise<unknown>): Promise<AgentSpacesError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AgentSpacesError);
  return error as AgentSpacesError;
}

describe('building the request', () => {
  it('encodes path parameters and serializes query, header and cookie parameters by style', async () => {
    const execute = createOpenApiExecutor(spec({ find: { method: 'GET', path: '/echo/{id}', params: [{ key: 'id', name: 'id', in: 'path' }] } }), {});
    // /echo/<id> is no route: the call fails with a 404, but the server saw the encoded path.
    expect((await failure(execute('find', { id: 'a/b c' }, signal()))).data).toMatchObject({ status: 404 });
    expect(seen.at(-1)!.url).toBe('/echo/a%2Fb%20c');

    const echo = createOpenApiExecutor(
      spec({
        find: {
          method: 'GET',
          path: '/echo',
          params: [
            { key: 'tags', name: 'tag', in: 'query' },
            { key: 'ids', name: 'ids', in: 'query', explode: false },
            { key: 'filter', name: 'filter', in: 'query', style: 'deepObject', explode: true },
            { key: 'requestId', name: 'X-Request-Id', in: 'header' },
            { key: 'session', name: 'session', in: 'cookie' },
          ],
        },
      }),
      {},
    );
    const result = (await echo(
      'find',
      { tags: ['a', 'b'], ids: [1, 2], filter: { state: 'open' }, requestId: 'r-1', session: 'x y', skipped: undefined },
      signal(),
    )) as { url: string };
    expect(decodeURIComponent(result.url)).toBe('/echo?tag=a&tag=b&ids=1,2&filter[state]=open');
    expect(seen.at(-1)!.headers['x-request-id']).toBe('r-1');
    expect(seen.at(-1)!.headers.cookie).toBe('session=x%20y');
  });

  it('sends the params that are not parameters as the JSON body in flat mode, params[key] in field mode', async () => {
    const execute = createOpenApiExecutor(
      spec({
        flat: { method: 'POST', path: '/echo', params: [{ key: 'dryRun', name: 'dry_run', in: 'query' }], body: { mode: 'flat', required: true } },
        field: { method: 'PUT', path: '/echo', params: [], body: { mode: 'field', key: 'body', required: true } },
        empty: { method: 'POST', path: '/echo', params: [], body: { mode: 'flat', required: false } },
      }),
      {},
    );
    expect(await execute('flat', { dryRun: true, title: 'Milk', done: false }, signal())).toEqual({
      method: 'POST',
      url: '/echo?dry_run=true',
      body: { title: 'Milk', done: false },
    });
    expect(seen.at(-1)!.headers['content-type']).toBe('application/json');
    expect(await execute('field', { body: [1, 2] }, signal())).toMatchObject({ method: 'PUT', body: [1, 2] });
    expect(await execute('empty', {}, signal())).toMatchObject({ body: null });
  });

  it('refuses a call without its path parameter, and an unknown function', async () => {
    const execute = createOpenApiExecutor(spec({ get: { method: 'GET', path: '/echo/{id}', params: [{ key: 'id', name: 'id', in: 'path' }] } }), {});
    expect((await failure(execute('get', {}, signal()))).code).toBe('INVALID_PARAMS');
    expect((await failure(execute('nope', {}, signal()))).code).toBe('FUNCTION_NOT_FOUND');
  });

  it('returns a non-JSON body as text and an empty body as null', async () => {
    const execute = createOpenApiExecutor(
      spec({ text: { method: 'GET', path: '/text', params: [] }, empty: { method: 'DELETE', path: '/empty', params: [] } }),
      {},
    );
    expect(await execute('text', {}, signal())).toBe('plain words');
    expect(await execute('empty', {}, signal())).toBeNull();
  });
});

describe('auth from ${VAR} secrets', () => {
  const leak = { leak: { method: 'GET', path: '/leak', params: [] } };

  it('sends a bearer token and redacts it from the HttpError', async () => {
    const execute = createOpenApiExecutor(spec(leak, { auth: { type: 'bearer', token: '${TODO_TOKEN}' } }), { TODO_TOKEN: 'sekret-123' });
    const error = await failure(execute('leak', {}, signal()));
    expect(seen.at(-1)!.headers.authorization).toBe('Bearer sekret-123');
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.data).toMatchObject({ kind: 'http', status: 401, method: 'GET', path: '/leak' });
    expect(JSON.stringify(error.data) + error.message).not.toContain('sekret-123');
    expect(String(error.data?.body)).toContain('[REDACTED:TODO_TOKEN]');
  });

  it('sends an API key in the query and redacts it from the URL and body', async () => {
    const execute = createOpenApiExecutor(spec(leak, { auth: { type: 'apiKey', in: 'query', name: 'key', value: '${API_KEY}' } }), { API_KEY: 'k-999999' });
    const error = await failure(execute('leak', {}, signal()));
    expect(seen.at(-1)!.url).toBe('/leak?key=k-999999');
    expect(JSON.stringify(error.data)).not.toContain('k-999999');
    expect(error.data?.url).toContain('[REDACTED:API_KEY]');
  });

  it('sends an API key header and basic credentials', async () => {
    const header = createOpenApiExecutor(spec(leak, { auth: { type: 'apiKey', in: 'header', name: 'X-Api-Key', value: '${API_KEY}' } }), { API_KEY: 'k-1' });
    await failure(header('leak', {}, signal()));
    expect(seen.at(-1)!.headers['x-api-key']).toBe('k-1');
    const basic = createOpenApiExecutor(spec(leak, { auth: { type: 'basic', username: 'ada', password: '${PASSWORD}' } }), { PASSWORD: 'hunter22' });
    const error = await failure(basic('leak', {}, signal()));
    const encoded = Buffer.from('ada:hunter22').toString('base64');
    expect(seen.at(-1)!.headers.authorization).toBe(`Basic ${encoded}`);
    expect(JSON.stringify(error.data)).not.toContain(encoded);
  });

  it('fails with data.kind "secret" naming the variable when it is not set', async () => {
    const execute = createOpenApiExecutor(spec(leak, { headers: { 'X-Tenant': '${TENANT}' } }), {});
    const error = await failure(execute('leak', {}, signal()));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.data).toMatchObject({ kind: 'secret', variable: 'TENANT' });
  });
});

describe('retries and timeouts', () => {
  const busy = (path: string, method = 'POST') => ({ op: { method, path, params: [] } });

  it('retries a 503 honouring Retry-After in seconds, on any method', async () => {
    const execute = createOpenApiExecutor(spec(busy('/busy-seconds')), {});
    expect(await execute('op', {}, signal())).toEqual({ attempts: 2 });
  });

  it('retries a 429 honouring Retry-After as an HTTP date', async () => {
    const execute = createOpenApiExecutor(spec(busy('/busy-date')), {});
    expect(await execute('op', {}, signal())).toEqual({ attempts: 2 });
  });

  it('gives up after maxTries with the last HttpError', async () => {
    const before = seen.filter((s) => s.url === '/always-busy').length;
    const error = await failure(createOpenApiExecutor(spec(busy('/always-busy')), {})('op', {}, signal()));
    expect(error.data).toMatchObject({ kind: 'http', status: 503, attempts: 3 });
    expect(seen.filter((s) => s.url === '/always-busy').length - before).toBe(3);
  });

  it('does not wait for a Retry-After longer than maxRetryAfterMs', async () => {
    const error = await failure(createOpenApiExecutor(spec(busy('/busy-long')), {}, { maxRetryAfterMs: 1000 })('op', {}, signal()));
    expect(error.data).toMatchObject({ status: 503, attempts: 1 });
  });

  it('retries network errors for idempotent methods only', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const dead = { kind: 'openapi' as const, baseUrl: `http://127.0.0.1:${port}`, operations: { get: { method: 'GET', path: '/', params: [] }, post: { method: 'POST', path: '/', params: [] } } };
    const execute = createOpenApiExecutor(dead, {}, { baseDelayMs: 10 });
    expect((await failure(execute('get', {}, signal()))).data).toMatchObject({ kind: 'network', attempts: 3 });
    expect((await failure(execute('post', {}, signal()))).data).toMatchObject({ kind: 'network', attempts: 1 });
  });

  it('ends a call at its deadline with TIMEOUT, and with ABORTED when the run aborts', async () => {
    const execute = createOpenApiExecutor(spec(busy('/slow', 'GET')), {}, { timeoutMs: 200 });
    const started = Date.now();
    expect((await failure(execute('op', {}, signal()))).code).toBe('TIMEOUT');
    expect(Date.now() - started).toBeLessThan(200 + 1_500);
    const controller = new AbortController();
    const call = execute('op', {}, { signal: controller.signal });
    controller.abort();
    expect((await failure(call)).code).toBe('ABORTED');
  });
});

describe('reading the executor from meta.json', () => {
  const fail = (pointer: string, problem: string): never => {
    throw new AgentSpacesError('INVALID_DEFINITION', `${pointer} ${problem}`, { pointer });
  };
  const valid = {
    kind: 'openapi',
    baseUrl: 'http://127.0.0.1:1/api',
    operations: { getTodo: { method: 'GET', path: '/todos/{id}', params: [{ key: 'id', name: 'id', in: 'path' }] } },
    auth: { type: 'bearer', token: '${TOKEN}' },
  };

  it('returns a valid spec typed and unchanged', () => {
    expect(readOpenApiExecutorSpec(valid, fail)).toEqual(valid);
  });

  it('fails with the pointer of the first bad field', () => {
    const pointerOf = (raw: Record<string, unknown>) => {
      try {
        readOpenApiExecutorSpec(raw, fail);
      } catch (error) {
        return (error as AgentSpacesError).data?.pointer;
      }
      return undefined;
    };
    expect(pointerOf({ ...valid, baseUrl: 'ftp://x' })).toBe('/baseUrl');
    expect(pointerOf({ ...valid, operations: { getTodo: { method: 'GET', path: '/t', params: [{ key: 'id', name: 'id', in: 'body' }] } } })).toBe(
      '/operations/getTodo/params/0/in',
    );
    expect(pointerOf({ ...valid, auth: { type: 'oauth' } })).toBe('/auth/type');
  });
});
