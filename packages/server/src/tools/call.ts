import { toWireError, type RunEvent } from '@agent-spaces/capabilities';
import type { CallToolRequest, CallToolResult, ProgressToken, RequestId, Tool } from '@modelcontextprotocol/sdk/types.js';
import { modelAvailable } from '../agent/choose.js';
import { createApprover } from '../approval.js';
import { runEventMessage, type ClientLogger } from '../client-log.js';
import { AGENT_TOOL_NAMES } from '../config.js';
import type { Connection } from '../connection.js';
import type { ServerLog } from '../log.js';
import { errorCodeOf, toolError } from '../results.js';
import { CallProgress, type ProgressSender } from './progress.js';
import type { ToolContext, ToolSpec } from './types.js';

/**
 * What the `tools/call` handler of either protocol revision knows of its request besides the params (the MCP SDK 1.x
 * `extra`, or the v2 `ctx.mcpReq`).
 */
export interface CallRequest {
  /** The JSON-RPC id of the `tools/call`. */
  id: RequestId;
  /** Aborted when the client cancels the call or goes away. */
  signal: AbortSignal;
  /** The request's `_meta.progressToken`, when it asked for progress. */
  progressToken?: ProgressToken;
  /** Sends a notification related to the call (on its response stream over HTTP). */
  notify: ProgressSender;
  /** Tells the client, at its log level, what its runs log ({@link runEventMessage}); without it, nothing is logged to it. */
  log?: ClientLogger;
}

/** Settings of every tool call of a server. */
export interface CallSettings {
  log: ServerLog;
  /** Longest silence of a call that carries a `progressToken`, in ms. */
  progressIntervalMs: number;
}

/**
 * Handles one `tools/call`: finds the tool (`TOOL_NOT_FOUND`), checks the arguments against its schema, and runs its
 * handler with the call's {@link ToolContext}: approvals asked of this client on this call's stream, and progress
 * notifications when the request carries `_meta.progressToken`, and the runs' console output, approvals waiting and
 * failed capability calls as `notifications/message` through `request.log`. Logs `tool.called` with ids and figures only.
 * Never rejects: every failure is an error result.
 */
export async function callTool(
  specs: readonly ToolSpec[],
  params: CallToolRequest['params'],
  connection: Connection,
  request: CallRequest,
  settings: CallSettings,
): Promise<CallToolResult> {
  const started = performance.now();
  const token = request.progressToken;
  const progress = token === undefined ? undefined : new CallProgress(token, request.notify, settings.progressIntervalMs);
  const { state, server } = connection;
  const onApproval = createApprover({ server, headlessMode: state.headlessMode, timeoutMs: state.approvalTimeoutMs, relatedRequestId: request.id });
  const tell = request.log;
  const onEvent = (event: RunEvent) => {
    progress?.onEvent(event);
    const message = tell && runEventMessage(event);
    if (message) tell(message);
  };
  const context: ToolContext = {
    connection,
    requestId: request.id,
    runOptions: { signal: request.signal, onApproval, ...(progress || tell ? { onEvent } : {}) },
  };
  const result = await handle(specs, params, context);
  progress?.close();
  logCall(settings.log, connection, params, { request: request.id, started, result, cancelled: request.signal.aborted });
  return result;
}

/** What `tools/list` shows `connection`: every tool, but the agent tools only when its agent runs can have a model. */
export function listTools(specs: readonly ToolSpec[], connection: Connection): Tool[] {
  return specs.filter((s) => !AGENT_TOOL_NAMES.includes(s.name) || modelAvailable(connection)).map(toolListing);
}

/** How `tools/list` shows one tool. */
export function toolListing(spec: ToolSpec): Tool {
  const { name, title, description, inputSchema, outputSchema, annotations, execution } = spec;
  return {
    name,
    ...(title ? { title } : {}),
    description,
    inputSchema: inputSchema as Tool['inputSchema'],
    ...(outputSchema ? { outputSchema: outputSchema as Tool['outputSchema'] } : {}),
    ...(annotations ? { annotations } : {}),
    ...(execution ? { execution } : {}),
  };
}

/** How one tool call went, for its `tool.called` line. */
interface CallOutcome {
  /** The JSON-RPC id of the `tools/call`. */
  request: RequestId;
  /** The id of the task it ran in, when the client asked for one. */
  task?: string;
  /** When it started (`performance.now()`). */
  started: number;
  result: CallToolResult;
  cancelled: boolean;
}

/** Logs `tool.called` for a call of `connection` that ended: ids and figures only, never arguments or results. */
export function logCall(log: ServerLog, connection: Connection, params: CallToolRequest['params'], outcome: CallOutcome): void {
  const args = params.arguments ?? {};
  log.event('tool.called', {
    tool: params.name,
    client: connection.id,
    request: outcome.request,
    task: outcome.task,
    session: typeof args.sessionId === 'string' ? args.sessionId : undefined,
    space: typeof args.spaceId === 'string' ? args.spaceId : undefined,
    duration_ms: Math.round((performance.now() - outcome.started) * 10) / 10,
    ok: outcome.result.isError !== true,
    code: errorCodeOf(outcome.result),
    cancelled: outcome.cancelled || undefined,
  });
}

async function handle(specs: readonly ToolSpec[], params: CallToolRequest['params'], context: ToolContext): Promise<CallToolResult> {
  const { name, arguments: args } = params;
  const spec = specs.find((s) => s.name === name);
  if (!spec) {
    return toolError({ code: 'TOOL_NOT_FOUND', message: `No tool "${name}" (tools: ${specs.map((s) => s.name).join(', ')})`, data: { name } });
  }
  try {
    const valid = await context.connection.state.validator.check(name, spec.inputSchema, args);
    return await spec.handler(valid, context);
  } catch (error) {
    return toolError(toWireError(error));
  }
}
