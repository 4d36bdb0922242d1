import type { IncomingMessage, ServerResponse } from 'node:http';
import { AgentSpacesError, toWireError, type WireError } from '@agent-spaces/capabilities';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { A2ASettings } from '../config.js';
import { BodyTooLarge, readBodyText } from '../http-body.js';
import { ChatConversations, type ChatLimits, type ChatRequest } from './chat.js';
import type { A2AServer } from './a2a.js';
import type { AgentSurface } from './surface.js';

/** Where the chat endpoint is served. */
const CHAT_PATH = '/chat';
/** Where the A2A JSON-RPC endpoint is served (with `server.a2a.enabled`). */
const A2A_PATH = '/a2a';
/** Where the A2A agent card is served: the A2A SDK's well-known path. */
const AGENT_CARD_PATH = '/.well-known/agent-card.json';
/** Largest body of a chat request. */
const MAX_CHAT_BODY_BYTES = 64 * 1024;
/** Default largest body of an A2A request. */
const DEFAULT_A2A_MESSAGE_BYTES = 256 * 1024;

/**
 * The routes of seed 000's other agent modes on `mcp serve --port`: `POST /chat` (Interactive) and, with A2A on,
 * `POST /a2a` and `GET /.well-known/agent-card.json` (Autonomous). The front door checks Host, Origin, token and rate
 * limit before {@link AgentModesEndpoint.serve}.
 */
export interface AgentModesEndpoint {
  /** True when `pathname` is one of its routes. */
  handles(pathname: string): boolean;
  /** Serves a request the front door let through, for the principal `authInfo` proves. */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string, authInfo: AuthInfo | undefined): Promise<void>;
}

/** The agent modes of `surface`: chat always, A2A when `a2a.enabled` (the A2A SDK is loaded on its first request). */
export function agentModesEndpoint(surface: AgentSurface, a2a?: A2ASettings, chatLimits?: Partial<ChatLimits>): AgentModesEndpoint {
  const chat = new ChatConversations(surface, chatLimits);
  let server: Promise<A2AServer> | undefined;
  const a2aServer = () => (server ??= import('./a2a.js').then(({ createA2AServer }) => createA2AServer(surface, a2a!)));
  const a2aPaths = a2a?.enabled ? [A2A_PATH, AGENT_CARD_PATH] : [];
  return {
    handles: (pathname) => pathname === CHAT_PATH || a2aPaths.includes(pathname),
    async serve(req, res, pathname, authInfo) {
      if (pathname === CHAT_PATH) return serveChat(chat, req, res, authInfo);
      const card = pathname === AGENT_CARD_PATH;
      if (!allowMethod(req, res, card ? ['GET', 'HEAD'] : ['POST'])) return;
      if (card) return sendJson(res, 200, await (await a2aServer()).card(publicUrl(req, a2a!)), req.method === 'HEAD');
      if (!isJson(req)) return sendError(res, 415, wire('INVALID_ARGUMENTS', 'The request body must be application/json'));
      const body = await readBody(req, res, a2a!.maxMessageBytes ?? DEFAULT_A2A_MESSAGE_BYTES);
      if (body !== undefined) await (await a2aServer()).handle(req, res, body, authInfo);
    },
  };
}

/**
 * `POST /chat` with `{ message, space?, conversation_id? }`: with `Accept: text/event-stream` an SSE stream of
 * `agent_message` and `run_event` events, then `answer` (or `error` when refused); else the answer as JSON.
 */
