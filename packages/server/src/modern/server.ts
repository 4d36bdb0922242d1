import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import { Server, type ServerContext, type Tool as ModernTool } from '@modelcontextprotocol/server';
import { Connection, type ClientLink, type HostState } from '../connection.js';
import { getPrompt, listPrompts } from '../prompts.js';
import { callTool, listTools, type CallRequest, type CallSettings } from '../tools/call.js';
import type { ToolSpec } from '../tools/types.js';

/** What every MCP server of a code-mode host serves, whichever the protocol revision; read at each request (a reload changes it). */
export interface ServedSurface {
  readonly state: HostState;
  readonly info: { name: string; version: string };
  readonly instructions: string;
  readonly calls: CallSettings;
  /** The tools served now. */
  specs(): readonly ToolSpec[];
  /** Whether the MCP conformance suite's prompts and resources are served too (its tools are among {@link specs}). */
  readonly conformanceFixtures?: boolean;
}

/**
 * Tools, prompts and log messages. Lists are not announced as changing: in 2026-07-28 that takes a
 * `subscriptions/listen` stream, which this server does not serve (a client lists again). No tasks: the SDK v2 has no
 * tasks runtime. Log messages go only with a call whose request names a level (`_meta["io.modelcontextprotocol/logLevel"]`):
 * that revision has no `logging/setLevel`, and no stream outside a call.
 */
const MODERN_CAPABILITIES = { tools: {}, prompts: {}, logging: {} };

/**
 * A client of protocol 2026-07-28, which the server cannot ask anything mid-call: that revision has no server→client
 * requests (only `input_required` results, which a run waiting for an approval or a model cannot return). It declares
 * nothing, so approvals follow the server's headless mode and agent runs use the configured model.
 */
const UNASKABLE_CLIENT: ClientLink = {
  getClientCapabilities: () => ({}),
  elicitInput: refused('elicitation/create'),
  createMessage: refused('sampling/createMessage'),
};

/** A request a client of protocol 2026-07-28 cannot be sent: it always rejects. */
function refused(method: string): () => Promise<never> {
  return () => Promise.reject(new Error(`A client of protocol 2026-07-28 cannot be sent ${method}`));
}

/**
 * The MCP server (SDK v2) of one request of protocol revision 2026-07-28: the tools, prompts and instructions of
 * `surface`, served for the principal `authInfo` proves. Its connection ({@link Connection.ofPrincipal}) is that
 * principal's, so a session, conversation or approval that a request names is found only when the principal owns it.
 */
export function createModernServer(surface: ServedSurface, authInfo: AuthInfo | undefined): Server {
  const { state, calls } = surface;
  const server = new Server(surface.info, { capabilities: MODERN_CAPABILITIES, instructions: surface.instructions });
  const connection = Connection.ofPrincipal(state, UNASKABLE_CLIENT, authInfo);
  server.setRequestHandler('tools/list', () => ({ tools: listTools(surface.specs(), connection).map(modernListing) }));
  server.setRequestHandler('tools/call', (request, ctx) => callTool(surface.specs(), request.params, connection, callRequest(ctx), calls));
  server.setRequestHandler('prompts/list', () => ({ prompts: listPrompts(state.spaces) }));
  server.setRequestHandler('prompts/get', (request) => getPrompt(connection, request.params.name, request.params.arguments));
  return server;
}

/** A tool as 2026-07-28 lists it: without `execution.taskSupport`, a field that revision deleted. */
function modernListing(tool: ReturnType<typeof listTools>[number]): ModernTool {
  const listed = { ...tool };
  delete listed.execution;
  return listed as ModernTool;
}

/**
 * The call's request: its progress notifications and log messages go out on its response stream (the SDK upgrades it
 * to SSE); the SDK sends a log message only at or above the level the request names, and none when it names none.
 */
function callRequest(ctx: ServerContext): CallRequest {
  const { id, signal, _meta, notify, log } = ctx.mcpReq;
  return {
    id,
    signal,
    ...(_meta?.progressToken !== undefined ? { progressToken: _meta.progressToken } : {}),
    notify: (notification) => notify(notification),
    log: (message) => void log(message.level, message.data, message.logger).catch(() => undefined),
  };
}
