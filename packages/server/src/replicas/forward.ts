import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** The header a replica forwards a request with: it carries the service's forwarding secret. */
export const FORWARDED_HEADER = 'x-agent-spaces-forwarded';

/**
 * Headers that describe one hop, not the request: never passed on (RFC 9110 §7.6.1). `Host` is passed on as the client
 * sent it: the holder checks it against the same allowed hosts as the replica the client reached.
 */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'content-length', FORWARDED_HEADER]);

/** How long connecting to the holder may take; a call, once the holder has it, runs as long as it runs. */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Forwards a request this replica was sent to the replica at `target` (its origin) — the same method, path, headers
 * (the client's token included: the holder checks it again) and `body` — marked with the forwarding `secret`, and
 * streams the answer back as it comes (SSE included). Resolves false only when the holder could not be connected to,
 * so nothing reached it (the caller then serves the request itself: the holder is gone); once connected it resolves
 * true, and a holder that dies before answering gets the client a 502 — never a second run of the same request here.
 */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, body: string | undefined, target: string, secret: string): Promise<boolean> {
  const url = new URL(req.url ?? '/', target);
  const headers: Record<string, string | string[]> = { [FORWARDED_HEADER]: secret };
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve) => {
    let connected = false;
    // A connection of its own (no keep-alive pool): "connected" then means this request reached the holder.
    const outgoing = httpRequest(url, { method: req.method, headers, agent: false }, (answer) => {
      const passed = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_HEADERS.has(name)));
      res.writeHead(answer.statusCode ?? 502, passed as Record<string, string | string[]>);
      res.flushHeaders();
      answer.pipe(res);
      answer.once('error', () => res.destroy());
      res.once('close', () => answer.destroy());
    });
    outgoing.once('socket', (socket: Socket) => {
      const timer = setTimeout(() => outgoing.destroy(new Error('connect timed out')), CONNECT_TIMEOUT_MS);
      const onConnect = () => {
        clearTimeout(timer);
        connected = true;
        resolve(true);
      };
      if (socket.connecting) socket.once('connect', onConnect);
      else onConnect();
      socket.once('close', () => clearTimeout(timer));
    });
    outgoing.once('error', () => {
      if (!connected) return resolve(false);
      if (res.headersSent) res.destroy();
      else badGateway(res);
    });
    // The client went away: so does the forwarded request (its run is cancelled on the holder).
    res.once('close', () => outgoing.destroy());
    outgoing.end(body);
  });
}

/** Answers that the replica holding the session went away while it had the request. */
function badGateway(res: ServerResponse): void {
  res.writeHead(502, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify({ jsonrpc: '2.0', error: { code: -32000, message: 'The replica holding this session went away while it had the request; retry it' }, id: null }));
}
