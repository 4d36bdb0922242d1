import { call } from 'agent-spaces:bridge';
import { parse as parseJson } from './json.js';
import type { DirEntry, FileEncoding, FileStat, HashAlgorithm, HttpRequestInit, HttpResponse, HttpResponseData } from './types.js';

/** The capability id the host-backed functions are called under (`STD_CAPABILITY`). */
const STD = 'std';

/** Calls `std.<fn>` on the host with `params`, leaving out properties that are `undefined`. */
function host<T>(fn: string, params: Record<string, unknown>): Promise<T> {
  const defined: Record<string, unknown> = {};
  for (const key of Object.keys(params)) if (params[key] !== undefined) defined[key] = params[key];
  return call(STD, fn, defined) as Promise<T>;
}

/** Hashes and HMACs computed on the host, and random UUIDs. */
export const crypto = Object.freeze({
  /** Digest of `data` (UTF-8) as hex (default) or base64. */
  hash: (algorithm: HashAlgorithm, data: string, encoding?: 'hex' | 'base64') =>
    host<string>('crypto.hash', { algorithm, data, encoding }),
  /** HMAC of `data` with `key` (both UTF-8) as hex (default) or base64. */
  hmac: (algorithm: HashAlgorithm, key: string, data: string, encoding?: 'hex' | 'base64') =>
    host<string>('crypto.hmac', { algorithm, key, data, encoding }),
  /** A random RFC 4122 version 4 UUID. */
  randomUUID: () => host<string>('crypto.randomUUID', {}),
});

/** Files in the space's workspace folder; paths are relative to it and cannot leave it. */
export const fs = Object.freeze({
  readFile: (path: string, options: { encoding?: FileEncoding } = {}) =>
    host<string>('fs.readFile', { path, encoding: options.encoding }),
  writeFile: (path: string, data: string, options: { encoding?: FileEncoding } = {}) =>
    host<void>('fs.writeFile', { path, data, encoding: options.encoding }),
  appendFile: (path: string, data: string, options: { encoding?: FileEncoding } = {}) =>
    host<void>('fs.appendFile', { path, data, encoding: options.encoding }),
  readdir: (path = '.') => host<DirEntry[]>('fs.readdir', { path }),
  stat: (path: string) => host<FileStat>('fs.stat', { path }),
  mkdir: (path: string, options: { recursive?: boolean } = {}) => host<void>('fs.mkdir', { path, recursive: options.recursive }),
  rm: (path: string, options: { recursive?: boolean; force?: boolean } = {}) =>
    host<void>('fs.rm', { path, recursive: options.recursive, force: options.force }),
  exists: (path: string) => host<boolean>('fs.exists', { path }),
});

async function request(url: string, init: HttpRequestInit = {}): Promise<HttpResponse> {
  const data = await host<HttpResponseData>('http.request', {
    url,
    method: init.method,
    headers: init.headers,
    body: init.body,
    timeoutMs: init.timeoutMs,
  });
  return Object.freeze({
    ...data,
    ok: data.status >= 200 && data.status < 300,
    json: <T = unknown>() => parseJson<T>(data.body),
  });
}

/** HTTP requests made by the host, to hosts on the space's allow-list only. */
export const http = Object.freeze({
  request,
  get: (url: string, init: Omit<HttpRequestInit, 'method' | 'body'> = {}) => request(url, { ...init, method: 'GET' }),
  post: (url: string, body?: string | object, init: Omit<HttpRequestInit, 'method' | 'body'> = {}) => {
    if (body === undefined || typeof body === 'string') return request(url, { ...init, method: 'POST', body });
    const hasType = Object.keys(init.headers ?? {}).some((name) => name.toLowerCase() === 'content-type');
    const headers = hasType ? init.headers : { ...init.headers, 'content-type': 'application/json' };
    return request(url, { ...init, method: 'POST', headers, body: JSON.stringify(body) });
  },
});
