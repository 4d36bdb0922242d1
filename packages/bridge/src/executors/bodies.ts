import { AgentSpacesError } from '@agent-spaces/capabilities';

/** Most bytes of a response body the HTTP and OpenAPI executors read by default (10 MiB, as the MCP stdio client). */
export const MAX_RESPONSE_BYTES = 10 * 1024 * 1024;

/** `PAYLOAD_TOO_LARGE` for a response body over `limit` bytes; `what` names the request (`GET /todos`). */
export function bodyTooLarge(what: string, limit: number, data: Record<string, unknown>): AgentSpacesError {
  return new AgentSpacesError('PAYLOAD_TOO_LARGE', `${what} answered a body larger than ${limit} bytes; it was not read`, {
    ...data,
    limit,
    direction: 'result',
  });
}
