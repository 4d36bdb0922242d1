import type { JsonSchema, ObjectSchema } from '@agent-spaces/capabilities';
import type { AgentMessage, RunOptions } from '@agent-spaces/sdk';
import type { CallToolResult, RequestId, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
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
  /** A short name for people (`tools/list`'s `title`). */
  title?: string;
  description: string;
  inputSchema: ObjectSchema;
  /**
   * The JSON Schema of the `structuredContent` of its successful results, for a tool that answers with JSON: every
   * successful result then carries `structuredContent` matching it, beside the same JSON as text.
   */
  outputSchema?: ObjectSchema;
  /** What calling it does to the world (docs/mcp-server.md, "Tool annotations"): only hints that are true of it. */
  annotations?: ToolAnnotations;
  /** `execution.taskSupport: 'optional'` lets a client call it as a task (docs/mcp-server.md, "Tasks"); default: never. */
  execution?: { taskSupport: 'optional' };
  /** Gets arguments that matched `inputSchema`; may throw an `AgentSpacesError`, which becomes an error result. */
  handler(args: Record<string, unknown>, context: ToolContext): Promise<CallToolResult>;
}

/** The optional `spaceId` argument, described with the server's space ids. */
export function spaceIdProperty(spaceIds: readonly string[]): Record<string, JsonSchema> {
  return {
    spaceId: { type: 'string', description: spaceIds.length === 1 ? `Default "${spaceIds[0]}"` : `Default "${spaceIds[0]}"; spaces: ${spaceIds.join(', ')}` },
  };
}

/** The hints of a tool that only reads the server's own state: calling it changes nothing and reaches nothing outside. */
export const READS: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };

/**
 * The hints of a tool that runs code or an agent in a space: its capabilities may change or delete anything they reach,
 * outside the server too, and a second call runs again.
 */
export const RUNS: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true };

/** An object schema of `properties`, the `required` ones always present, other keys allowed (they may be added later). */
export function outputOf(properties: Record<string, JsonSchema>, required: string[] = Object.keys(properties)): ObjectSchema {
  return { type: 'object', properties, required };
}

/** The `structuredContent` of a successful `execute` / `send_code`: the run's envelope ({@link runResult} in results.ts). */
export const RUN_OUTPUT: Record<string, JsonSchema> = {
  result: { description: 'What the code returned (`export default` or a top-level `return`), as JSON; null for nothing' },
  logs: { type: 'array', items: { type: 'string' }, description: 'Console output, `[level] ` before lines other than console.log' },
  events: {
    type: 'array',
    description: 'Its capability calls: { type: "capability_call", capability, function, params, ok, duration_ms, error? }',
    items: { type: 'object', properties: { capability: { type: 'string' }, function: { type: 'string' } }, required: ['capability', 'function'] },
  },
  metadata: {
    type: 'object',
    properties: { duration_ms: { type: 'number' }, capability_calls: { type: 'integer', minimum: 0 } },
    required: ['duration_ms', 'capability_calls'],
  },
};
