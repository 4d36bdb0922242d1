import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Connection, type ClientLink, type HostState } from '../connection.js';
import { callTool, type CallSettings } from '../tools/call.js';
import type { ToolSpec } from '../tools/types.js';

/**
 * What the agent modes beside MCP (the chat endpoint, `agent-spaces chat`, the A2A server) use of a code-mode host:
 * its state (spaces, model), a connection acting for a principal, and its tools called as `tools/call` calls them.
 */
export interface AgentSurface {
  readonly state: HostState;
  /** A connection acting for the principal `authInfo` proves (`local` without one); it can be asked nothing. */
  connection(authInfo: AuthInfo | undefined): Connection;
  /** Calls the served tool `name` as `tools/call` does (arguments checked against its schema, `tool.called` logged). */
  callTool(connection: Connection, name: string, args: Record<string, unknown>, signal: AbortSignal): Promise<CallToolResult>;
}

/**
 * A caller outside MCP, which the server cannot ask anything mid-run: it declares nothing, so approvals follow the
 * server's headless mode and agent runs use the configured model (as for a client of protocol 2026-07-28).
 */
const NO_CLIENT: ClientLink = {
  getClientCapabilities: () => ({}),
  elicitInput: refused('elicitation/create'),
  createMessage: refused('sampling/createMessage'),
};

function refused(method: string): () => Promise<never> {
  return () => Promise.reject(new Error(`A caller outside MCP cannot be sent ${method}`));
}

let calls = 0;

/** The {@link AgentSurface} of a host's `state`, whose tools are `specs()` now, called with `settings`. */
export function agentSurface(state: HostState, specs: () => readonly ToolSpec[], settings: CallSettings): AgentSurface {
  return {
    state,
    connection: (authInfo) => Connection.ofPrincipal(state, NO_CLIENT, authInfo),
    callTool: (connection, name, args, signal) =>
      callTool(specs(), { name, arguments: args }, connection, { id: `agent-mode-${++calls}`, signal, notify: () => Promise.resolve() }, settings),
  };
}
