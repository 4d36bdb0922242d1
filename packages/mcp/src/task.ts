import { AgentSpacesError, type ProgressUpdate } from '@agent-spaces/capabilities';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Task } from '@modelcontextprotocol/sdk/types.js';

/** Request options with the timeout always set: for a task, the bound of the whole wait. */
export type TaskRequestOptions = RequestOptions & { timeout: number };

/** One tool call: the server's name (for messages), the tool's and its arguments. */
interface ToolCall {
  server: string;
  tool: string;
  args: Record<string, unknown>;
}

/** How long the `tasks/cancel` of an abandoned task may take. */
const CANCEL_TIMEOUT_MS = 5_000;

const TERMINAL: ReadonlySet<Task['status']> = new Set(['completed', 'failed', 'cancelled']);

/**
 * Calls `call.tool` as an MCP task with the SDK's `callToolStream` (`tools/call` with `task`, then `tasks/get` at the
 * server's poll interval, then `tasks/result`). The server's progress notifications and each new status message of the
 * task go to `options.onprogress` (a status message with the last progress figures seen). Resolves to the task's
 * result; a task that `failed` to its result marked `isError` (or, when it has none, rejects `HANDLER_ERROR` with its
 * status message); one the server `cancelled` rejects `HANDLER_ERROR` (`data.taskStatus: 'cancelled'`). When
 * `options.signal` aborts or `options.timeout` ms pass (the whole wait, not one poll), rejects at once with the signal's
 * reason or an `McpError` `RequestTimeout`, and sends the task `tasks/cancel`.
 */
export async function callToolTask(client: Client, call: ToolCall, options: TaskRequestOptions): Promise<CallToolResult> {
  const stop = new AbortController();
  const bound = boundWait(stop, options.signal, options.timeout);
  const relay = statusRelay(options.onprogress);
  // No signal: the SDK would add an abort listener per poll and never remove it. The race below stops the wait, and a
  // stream nobody reads polls no more.
  // Each request of the stream may take as long as a cancel may: the race below bounds the whole wait, and a task
  // named only after the call was given up must still reach us, to be cancelled.
  const stream = client.experimental.tasks.callToolStream({ name: call.tool, arguments: call.args }, CallToolResultSchema, {
    timeout: Math.max(options.timeout, CANCEL_TIMEOUT_MS),
    task: { ttl: options.timeout },
    ...(options.onprogress ? { onprogress: relay.progress } : {}),
  });
  let task: Task | undefined;
  // The stream's next message while it is awaited: after a stop, the one that names the task may still come.
  let coming: ReturnType<typeof stream.next> | undefined;
  try {
    for (;;) {
      coming = stream.next();
      const next = await Promise.race([coming, bound.stopped]);
      coming = undefined;
      if (next.done) throw new McpError(ErrorCode.InternalError, 'the task stream ended without a result');
      const message = next.value;
      if (message.type === 'result') return message.result as CallToolResult;
      if (message.type === 'error') {
        const ended = endedTask(client, call, task, message.error, { timeout: options.timeout });
        return await Promise.race([ended, bound.stopped]);
      }
      task = message.task;
      relay.status(task);
    }
  } finally {
    bound.release();
    if (stop.signal.aborted) void cancelAbandoned(client, stream, task, coming);
  }
}

/**
 * Cancels the task of a call given up (`tasks/cancel`), then closes its stream. Stopped before the server named the
 * task, it waits (at most {@link CANCEL_TIMEOUT_MS}) for the message that names it: a task created after the stop is
 * cancelled too, never left running upstream.
 */
async function cancelAbandoned(
  client: Client,
  stream: { return(value: undefined): Promise<unknown> },
  task: Task | undefined,
  coming: Promise<IteratorResult<object>> | undefined,
): Promise<void> {
  let abandoned = task;
  if (!abandoned && coming) {
    const late = new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), CANCEL_TIMEOUT_MS).unref());
    const next = await Promise.race([coming.catch(() => undefined), late]);
    const message = next && !next.done ? (next.value as { task?: Task }) : undefined;
    abandoned = message?.task;
  }
  void stream.return(undefined).catch(() => undefined);
  if (abandoned && !TERMINAL.has(abandoned.status)) await client.experimental.tasks.cancelTask(abandoned.taskId, { timeout: CANCEL_TIMEOUT_MS }).catch(() => undefined);
}

/** What a task stream's `error` means: a failed task's result, a typed error for a cancelled one, else `error`. */
async function endedTask(client: Client, call: ToolCall, task: Task | undefined, error: Error, options: RequestOptions): Promise<CallToolResult> {
  if (task?.status !== 'failed' && task?.status !== 'cancelled') throw error;
  if (task.status === 'failed') {
    const result = await client.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema, options).catch(() => undefined);
    if (result) return { ...result, isError: true };
  }
  const data = { server: call.server, tool: call.tool, taskId: task.taskId, taskStatus: task.status };
  const said = task.statusMessage ?? 'no message';
  const what = task.status === 'failed' ? `its task failed (${said})` : `the server cancelled its task (${said})`;
  throw new AgentSpacesError('HANDLER_ERROR', `MCP tool "${call.tool}" of "${call.server}": ${what}`, data, { cause: error });
}

/** Aborts `stop` when `signal` aborts or after `timeoutMs`; `stopped` then rejects with the reason. */
function boundWait(stop: AbortController, signal: AbortSignal | undefined, timeoutMs: number): { stopped: Promise<never>; release: () => void } {
  const stopped = new Promise<never>((_, reject) => stop.signal.addEventListener('abort', () => reject(stop.signal.reason), { once: true }));
  stopped.catch(() => undefined);
  const forward = () => stop.abort(signal?.reason);
  if (signal?.aborted) forward();
  else signal?.addEventListener('abort', forward, { once: true });
  const timer = setTimeout(() => stop.abort(new McpError(ErrorCode.RequestTimeout, 'Request timed out', { timeout: timeoutMs })), timeoutMs);
  return {
    stopped,
    release: () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', forward);
    },
  };
}

/** Passes progress on, remembering the last figures, and turns each new status message into a progress update. */
function statusRelay(onprogress: ((progress: ProgressUpdate) => void) | undefined): {
  progress: (progress: ProgressUpdate) => void;
  status: (task: Task) => void;
} {
  let last: ProgressUpdate = { progress: 0 };
  let said: string | undefined;
  return {
    progress: (progress) => {
      last = progress;
      onprogress?.(progress);
    },
    status: (task) => {
      if (task.statusMessage === undefined || task.statusMessage === said) return;
      said = task.statusMessage;
      onprogress?.({ progress: last.progress, ...(last.total !== undefined ? { total: last.total } : {}), message: said });
    },
  };
}
