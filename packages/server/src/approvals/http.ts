import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentSpacesError, isAgentSpacesError, isRecord, type ErrorCode, type WireError } from '@agent-spaces/capabilities';
import type { ApprovalService, ServiceAnswer } from '@agent-spaces/bridge';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { principalOf } from '../connection.js';
import { BodyTooLarge, readBodyText } from '../http-body.js';

/** The path of the approvals API: `GET /approvals`, `GET /approvals/<id>`, `POST /approvals/<id>/approve|deny`. */
const APPROVALS_PATH = '/approvals';
/** The header the console sets on its requests, so that its answers are audited as coming `from` the console. */
const CLIENT_HEADER = 'x-agent-spaces-client';
/** Largest request body the API reads (an answer is a name and a reason). */
const MAX_BODY_BYTES = 16 * 1024;
/** Longest `by`, `reason` and `from` an answer may carry. */
const MAX_TEXT = 200;
/** Ids a request may have (as the file store's): anything else names no request and never reaches the store. */
const SAFE_ID = /^[A-Za-z0-9_-]{1,128}$/;

/** True when `pathname` belongs to the approvals API. */
export function isApprovalsPath(pathname: string): boolean {
  return pathname === APPROVALS_PATH || pathname.startsWith(`${APPROVALS_PATH}/`);
}

/** One route of the API, from the request's path. */
type Route = { kind: 'list' } | { kind: 'show'; id: string } | { kind: 'answer'; id: string; approved: boolean } | { kind: 'none'; id?: string };

/**
 * Serves one request of the approvals API that passed the server's Host, Origin, token and rate checks: JSON in and
 * out, errors as `{ error: { code, message, data? } }` — 404 `APPROVAL_NOT_FOUND` for an id no request has (ids that
 * could not name a request file are refused here, before the store), 409 `APPROVAL_ANSWERED`, 400
 * `INVALID_ARGUMENTS` for a body that is not `{ by?, reason?, from? }` with strings of at most 200 characters, 413
 * `PAYLOAD_TOO_LARGE` past 16 KiB, 403 `APPROVER_NOT_ALLOWED`, 405 for another method. An answer is audited with
 * `by` (default `http client`; a proven user's principal id, `user:bob`) and `from`: `console <address>` for the
 * console's requests, else `http <address>`, after the `from` the client gave (`cli on host-1 via http 127.0.0.1`).
 * The client is the principal of its credentials (`req.auth`, set by the front door): it lists and sees the requests
 * it made or may answer, and answers only those the request's `approvers` allow.
 */
export async function serveApprovals(service: ApprovalService, req: IncomingMessage, res: ServerResponse, pathname: string): Promise<void> {
  try {
    const route = routeOf(pathname);
    const client = principalOf((req as { auth?: AuthInfo }).auth);
    switch (route.kind) {
      case 'none':
        return sendError(res, 404, notFound(route.id));
      case 'list':
        if (!allowed(req, res, 'GET')) return;
        return sendJson(res, 200, { approvals: await service.list(client) });
      case 'show':
        if (!allowed(req, res, 'GET')) return;
        return sendJson(res, 200, await service.show(route.id, client));
      case 'answer': {
        if (!allowed(req, res, 'POST')) return;
        const answer = answerOf(await readBody(req), route.approved, req);
        return sendJson(res, 200, await service.answer(route.id, answer, client));
      }
    }
  } catch (error) {
    if (res.headersSent) return void res.end();
    sendError(res, statusOf(error), isAgentSpacesError(error) ? error.toWire() : { code: 'INTERNAL', message: `Internal error: ${(error as Error).message}` });
  }
}

/** Answers `status` with `error` as the API's error body. */
export function sendError(res: ServerResponse, status: number, error: WireError): void {
  if (status === 401) res.setHeader('WWW-Authenticate', 'Bearer realm="agent-spaces"');
  sendJson(res, status, { error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) } });
}

function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(JSON.stringify(body));
}

