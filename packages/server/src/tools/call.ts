import { toWireError } from '@agent-spaces/capabilities';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { CallToolRequest, CallToolResult, RequestId, ServerNotification, ServerRequest } from '@modelcontextprotocol/sdk/types.js';
import { createApprover } from '../approval.js';
import type { Connection } from '../connection.js';
import type { ServerLog } from '../log.js';
import { errorCodeOf, toolError } from '../results.js';
import { CallProgress } from './progress.js';
import type { ToolContext, ToolSpec } from './types.js';

/** What the MCP SDK gives the `tools/call` request handler besides the request. */
type CallExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** Settings of every tool call of a server. */
export interface CallSettings {
  log: ServerLog;
  /** Longest silence of a call that carries a `progressToken`, in ms. */
  progressIntervalMs: number;
}

/**
 * Handles one `tools/call`: finds the tool (`TOOL_NOT_FOUND`), checks the arguments against its schema, and runs its
 * handler with the call's {@link ToolContext}: approvals asked of this client on this call's stream, and progress
 * notifications when the request carries `_meta.progressToken`. Logs `tool.called` with ids and figures only.
 * Never rejects: every failure is an error result.
 */
export async function callTool(
  specs: readonly ToolSpec[],
  params: CallToolRequest['params'],
  connection: Connection,
  extra: CallExtra,
  settings: CallSettings,
): Promise<CallToolResult> {
  const started = performance.now();
  const token = extra._meta?.progressToken;
  const progress = token === undefined ? undefined : new CallProgress(token, extra.sendNotification, settings.progressIntervalMs);
  const { state, server } = connection;
  const onApproval = createApprover({ server, headlessMode: state.headlessMode, timeoutMs: state.approvalTimeoutMs, relatedRequestId: extra.requestId });
  const context: ToolContext = {
    connection,
    requestId: extra.requestId,
    runOptions: { signal: extra.signal, onApproval, ...(progress ? { onEvent: (event) => progress.onEvent(event) } : {}) },
  };
  const result = await handle(specs, params, context);
  progress?.close();
  logCall(settings.log, connection, params, { request: extra.requestId, started, result, cancelled: extra.signal.aborted });
  return result;
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
