import { AgentSpacesError, jsonProblem } from '@agent-spaces/capabilities';

/** Most bytes of a response body the HTTP and OpenAPI executors read by default (10 MiB, as the MCP stdio client). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/**
 * The text of `response`'s body (UTF-8, as `response.text()` decodes it), reading at most `limit` bytes: past that the
 * rest is not read (the stream is cancelled) and `over` is true with the first `limit` bytes. When `content-length`
 * already says the body is longer, nothing is read unless `prefix` asks for those first bytes (an error's excerpt).
 * Rejects as the stream does (an abort, a dropped connection).
 */
export async function readBody(response: Response, limit: number, prefix = false): Promise<{ text: string; over: boolean }> {
  const declared = Number(response.headers.get('content-length') ?? NaN);
  if (!response.body || (declared > limit && !prefix)) {
    await response.body?.cancel().catch(() => undefined);
    return { text: '', over: declared > limit };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (size + value.byteLength > limit) {
      chunks.push(value.subarray(0, limit - size));
      await reader.cancel().catch(() => undefined);
      return { text: decode(chunks), over: true };
    }
    chunks.push(value);
    size += value.byteLength;
  }
  return { text: decode(chunks), over: false };
}

/** `PAYLOAD_TOO_LARGE` for a response body over `limit` bytes; `what` names the request (`GET /todos`). */
export function bodyTooLarge(what: string, limit: number, data: Record<string, unknown>): AgentSpacesError {
  return new AgentSpacesError('PAYLOAD_TOO_LARGE', `${what} answered a body larger than ${limit} bytes; it was not read`, {
    ...data,
    limit,
    direction: 'result',
  });
}

/**
 * Throws `INVALID_PARAMS` naming the field when `params` hold what JSON cannot carry (a bigint, a `Map`, `NaN`…), for
 * executors that send params as JSON: `JSON.stringify` would throw, or send something else.
 */
export function checkJsonParams(params: unknown, what: string): void {
  const problem = jsonProblem(params);
  if (problem) {
    throw new AgentSpacesError('INVALID_PARAMS', `Invalid params for ${what}: params${problem.path} ${problem.message}`, {
      errors: [problem],
    });
  }
}

function decode(chunks: readonly Uint8Array[]): string {
  return new TextDecoder().decode(Buffer.concat(chunks));
}
