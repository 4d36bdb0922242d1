import { request as httpRequest, type IncomingMessage, type ServerResponse } from 'node:http';

/** The header a replica forwards a request with: it carries the service's forwarding secret. */
export const FORWARDED_HEADER = 'x-agent-spaces-forwarded';

/** Headers that describe one hop, not the request: never passed on (RFC 9110 §7.6.1). */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'proxy-connection', 'transfer-encoding', 'upgrade', 'te', 'trailer', 'host', 'content-length', FORWARDED_HEADER]);

/** How long a forwarded request may take to be answered (its headers; a stream then runs as long as it runs). */
const CONNECT_TIMEOUT_MS = 5_000;

/**
 * Forwards a request this replica was sent to the replica at `target` (its origin) — the same method, path, headers
 * (the client's token included: the holder checks it again) and `body` — marked with the forwarding `secret`, and
 * streams the answer back as it comes (SSE included). Resolves true once the answer started, false when the target
 * could not be reached before answering (the caller then serves the request itself: the holder is gone).
 */
export function forwardRequest(req: IncomingMessage, res: ServerResponse, body: string | undefined, target: string, secret: string): Promise<boolean> {
  const url = new URL(req.url ?? '/', target);
  const headers: Record<string, string | string[]> = { [FORWARDED_HEADER]: secret };
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined && !HOP_HEADERS.has(name)) headers[name] = value;
  headers.host = url.host;
  if (body !== undefined) headers['content-length'] = String(Buffer.byteLength(body));
  return new Promise((resolve) => {
    const outgoing = httpRequest(url, { method: req.method, headers, timeout: CONNECT_TIMEOUT_MS }, (answer) => {
      outgoing.setTimeout(0);
      const passed = Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !HOP_HEADERS.has(name)));
      res.writeHead(answer.statusCode ?? 502, passed as Record<string, string | string[]>);
      res.flushHeaders();
      answer.pipe(res);
      answer.once('error', () => res.destroy());
      res.once('close', () => answer.destroy());
      resolve(true);
    });
    outgoing.once('timeout', () => outgoing.destroy(new Error('timed out')));
    outgoing.once('error', () => {
      if (res.headersSent) res.destroy();
      resolve(false);
    });
    // The client went away: so does the forwarded request (its run is cancelled on the holder).
    res.once('close', () => outgoing.destroy());
    outgoing.end(body);
  });
}