async function serveChat(chat: ChatConversations, req: IncomingMessage, res: ServerResponse, authInfo: AuthInfo | undefined): Promise<void> {
  if (!allowMethod(req, res, ['POST'])) return;
  if (!isJson(req)) return sendError(res, 415, wire('INVALID_ARGUMENTS', 'The request body must be application/json'));
  const text = await readBody(req, res, MAX_CHAT_BODY_BYTES);
  if (text === undefined) return;
  let request: ChatRequest;
  try {
    request = chatRequest(text);
  } catch (error) {
    return sendError(res, 400, toWireError(error));
  }
  const cancel = new AbortController();
  res.once('close', () => cancel.abort());
  const stream = (req.headers.accept ?? '').includes('text/event-stream');
  if (!stream) {
    try {
      return sendJson(res, 200, await chat.send(authInfo, request, cancel.signal));
    } catch (error) {
      const wireError = toWireError(error);
      return sendError(res, statusOf(wireError.code), wireError);
    }
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no', 'X-Content-Type-Options': 'nosniff' });
  const send = (event: string, data: unknown) => res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
  try {
    send('answer', await chat.send(authInfo, request, cancel.signal, (step) => send(step.type, step)));
  } catch (error) {
    send('error', toWireError(error));
  }
  res.end();
}

/** The chat request of a JSON body; throws `INVALID_ARGUMENTS` naming each bad field. */
function chatRequest(text: string): ChatRequest {
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw invalid('body', 'is not JSON');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw invalid('body', 'must be a JSON object');
  const { message, space, conversation_id: conversationId } = body as Record<string, unknown>;
  if (typeof message !== 'string') throw invalid('message', 'must be a string');
  if (space !== undefined && typeof space !== 'string') throw invalid('space', 'must be a string');
  if (conversationId !== undefined && typeof conversationId !== 'string') throw invalid('conversation_id', 'must be a string');
  return { message, ...(space !== undefined ? { space } : {}), ...(conversationId !== undefined ? { conversationId } : {}) };
}

/** The HTTP status of a refused chat message. */
function statusOf(code: string): number {
  switch (code) {
    case 'INVALID_ARGUMENTS':
      return 400;
    case 'SPACE_NOT_FOUND':
    case 'SESSION_NOT_FOUND':
      return 404;
    case 'PAYLOAD_TOO_LARGE':
      return 413;
    case 'TOO_MANY_SESSIONS':
      return 429;
    case 'MODEL_UNAVAILABLE':
      return 503;
    default:
      return 500;
  }
}

/**
 * The A2A endpoint's public URL, for the agent card: `server.a2a.url`, else `http://<Host>/a2a` (the front door has
 * checked the Host header against the allowed hosts).
 */
function publicUrl(req: IncomingMessage, a2a: A2ASettings): string {
  return a2a.url ?? `http://${req.headers.host ?? '127.0.0.1'}${A2A_PATH}`;
}

/** The body within `maxBytes`, or undefined once answered 413. */
async function readBody(req: IncomingMessage, res: ServerResponse, maxBytes: number): Promise<string | undefined> {
  try {
    return await readBodyText(req, maxBytes);
  } catch (error) {
    if (!(error instanceof BodyTooLarge)) throw error;
    sendError(res, 413, wire('PAYLOAD_TOO_LARGE', error.message, { limit: maxBytes }));
    return undefined;
  }
}

function allowMethod(req: IncomingMessage, res: ServerResponse, methods: string[]): boolean {
  if (methods.includes(req.method ?? '')) return true;
  res.setHeader('Allow', methods.join(', '));
  sendError(res, 405, wire('INVALID_ARGUMENTS', `Method not allowed: ${req.method} (this route takes ${methods.join(', ')})`));
  return false;
}

function isJson(req: IncomingMessage): boolean {
  return req.headers['content-type']?.split(';')[0]!.trim().toLowerCase() === 'application/json';
}

function invalid(field: string, problem: string): AgentSpacesError {
  return new AgentSpacesError('INVALID_ARGUMENTS', `chat: ${field} ${problem}`, { errors: [{ field, problem }] });
}

function wire(code: string, message: string, data?: Record<string, unknown>): WireError {
  return { code, message, ...(data ? { data } : {}) } as WireError;
}

function sendError(res: ServerResponse, status: number, error: WireError): void {
  sendJson(res, status, { error: { code: error.code, message: error.message, ...(error.data ? { data: error.data } : {}) } });
}

function sendJson(res: ServerResponse, status: number, body: unknown, headOnly = false): void {
  res.writeHead(status, { 'Content-Type': 'application/json; charset=utf-8', 'Cache-Control': 'no-store', 'X-Content-Type-Options': 'nosniff' });
  res.end(headOnly ? undefined : JSON.stringify(body));
}
