import { setTimeout as delay } from 'node:timers/promises';
import {
  AgentSpacesError,
  UserCredentials,
  checkJsonParams,
  readResponseBody,
  userPlaceholderNames,
  type OpenApiExecutorSpec,
  type Principal,
} from '@agent-spaces/capabilities';
import { bodyTooLarge, MAX_RESPONSE_BYTES } from './bodies.js';
import type { Executor } from './executor.js';
import { prepareRequest, redact, type PreparedRequest, type SecretEnv } from './openapi-request.js';

export type { SecretEnv } from './openapi-request.js';

/** Tuning of {@link createOpenApiExecutor}; every field has a default. */
export interface OpenApiExecutorOptions {
  /** Deadline of one call, retries and waits included (default 30 000 ms). */
  timeoutMs?: number;
  /** Attempts per call, the first included (default 3). */
  maxTries?: number;
  /** First backoff delay; doubled on each retry (default 200 ms). */
  baseDelayMs?: number;
  /** A `Retry-After` longer than this (or than the time left) ends the call with the error instead (default 30 000 ms). */
  maxRetryAfterMs?: number;
  /** Characters of a failed response's body kept in the error (default 1 000). */
  bodyExcerptLength?: number;
  /** Most bytes of a response body read; a longer one is not read and fails the call `PAYLOAD_TOO_LARGE` (default 10 MiB). */
  maxResponseBytes?: number;
}

/** Executes one function of an `openapi` capability; resolves with the decoded response body. */
export type OpenApiExecutor = (functionName: string, params: unknown, context: { signal?: AbortSignal; principal?: Principal | undefined }) => Promise<unknown>;

/** Methods retried after a network error: repeating them cannot apply a change twice. */
const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** Statuses retried on any method: the server says it did not process the request. */
const RETRY_STATUSES = new Set([429, 503]);

/**
 * Creates the executor of an `openapi` capability (see `docs/openapi.md`). Each call builds the request with Node's
 * fetch (secrets resolved from `env` at call time), bounded by the run's signal and a per-call deadline; idempotent
 * methods are retried on network errors and every method on 429/503 honouring `Retry-After`, with exponential backoff,
 * at most `maxTries` attempts. A non-2xx answer is an `HttpError`: `AgentSpacesError('HANDLER_ERROR')` with
 * `data: { kind: 'http', status, method, path, url, body }`, secrets replaced by `[REDACTED:VAR]`. Params JSON cannot
 * carry (a bigint) fail with `INVALID_PARAMS`; a response body past `maxResponseBytes` is not read and fails the call
 * with `PAYLOAD_TOO_LARGE`. `${user:NAME}` in `auth` and `headers` is `context.principal`'s own secret from
 * `userSecrets` (`CREDENTIAL_MISSING`, and nothing is sent, when it has none).
 * @example
 * const execute = createOpenApiExecutor(meta.executor, process.env);
 * const todo = await execute('getTodo', { id: 7 }, { signal });
 */
export function createOpenApiExecutor(
  spec: OpenApiExecutorSpec,
  env: SecretEnv = process.env,
  options: OpenApiExecutorOptions = {},
  userSecrets: UserCredentials = new UserCredentials(undefined),
): OpenApiExecutor {
  const userNames = userPlaceholderNames([spec.auth, spec.headers]);
  const settings = {
    timeoutMs: options.timeoutMs ?? 30_000,
    maxTries: Math.max(1, options.maxTries ?? 3),
    baseDelayMs: options.baseDelayMs ?? 200,
    maxRetryAfterMs: options.maxRetryAfterMs ?? 30_000,
    bodyExcerptLength: options.bodyExcerptLength ?? 1_000,
    maxResponseBytes: options.maxResponseBytes ?? MAX_RESPONSE_BYTES,
  };
  return async (functionName, params, context) => {
    const operation = Object.hasOwn(spec.operations, functionName) ? spec.operations[functionName] : undefined;
    if (!operation) {
      throw new AgentSpacesError('FUNCTION_NOT_FOUND', `No OpenAPI operation for function "${functionName}"`, { function: functionName });
    }
    if (typeof params !== 'object' || params === null || Array.isArray(params)) {
      if (params !== undefined) throw new AgentSpacesError('INVALID_PARAMS', `Params of "${functionName}" must be an object`, { function: functionName });
    }
    checkJsonParams(params, functionName);
    const user = userNames.length > 0 ? await userSecrets.resolve(context.principal, userNames, `OpenAPI ${spec.baseUrl}`) : undefined;
    const request = prepareRequest(spec, operation, (params ?? {}) as Record<string, unknown>, env, user);
    return send(request, operation.path, settings, context.signal);
  };
}