/** The route `pathname` names; ids are percent-decoded once, and one that is not a safe id names nothing. */
function routeOf(pathname: string): Route {
  const parts = pathname.slice(APPROVALS_PATH.length).split('/').slice(1);
  if (parts.length === 0 || (parts.length === 1 && parts[0] === '')) return { kind: 'list' };
  const id = decoded(parts[0]!);
  if (id === undefined || !SAFE_ID.test(id)) return { kind: 'none', ...(id !== undefined ? { id } : {}) };
  if (parts.length === 1) return { kind: 'show', id };
  if (parts.length === 2 && (parts[1] === 'approve' || parts[1] === 'deny')) return { kind: 'answer', id, approved: parts[1] === 'approve' };
  return { kind: 'none', id };
}

function decoded(part: string): string | undefined {
  try {
    return decodeURIComponent(part);
  } catch {
    return undefined;
  }
}

/** True when the request's method is `method`; else answers 405 with `Allow`. */
function allowed(req: IncomingMessage, res: ServerResponse, method: 'GET' | 'POST'): boolean {
  if (req.method === method) return true;
  res.setHeader('Allow', method);
  sendError(res, 405, { code: 'INVALID_ARGUMENTS', message: `Method not allowed: ${String(req.method)} (this path takes ${method})`, data: { allow: method } });
  return false;
}

/** The service's answer from a request body: its `by`, `reason` and `from` checked, and where it came from added. */
function answerOf(body: unknown, approved: boolean, req: IncomingMessage): ServiceAnswer {
  if (!isRecord(body)) throw invalid('The body must be a JSON object: { "by"?: string, "reason"?: string }');
  const text = (field: string): string | undefined => {
    const value = body[field];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.length > MAX_TEXT) throw invalid(`"${field}" must be a string of at most ${MAX_TEXT} characters`, field);
    return value.trim() || undefined;
  };
  const by = text('by') ?? 'http client';
  const reason = text('reason');
  const claimed = text('from');
  const address = req.socket.remoteAddress ?? 'unknown address';
  const fromConsole = String(req.headers[CLIENT_HEADER] ?? '').toLowerCase() === 'console';
  const where = `${fromConsole ? 'console' : 'http'} ${address}`;
  return { approved, by, from: claimed && !fromConsole ? `${claimed} via ${where}` : where, ...(reason ? { reason } : {}) };
}

/** The body as JSON: `{}` when empty; 413 past {@link MAX_BODY_BYTES} (the rest is read and dropped), 400 when not JSON. */
async function readBody(req: IncomingMessage): Promise<unknown> {
  let text: string;
  try {
    text = (await readBodyText(req, MAX_BODY_BYTES)).trim();
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    throw new AgentSpacesError('PAYLOAD_TOO_LARGE', `The request body is over ${MAX_BODY_BYTES} bytes`, { limit: MAX_BODY_BYTES });
  }
  try {
    return text === '' ? {} : (JSON.parse(text) as unknown);
  } catch {
    throw invalid('The request body is not JSON');
  }
}

const STATUS: Partial<Record<ErrorCode, number>> = {
  APPROVAL_NOT_FOUND: 404,
  APPROVAL_ANSWERED: 409,
  APPROVER_NOT_ALLOWED: 403,
  INVALID_ARGUMENTS: 400,
  PAYLOAD_TOO_LARGE: 413,
};

function statusOf(error: unknown): number {
  return (isAgentSpacesError(error) && STATUS[error.code]) || 500;
}

function notFound(id: string | undefined): WireError {
  const named = id === undefined ? 'the path names no approval request' : `no approval request ${JSON.stringify(id.slice(0, 140))} is on record`;
  return { code: 'APPROVAL_NOT_FOUND', message: `Not found: ${named}`, ...(id !== undefined ? { data: { id: id.slice(0, 140) } } : {}) };
}

function invalid(message: string, field?: string): AgentSpacesError {
  return new AgentSpacesError('INVALID_ARGUMENTS', message, field ? { errors: [{ field, problem: message }] } : undefined);
}
