import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { CONSOLE_SCRIPT, CONSOLE_STYLE, consoleHtml } from './console-page.js';

/** The path of the approvals console. */
export const CONSOLE_PATH = '/console';

let page: { html: string; policy: string } | undefined;

/**
 * Serves the approvals console: one self-contained page (no token needed: it holds no data; every request it makes
 * for data carries the token the person enters). Its Content-Security-Policy allows its own inline style and script
 * (by hash) and requests to this server only: no other script, style, image, frame, form target or base URL.
 */
export function serveConsole(req: IncomingMessage, res: ServerResponse): void {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.writeHead(405, { Allow: 'GET, HEAD', 'Content-Type': 'text/plain; charset=utf-8' });
    return void res.end(`Method not allowed: ${String(req.method)} (${CONSOLE_PATH} takes GET, HEAD)\n`);
  }
  page ??= { html: consoleHtml(), policy: contentPolicy() };
  res.writeHead(200, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Security-Policy': page.policy,
    'Cache-Control': 'no-store',
    'X-Content-Type-Options': 'nosniff',
    'X-Frame-Options': 'DENY',
    'Referrer-Policy': 'no-referrer',
    'Cross-Origin-Opener-Policy': 'same-origin',
  });
  res.end(req.method === 'HEAD' ? undefined : page.html);
}

function contentPolicy(): string {
  const hash = (text: string) => `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
  return [
    "default-src 'none'",
    `script-src ${hash(CONSOLE_SCRIPT)}`,
    `style-src ${hash(CONSOLE_STYLE)}`,
    "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}
