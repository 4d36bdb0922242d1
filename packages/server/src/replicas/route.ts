import { createHash, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isRecord } from '@agent-spaces/capabilities';
import { sessionTag } from '../log.js';
import { FORWARDED_HEADER, forwardRequest } from './forward.js';
import type { ReplicaRegistry } from './registry.js';

/** How the HTTP front door of one replica passes requests to the replica that holds what they name. */
export interface ReplicaRouting {
  /** True when `req` was forwarded by a replica of the service (it carries the service's forwarding secret). */
  forwarded(req: IncomingMessage): boolean;
  /**
   * The live replica (its URL) holding the REPL session that `body`, a `tools/call`, names in `arguments.sessionId`,
   * when another one does; undefined when it names none or no other live replica holds it.
   */
  sessionPeer(body: unknown): Promise<Peer | undefined>;
  /** The live replica holding 2025-11-25 transport session `mcpSessionId`, when another one does. */
  transportPeer(mcpSessionId: string): Promise<Peer | undefined>;
  /**
   * Forwards `req` (with its body `text`) to `peer`; false when it could not be reached (it is then taken for gone, so
   * what it held is restored here).
   */
  forward(req: IncomingMessage, res: ServerResponse, text: string | undefined, peer: Peer): Promise<boolean>;
  /** Records that this replica holds transport session `mcpSessionId` (before its `initialize` is answered). */
  holdTransport(mcpSessionId: string): Promise<void>;
}

/** Another live replica: its id and the URL it is reached at. */
export interface Peer {
  id: string;
  url: string;
}

/**
 * The routing of `registry`'s replica: a REPL session's holder is found by `peerHolding` (the session records), a
 * transport session's by the registry.
 */
export function replicaRouting(registry: ReplicaRegistry, peerHolding: (sessionId: string) => Promise<Peer | undefined>): ReplicaRouting {
  const secret = createHash('sha256').update(registry.secret).digest();
  return {
    forwarded(req) {
      const given = req.headers[FORWARDED_HEADER];
      return typeof given === 'string' && timingSafeEqual(createHash('sha256').update(given).digest(), secret);
    },
    async sessionPeer(body) {
      const sessionId = namedSession(body);
      return sessionId === undefined ? undefined : peerHolding(sessionId);
    },
    async transportPeer(mcpSessionId) {
      const holder = await registry.holderOf(sessionTag(mcpSessionId));
      return holder === undefined ? undefined : registry.peer(holder);
    },
    async forward(req, res, text, peer) {
      const reached = await forwardRequest(req, res, text, peer.url, registry.secret);
      if (!reached) registry.unreachable(peer.id);
      return reached;
    },
    holdTransport: (mcpSessionId) => registry.hold(sessionTag(mcpSessionId)),
  };
}

/** The REPL session a JSON-RPC `tools/call` names in its arguments, if any. */
function namedSession(body: unknown): string | undefined {
  if (!isRecord(body) || body.method !== 'tools/call' || !isRecord(body.params) || !isRecord(body.params.arguments)) return undefined;
  const { sessionId } = body.params.arguments;
  return typeof sessionId === 'string' && sessionId.length <= 256 ? sessionId : undefined;
}
