import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { McpHttpHandler, Server } from '@modelcontextprotocol/server';

/** Makes the MCP server (SDK v2) of one 2026-07-28 request, acting for the principal `authInfo` proves. */
export type ModernServerFactory = (authInfo: AuthInfo | undefined) => Promise<Server>;

/** What the SDK v2 gives the endpoint, loaded with the first request that may be of protocol 2026-07-28. */
interface Loaded {
  isLegacyRequest: typeof import('@modelcontextprotocol/server').isLegacyRequest;
  handler: McpHttpHandler;
}

/** The `_meta` keys of the 2026-07-28 envelope all start with this; a request without it anywhere claims no envelope. */
const ENVELOPE_PREFIX = 'io.modelcontextprotocol/';

/**
 * The 2026-07-28 leg of the HTTP front door: a strict `createMcpHandler(factory, { legacy: 'reject' })` of the SDK v2,
 * which it loads (once) only when a request may be of that revision, so the stdio server and the CLI never load it.
 * The front door has checked the request (Host, Origin, token, method, body size, rate limit) and read its body.
 */
export class ModernEndpoint {
  readonly #factory: ModernServerFactory;
  readonly #maxBodyBytes: number;
  #loaded: Promise<Loaded> | undefined;

  /** `maxBodyBytes` is the front door's cap of a body, which the SDK applies too. */
  constructor(factory: ModernServerFactory, maxBodyBytes: number) {
    this.#factory = factory;
    this.#maxBodyBytes = maxBodyBytes;
  }

  /**
   * Whether a request goes to the legacy (2025-era, sessionful) leg, by the SDK's own predicate (`isLegacyRequest`). A
   * request that claims no envelope anywhere (no modern `MCP-Protocol-Version` header, no envelope key in its body) is
   * legacy without asking, so legacy traffic never loads the SDK v2. `text` is the body read, `body` its JSON.
   */
  async isLegacy(req: IncomingMessage, text: string | undefined, body: unknown): Promise<boolean> {
    if (!claimsEnvelope(req, text)) return true;
    const { isLegacyRequest } = await this.#load();
    return isLegacyRequest(webRequest(req, text, new AbortController().signal), body, { maxRequestBodySize: this.#maxBodyBytes });
  }

  /** Serves one 2026-07-28 request, streaming the SDK's response (JSON, or SSE for a call that sends progress). */
  async serve(req: IncomingMessage, res: ServerResponse, text: string | undefined, body: unknown, authInfo: AuthInfo | undefined): Promise<void> {
    const { handler } = await this.#load();
    const gone = new AbortController();
    res.once('close', () => gone.abort());
    const response = await handler.fetch(webRequest(req, text, gone.signal), { ...(authInfo ? { authInfo } : {}), ...(body !== undefined ? { parsedBody: body } : {}) });
    res.writeHead(response.status, Object.fromEntries(response.headers));
    if (!response.body) return void res.end();
    // Each chunk is written as it comes, so an SSE stream reaches the client event by event.
    await pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), res).catch(() => undefined);
  }

  /** Aborts the requests in flight; a later request loads nothing more and is refused by the closed handler. */
  async close(): Promise<void> {
    if (this.#loaded) await (await this.#loaded).handler.close();
  }

  #load(): Promise<Loaded> {
    this.#loaded ??= import('@modelcontextprotocol/server').then((sdk) => ({
      isLegacyRequest: sdk.isLegacyRequest,
      handler: sdk.createMcpHandler(({ authInfo }) => this.#factory(authInfo), { legacy: 'reject', maxRequestBodySize: this.#maxBodyBytes }),
    }));
    return this.#loaded;
  }
}

/** Whether a request claims the 2026-07-28 envelope anywhere: a protocol version header not of 2024/2025, or an envelope key in its body. */
function claimsEnvelope(req: IncomingMessage, text: string | undefined): boolean {
  const version = req.headers['mcp-protocol-version'];
  if (version !== undefined && !/^202[45]-/.test(String(version))) return true;
  return text !== undefined && text.includes(ENVELOPE_PREFIX);
}

/** The web `Request` of a node request whose body (`text`) was read already; `signal` aborts when the client goes away. */
function webRequest(req: IncomingMessage, text: string | undefined, signal: AbortSignal): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    for (const one of Array.isArray(value) ? value : [value]) headers.append(name, one);
  }
  const url = new URL(req.url ?? '/', `http://${req.headers.host ?? 'localhost'}`);
  return new Request(url, { method: req.method ?? 'GET', headers, signal, ...(text !== undefined ? { body: text } : {}) });
}