/** The `openapi` executor in the loader's {@link Executor} shape: each function runs the operation stored under its name. */
export function openApiExecutor(
  spec: OpenApiExecutorSpec,
  env: SecretEnv = process.env,
  options: OpenApiExecutorOptions = {},
  userSecrets?: UserCredentials,
): Executor {
  const run = createOpenApiExecutor(spec, env, options, userSecrets);
  return { execute: (fn) => (params, context) => run(fn.name, params, context) };
}

type Settings = Required<OpenApiExecutorOptions>;

async function send(request: PreparedRequest, path: string, settings: Settings, runSignal: AbortSignal | undefined): Promise<unknown> {
  const { method } = request.init;
  const deadline = Date.now() + settings.timeoutMs;
  const timeout = AbortSignal.timeout(settings.timeoutMs);
  const signal = runSignal ? AbortSignal.any([runSignal, timeout]) : timeout;
  const where = { method, path, url: redact(request.url.href, request.secrets) };
  const stopped = (cause: unknown): AgentSpacesError =>
    runSignal?.aborted
      ? new AgentSpacesError('ABORTED', `${method} ${path} was aborted`, { kind: 'http', ...where }, { cause })
      : new AgentSpacesError('TIMEOUT', `${method} ${path} did not finish within ${settings.timeoutMs} ms`, { kind: 'http', ...where, timeoutMs: settings.timeoutMs }, { cause });

  for (let attempt = 1; ; attempt++) {
    const backoff = settings.baseDelayMs * 2 ** (attempt - 1);
    let response: Response;
    try {
      response = await fetch(request.url, { ...request.init, signal });
    } catch (error) {
      if (signal.aborted) throw stopped(error);
      if (IDEMPOTENT.has(method) && attempt < settings.maxTries && backoff < deadline - Date.now()) {
        await delay(backoff, undefined, { signal }).catch((cause: unknown) => {
          throw stopped(cause);
        });
        continue;
      }
      const reason = redact(errorText(error), request.secrets);
      throw new AgentSpacesError('HANDLER_ERROR', `${method} ${path} failed: ${reason}`, { kind: 'network', ...where, attempts: attempt, reason }, { cause: error });
    }

    let read: { text: string; over: boolean };
    try {
      // A failed answer is read only as far as its excerpt.
      read = response.ok ? await readResponseBody(response, settings.maxResponseBytes) : await readResponseBody(response, settings.bodyExcerptLength * 4, true);
    } catch (error) {
      throw signal.aborted ? stopped(error) : new AgentSpacesError('HANDLER_ERROR', `${method} ${path}: reading the response failed`, { kind: 'network', ...where }, { cause: error });
    }
    const { text } = read;
    if (response.ok && read.over) throw bodyTooLarge(`${method} ${path}`, settings.maxResponseBytes, { kind: 'http', status: response.status, ...where });
    if (response.ok) return decode(text, response, method, path, request);

    const wait = RETRY_STATUSES.has(response.status) ? retryDelay(response.headers.get('retry-after'), backoff) : undefined;
    if (wait !== undefined && attempt < settings.maxTries && wait <= settings.maxRetryAfterMs && wait < deadline - Date.now()) {
      await delay(wait, undefined, { signal }).catch((cause: unknown) => {
        throw stopped(cause);
      });
      continue;
    }
    const body = redact(text.slice(0, settings.bodyExcerptLength), request.secrets);
    const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    throw new AgentSpacesError('HANDLER_ERROR', `${method} ${path} answered ${status}${body ? `: ${body.slice(0, 200)}` : ''}`, {
      kind: 'http',
      status: response.status,
      ...where,
      body,
      attempts: attempt,
    });
  }
}

/** An empty body is `null`, a JSON one is parsed, anything else is returned as text. */
function decode(text: string, response: Response, method: string, path: string, request: PreparedRequest): unknown {
  if (text.trim() === '') return null;
  if (!/[/+]json\b/i.test(response.headers.get('content-type') ?? '')) return text;
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new AgentSpacesError('HANDLER_ERROR', `${method} ${path} answered invalid JSON`, {
      kind: 'decode',
      status: response.status,
      method,
      path,
      body: redact(text.slice(0, 200), request.secrets),
    }, { cause: error });
  }
}

/** Milliseconds to wait per `Retry-After` (delta-seconds or an HTTP date); the backoff when absent or unreadable. */
function retryDelay(header: string | null, backoff: number): number {
  if (header === null) return backoff;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? backoff : Math.max(0, date - Date.now());
}


function errorText(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? `: ${error.cause.message}` : '';
  return `${error.message}${cause}`;
}
