// Bodies of the HTTP and OpenAPI executors against a real server on 127.0.0.1: a response body is read with a cap
// (PAYLOAD_TOO_LARGE, the rest never read), and params JSON cannot carry are INVALID_PARAMS before anything is sent.
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAgentSpacesError, type HandlerContext, type OpenApiExecutorSpec } from '@agent-spaces/capabilities';
import { MAX_RESPONSE_BYTES } from '../../src/executors/bodies.js';
import { httpExecutor } from '../../src/executors/http.js';
import { createOpenApiExecutor } from '../../src/executors/openapi.js';

const CHUNK = 64 * 1024;
const HUGE = 64 * 1024 * 1024;
let server: Server;
let baseUrl: string;
/** Per path: how many requests came, and how many body bytes the server had sent when each response closed. */
const requests = new Map<string, number>();
const sentWhenClosed: number[] = [];

/** Writes `total` bytes of JSON-ish text in chunks, as fast as the client reads; records how far it got. */
function stream(response: ServerResponse, status: number, total: number): void {
  response.writeHead(status, { 'content-type': 'application/json' });
  const chunk = Buffer.alloc(CHUNK, 'x');
  let sent = 0;
  response.on('close', () => sentWhenClosed.push(sent));
  const write = (): void => {
    while (sent < total && !response.destroyed) {
      sent += CHUNK;
      if (!response.write(chunk)) return void response.once('drain', write);
    }
    response.end();
  };
  write();
}

beforeAll(async () => {
  server = createServer((request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    requests.set(path, (requests.get(path) ?? 0) + 1);
    request.resume();
    request.on('end', () => {
      switch (path) {
        case '/huge':
          return stream(response, 200, HUGE);
        case '/huge-error':
          return stream(response, 500, HUGE);
        case '/declared':
          response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(HUGE) });
          return void response.write('{"a":');
        case '/small':
          response.writeHead(200, { 'content-type': 'application/json' });
          return void response.end('{"ok":true}');
        default:
          response.writeHead(404);
          return void response.end();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const signal = new AbortController().signal;
const context: HandlerContext = { capability: 'api', function: 'get', signal, progress: () => undefined };

function openApi(path: string, method = 'get'): OpenApiExecutorSpec {
  return { kind: 'openapi', baseUrl, operations: { call: { method, path, params: [], ...(method === 'post' ? { body: { mode: 'flat', required: false } } : {}) } } } as OpenApiExecutorSpec;
}

async function failure(promise: Promise<unknown>): Promise<{ code: string; message: string; data: Record<string, unknown> }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  );
  if (!isAgentSpacesError(error)) throw new Error(`expected an AgentSpacesError, got ${String(error)}`);
  return { code: error.code, message: error.message, data: (error.data ?? {}) as Record<string, unknown> };
}

/** Waits until the server has seen the response it streams close (the client stopped reading), and returns how far it got. */
async function closedAfter(count: number): Promise<number> {
  while (sentWhenClosed.length < count) await new Promise((resolve) => setTimeout(resolve, 10));
  return sentWhenClosed[count - 1]!;
}

describe('response bodies are read with a cap', () => {
  it('OpenAPI: a body past maxResponseBytes is PAYLOAD_TOO_LARGE, and the rest is never read', async () => {
    const closed = sentWhenClosed.length;
    const run = createOpenApiExecutor(openApi('/huge'), {}, { maxResponseBytes: 256 * 1024, maxTries: 1 });
    const error = await failure(run('call', {}, { signal }));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.data).toMatchObject({ limit: 256 * 1024, direction: 'result', method: 'GET', path: '/huge' });
    expect(await closedAfter(closed + 1)).toBeLessThan(HUGE);
  });

  it('OpenAPI: a content-length past the cap is refused without reading the body', async () => {
    const run = createOpenApiExecutor(openApi('/declared'), {}, { maxResponseBytes: 1024, maxTries: 1 });
    expect((await failure(run('call', {}, { signal }))).code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('OpenAPI: a huge error body still gives the HttpError with its excerpt', async () => {
    const closed = sentWhenClosed.length;
    const run = createOpenApiExecutor(openApi('/huge-error'), {}, { maxTries: 1, bodyExcerptLength: 100 });
    const error = await failure(run('call', {}, { signal }));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.data).toMatchObject({ kind: 'http', status: 500, body: 'x'.repeat(100) });
    expect(await closedAfter(closed + 1)).toBeLessThan(HUGE);
  });

  it('OpenAPI: a body under the cap is read whole', async () => {
    const run = createOpenApiExecutor(openApi('/small'), {});
    expect(await run('call', {}, { signal })).toEqual({ ok: true });
  });

  it(`http executor: a body past ${MAX_RESPONSE_BYTES} bytes is PAYLOAD_TOO_LARGE, and the rest is never read`, async () => {
    const closed = sentWhenClosed.length;
    const execute = httpExecutor({ url: `${baseUrl}/huge` }, { id: 'api', exportName: 'api', dir: '', handlers: undefined, mcp: undefined }).execute({ name: 'get', sourceName: 'get' });
    const error = await failure(execute({}, context));
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.data).toMatchObject({ limit: MAX_RESPONSE_BYTES, direction: 'result' });
    expect(await closedAfter(closed + 1)).toBeLessThan(HUGE);
  });

  it('http executor: a huge error body gives HANDLER_ERROR with a short excerpt', async () => {
    const execute = httpExecutor({ url: `${baseUrl}/huge-error` }, { id: 'api', exportName: 'api', dir: '', handlers: undefined, mcp: undefined }).execute({ name: 'get', sourceName: 'get' });
    const error = await failure(execute({}, context));
    expect(error.code).toBe('HANDLER_ERROR');
    expect(error.data).toMatchObject({ status: 500, body: 'x'.repeat(1000) });
  });
});

describe('params JSON cannot carry', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    ['a bigint', { id: 7n }, 'params/id is a bigint'],
    ['a nested bigint', { filter: { ids: [1, 2n] } }, 'params/filter/ids/1 is a bigint'],
    ['NaN', { limit: NaN }, 'params/limit is NaN'],
    ['Infinity', { limit: Infinity }, 'params/limit is Infinity'],
    ['a Map', { tags: new Map([['a', 1]]) }, 'params/tags is a Map'],
    ['a Set', { tags: new Set(['a']) }, 'params/tags is a Set'],
    ['bytes', { blob: new Uint8Array([1]) }, 'params/blob is binary data'],
  ];

  it.each(cases)('OpenAPI: %s is INVALID_PARAMS naming the field, and nothing is sent', async (_, params, message) => {
    const before = requests.get('/small') ?? 0;
    const run = createOpenApiExecutor(openApi('/small', 'post'), {});
    const error = await failure(run('call', params, { signal }));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain(message);
    expect(requests.get('/small') ?? 0).toBe(before);
  });

  it.each(cases)('http executor: %s is INVALID_PARAMS naming the field, and nothing is sent', async (_, params, message) => {
    const before = requests.get('/small') ?? 0;
    const execute = httpExecutor({ url: `${baseUrl}/small` }, { id: 'api', exportName: 'api', dir: '', handlers: undefined, mcp: undefined }).execute({ name: 'get', sourceName: 'get' });
    const error = await failure(execute(params, context));
    expect(error.code).toBe('INVALID_PARAMS');
    expect(error.message).toContain(message);
    expect(requests.get('/small') ?? 0).toBe(before);
  });
});
