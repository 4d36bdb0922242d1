import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentSpacesError, isAgentSpacesError, isRecord, type ErrorCode } from '@agent-spaces/capabilities';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { sendError } from '../approvals/http.js';
import { principalOf } from '../connection.js';
import { BodyTooLarge, readBodyText } from '../http-body.js';
import type { ActionServerAssignments } from './service.js';

/** Seed 003's routes, as it names them. */
const ROUTES = {
  '/action-servers/available': 'GET',
  '/agents/assign-action-server': 'POST',
  '/agents/remove-action-server': 'POST',
} as const;
/** Largest request body read (an agent name and a server name). */
const MAX_BODY_BYTES = 16 * 1024;
/** Longest `agent_name` / `action_server`. */
const MAX_NAME = 128;

/** True when `pathname` is one of the assignment routes. */
export function isAssignmentPath(pathname: string): pathname is keyof typeof ROUTES {
  return Object.hasOwn(ROUTES, pathname);
}

/**
 * Serves one request of the assignment API that passed the server's Host, Origin, token and rate checks (as
 * `/approvals`): `GET /action-servers/available`, `POST /agents/assign-action-server` and
 * `POST /agents/remove-action-server` with `{ agent_name, action_server }` (optional for removal). Errors are
 * `{ error: { code, message, data? } }`: 405 for another method, 415 for a body that is not `application/json`, 413
 * `PAYLOAD_TOO_LARGE` past 16 KiB, 400 `INVALID_ARGUMENTS` (bad JSON or fields, an unknown server), 404
 * `SPACE_NOT_FOUND` (an unknown agent), 403 `FORBIDDEN` (the principal may not assign).
 */
export async function serveAssignments(service: ActionServerAssignments, req: IncomingMessage, res: ServerResponse, pathname: keyof typeof ROUTES): Promise<void> {
  try {
    const method = ROUTES[pathname];
    if (req.method !== method) {
      res.setHeader('Allow', method);
      return sendError(res, 405, { code: 'INVALID_ARGUMENTS', message: `Method not allowed: ${String(req.method)} (this path takes ${method})`, data: { allow: method } });
    }
    if (method === 'GET') return sendJson(res, 200, await service.available());
    const principal = principalOf((req as { auth?: AuthInfo }).auth);
    // Refused before the body is read: a client that may not assign learns nothing more.
    service.authorize(principal);
    if (!isJson(req.headers['content-type'])) {
      return sendError(res, 415, { code: 'INVALID_ARGUMENTS', message: 'Unsupported Media Type: the request body must be application/json' });
    }
    const { agent_name, action_server } = fieldsOf(await readBody(req), pathname === '/agents/assign-action-server');
    const assignment =
      pathname === '/agents/assign-action-server'
        ? await service.assign(agent_name, action_server!, principal)
        : await service.remove(agent_name, action_server, principal);
    return sendJson(res, 200, { ok: true, ...assignment });
  } catch (error) {
    if (res.headersSent) return void res.end();
    sendError(res, statusOf(error), isAgentSpacesError(error) ? error.toWire() : { code: 'INTERNAL', message: `Internal error: ${(error as Error).message}` });
  }
}

/** `{ agent_name, action_server }` of a body, checked (`action_server` required when `serverRequired`). */
function fieldsOf(body: unknown, serverRequired: boolean): { agent_name: string; action_server?: string } {
  if (!isRecord(body)) throw invalid('The body must be a JSON object: { "agent_name": string, "action_server": string }');
  const unknownKey = Object.keys(body).find((key) => key !== 'agent_name' && key !== 'action_server');
  if (unknownKey !== undefined) throw invalid(`"${unknownKey.slice(0, 40)}" is not a known field (agent_name, action_server)`, unknownKey.slice(0, 40));
  const text = (field: 'agent_name' | 'action_server', required: boolean): string | undefined => {
    const value = body[field];
    if (value === undefined && !required) return undefined;
    if (typeof value !== 'string' || value === '' || value.length > MAX_NAME) throw invalid(`"${field}" must be a string of 1 to ${MAX_NAME} characters`, field);
    return value;
  };
  const agent = text('agent_name', true)!;
  const server = text('action_server', serverRequired);
  return server === undefined ? { agent_name: agent } : { agent_name: agent, action_server: server };
}

/** The body as JSON; 413 past {@link MAX_BODY_BYTES}, 400 when empty or not JSON. */
async function readBody(req: IncomingMessage): Promise<unknown> {
  let text: string;
  try {
    text = await readBodyText(req, MAX_BODY_BYTES);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    throw new AgentSpacesError('PAYLOAD_TOO_LARGE', `The request body is over ${MAX_BODY_BYTES} bytes`, { limit: MAX_BODY_BYTES });
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw invalid('The request body is not JSON');
  }
}

function isJson(contentType: string | undefined): boolean {
  return contentType?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(JSON.stringify(body));
}

const STATUS: Partial<Record<ErrorCode, number>> = { FORBIDDEN: 403, SPACE_NOT_FOUND: 404, INVALID_ARGUMENTS: 400, PAYLOAD_TOO_LARGE: 413, CONFIG_INVALID: 409 };

function statusOf(error: unknown): number {
  return (isAgentSpacesError(error) && STATUS[error.code]) || 500;
}

function invalid(message: string, field?: string): AgentSpacesError {
  return new AgentSpacesError('INVALID_ARGUMENTS', message, field ? { errors: [{ field, problem: message }] } : undefined);
}
