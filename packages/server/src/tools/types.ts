import type { JsonSchema, ObjectSchema } from '@agent-spaces/capabilities';
import type { AgentMessage, RunOptions } from '@agent-spaces/sdk';
import type { CallToolResult, RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Connection } from '../connection.js';

/** What a tool handler is given besides its validated arguments. */
export interface ToolContext {
  connection: Connection;
  /**
   * The options of every run the tool starts: the call's `signal` (aborted when the client cancels the call or
   * disconnects), its `onApproval` (this client, asked on this call's stream, withdrawn when the call ends) and, when
   * the client gave a `progressToken`, the `onEvent` that sends the call's progress notifications.
   */
  runOptions: RunOptions;
  /** The JSON-RPC id of the `tools/call` request, so requests made for it (sampling) travel on its stream. */
  requestId?: RequestId;
  /** Hears each assistant message of the agent runs the tool starts, as it arrives (the chat endpoint streams them). */
  onAgentMessage?: (message: Extract<AgentMessage, { role: 'assistant' }>) => void;
}

/** One MCP tool of the server: what `tools/list` shows and the handler `tools/call` runs after validating arguments. */
export interface ToolSpec {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  /** `execution.taskSupport: 'optional'` lets a client call it as a task (docs/mcp-server.md, "Tasks"); default: never. */
  execution?: { taskSupport: 'optional' };
  /** Gets arguments that matched `inputSchema`; may throw an `AgentSpacesError`, which becomes an error result. */
  handler(args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult>;
}

/** The optional `spaceId` argument, described with the server's space ids. */
export function spaceIdProperty(spaceIds: readonly string[]): Record<string, JsonSchema> {
  return {
    spaceId: { type: 'string', description: `Space to use (default "${spaceIds[0]}"; spaces: ${spaceIds.join(', ')})` },
  };
}
