import { AgentSpacesError, STD_HTTP_METHODS, canonicalHost, readResponseBody, type StdHttpMethod } from '@agent-spaces/capabilities';
import type { HostFunction } from '@agent-spaces/bridge';
import type { HttpMethod, HttpResponseData } from '../sandbox/types.js';
import { stdFunction } from './define.js';

/** Resolved `http` settings of the std capability. */
export interface HttpSettings {
  allowHosts: readonly string[];
  methods: readonly StdHttpMethod[];
  timeoutMs: number;
  maxBytes: number;
}

type RequestParams = { url: string; method?: HttpMethod; headers?: Record<string, string>; body?: string; timeoutMs?: number };

const MAX_REDIRECTS = 5;
const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * `http.request` on the host. Only `http:`/`https:` URLs whose host is on the allow-list are fetched (every redirect
 * hop is checked too) with a method on `methods`; anything else fails with `ACCESS_DENIED` naming the host or method. The request gives up after the
 * timeout (`TIMEOUT`) and stops reading a body larger than `maxBytes` (`PAYLOAD_TOO_LARGE`).
 */
export function httpFunctions(settings: HttpSettings): HostFunction[] {
  const allowed = settings.allowHosts.map(parseAllowEntry);
  return [
    stdFunction<RequestParams>(
      'http.request',
      {
        type: 'object',
        properties: {
          url: { type: 'string' },
          method: { type: 'string', enum: [...STD_HTTP_METHODS] },
          headers: { type: 'object', additionalProperties: { type: 'string' } },
          body: { type: 'string' },
          timeoutMs: { type: 'number', exclusiveMinimum: 0 },
        },
        required: ['url'],
        additionalProperties: false,
      },
      async (params, context) => {
        const method = params.method ?? 'GET';
        if (!settings.methods.includes(method)) {
          throw new AgentSpacesError('ACCESS_DENIED', `http: ${method} is not an allowed method (std.http.methods: ${settings.methods.join(', ')})`, {
            method,
          });
        }
        const timeoutMs = Math.min(params.timeoutMs ?? settings.timeoutMs, settings.timeoutMs);
        const timeout = AbortSignal.timeout(timeoutMs);
        const signal = AbortSignal.any([context.signal, timeout]);
        try {
          return await fetchAllowed(params, allowed, settings.maxBytes, signal);
        } catch (error) {
          if (timeout.aborted && !context.signal.aborted) {
            throw new AgentSpacesError('TIMEOUT', `http: ${params.method ?? 'GET'} ${params.url} timed out after ${timeoutMs} ms`, {
              timeoutMs,
            });
          }
          throw error;
        }
      },
    ),
  ];
}

async function fetchAllowed(
  params: RequestParams,
  allowed: AllowEntry[],
  maxBytes: number,
  signal: AbortSignal,
): Promise<HttpResponseData> {
  let url = checkUrl(params.url, allowed);
  let method: string = params.method ?? 'GET';
  let body = params.body;
  for (let hop = 0; ; hop++) {
    let response: Response;
    try {
      response = await fetch(url, { method, ...(params.headers ? { headers: params.headers } : {}), body, redirect: 'manual', signal });
    } catch (error) {
      if (signal.aborted) throw error;
      throw new AgentSpacesError('HANDLER_ERROR', `http: ${method} ${url.href} failed: ${describeFetchError(error)}`, { url: url.href });
    }
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null) {
      const { text, over } = await readResponseBody(response, maxBytes);
      if (over) throw new AgentSpacesError('PAYLOAD_TOO_LARGE', `http: the response from ${url.host} is larger than ${maxBytes} bytes`, { maxBytes });
      return { url: url.href, status: response.status, statusText: response.statusText, headers: Object.fromEntries(response.headers), body: text };
    }
    await response.body?.cancel();
    if (hop === MAX_REDIRECTS) throw new AgentSpacesError('HANDLER_ERROR', `http: more than ${MAX_REDIRECTS} redirects from ${params.url}`);
    url = checkUrl(new URL(location, url).href, allowed);
    if (response.status === 303 || ((response.status === 301 || response.status === 302) && method === 'POST')) {
      method = 'GET';
      body = undefined;
    }
  }
}

interface AllowEntry {
  host: string;
  port: string | undefined;
  subdomains: boolean;
}

/**
 * Parses `example.com`, `*.example.com` (subdomains only), `example.com:8080`, `127.0.0.1`, `[::1]:3000`; the host as
 * `canonicalHost` gives it (`Bücher.example.` is `xn--bcher-kva.example`, as a URL's hostname writes it).
 */
export function parseAllowEntry(entry: string): AllowEntry {
  const m = /^(\*\.)?(\[[0-9a-f:.]+\]|[^:/\s[\]*]+)(?::(\d{1,5}))?$/i.exec(entry.trim());
  const host = m ? canonicalHost(m[2]!) : undefined;
  if (!m || host === undefined) {
    throw new AgentSpacesError('CONFIG_INVALID', `std.http.allowHosts: '${entry}' is not a host (example.com, *.example.com, host:port)`, {
      field: 'std.http.allowHosts',
      entry,
    });
  }
  return { subdomains: m[1] !== undefined, host, port: m[3] };
}

function checkUrl(text: string, allowed: AllowEntry[]): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new AgentSpacesError('INVALID_PARAMS', `http: '${text}' is not an absolute URL`, { url: text });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new AgentSpacesError('ACCESS_DENIED', `http: only http and https URLs are allowed, not ${url.protocol}`, { url: text });
  }
  if (!isAllowed(url, allowed)) {
    const list = allowed.length === 0 ? 'no hosts are allowed' : `allowed: ${allowed.map(formatEntry).join(', ')}`;
    throw new AgentSpacesError('ACCESS_DENIED', `http: host '${url.host}' is not on the allow-list (${list})`, { host: url.host });
  }
  return url;
}

/** Whether an entry of `allowed` lets `url` through: its host (canonical, as entries are) and port. */
export function isAllowed(url: URL, allowed: readonly AllowEntry[]): boolean {
  const host = canonicalHost(url.hostname);
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  return (
    host !== undefined &&
    allowed.some((entry) => (entry.port === undefined || entry.port === port) && (entry.subdomains ? host.endsWith(`.${entry.host}`) : host === entry.host))
  );
}

function formatEntry(entry: AllowEntry): string {
  return `${entry.subdomains ? '*.' : ''}${entry.host}${entry.port ? `:${entry.port}` : ''}`;
}

function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: { code?: unknown } }).cause;
  return typeof cause?.code === 'string' ? `${error.message} (${cause.code})` : error.message;
}
