import {
  AgentSpacesError,
  UserCredentials,
  checkJsonParams,
  expandPlaceholders,
  expandUserPlaceholders,
  readResponseBody,
  userPlaceholderNames,
  type PlaceholderEnv,
} from '@agent-spaces/capabilities';
import { bodyTooLarge, MAX_RESPONSE_BYTES } from './bodies.js';
import type { Executor, ExecutorContext, FunctionRef } from './executor.js';

const MAX_BODY_IN_ERROR = 1000;

/**
 * The `http` executor: `POST <url>` with JSON `{ capability: <id>, function: <sourceName>, params }` and the spec's
 * headers. A 2xx JSON response body is the result (a non-JSON one is returned as text, an empty one as `null`);
 * any other status fails the call with `HANDLER_ERROR` carrying `status`. Params JSON cannot carry (a bigint) fail with
 * `INVALID_PARAMS`; a body past 10 MiB is not read and fails with `PAYLOAD_TOO_LARGE`. `${VAR}` and `${VAR:-default}` in a header
 * value are read from `env` (default `process.env`) at call time, on the host only; `${user:NAME}` is the calling
 * principal's own secret (`context.userSecrets`; `CREDENTIAL_MISSING` without it, and nothing is sent).
 */
export function httpExecutor(
  spec: { url: string; headers?: Record<string, string> },
  context: ExecutorContext,
  env: PlaceholderEnv = process.env,
): Executor {
  const userNames = userPlaceholderNames(spec.headers ?? {});
  const credentials = context.userSecrets ?? new UserCredentials(undefined);
  return {
    execute: (fn: FunctionRef) => async (params, handlerContext) => {
      checkJsonParams(params, `${context.id}.${fn.name}`);
      const user = userNames.length > 0 ? await credentials.resolve(handlerContext.principal, userNames, `capability '${context.id}'`) : new Map<string, string>();
      const headers = { 'content-type': 'application/json', accept: 'application/json', ...expandHeaders(spec.headers ?? {}, env, user) };
      let response: Response;
      try {
        response = await fetch(spec.url, {
          method: 'POST',
          headers,
          body: JSON.stringify({ capability: context.id, function: fn.sourceName, params }),
          signal: handlerContext.signal,
        });
      } catch (error) {
        if (handlerContext.signal.aborted) throw error;
        throw new AgentSpacesError('HANDLER_ERROR', `POST ${spec.url} failed: ${describeFetchError(error)}`, { url: spec.url });
      }
      if (!response.ok) {
        const { text } = await readResponseBody(response, MAX_BODY_IN_ERROR, true);
        throw new AgentSpacesError('HANDLER_ERROR', `POST ${spec.url} answered ${response.status} ${response.statusText}`.trim(), {
          url: spec.url,
          status: response.status,
          body: text,
        });
      }
      const { text, over } = await readResponseBody(response, MAX_RESPONSE_BYTES);
      if (over) throw bodyTooLarge(`POST ${spec.url}`, MAX_RESPONSE_BYTES, { url: spec.url, status: response.status });
      if (text === '') return null;
      if (!(response.headers.get('content-type') ?? '').includes('json')) return text;
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        if (handlerContext.signal.aborted) throw error;
        throw new AgentSpacesError('HANDLER_ERROR', `POST ${spec.url} answered invalid JSON: ${(error as Error).message}`, {
          url: spec.url,
          status: response.status,
        });
      }
    },
  };
}

function describeFetchError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = (error as { cause?: unknown }).cause;
  const code = typeof cause === 'object' && cause !== null ? (cause as { code?: unknown }).code : undefined;
  return typeof code === 'string' ? `${error.message} (${code})` : error.message;
}

/** The headers with `${VAR}` expanded from `env` and `${user:NAME}` from `user` (resolved, so always there). */
function expandHeaders(headers: Record<string, string>, env: PlaceholderEnv, user: ReadonlyMap<string, string>): Record<string, string> {
  const expanded: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const fromEnv = (segment: string) =>
      expandPlaceholders(segment, env, (variable) => {
        throw new AgentSpacesError('HANDLER_ERROR', `Environment variable ${variable} (used by header ${name}) is not set`, { variable, header: name });
      });
    expanded[name] = expandUserPlaceholders(value, fromEnv, (secret) => user.get(secret)!);
  }
  return expanded;
}
