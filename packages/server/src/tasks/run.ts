import { AgentSpacesError, toWireError, type RunEvent } from '@agent-spaces/capabilities';
import { ErrorCode, McpError, type CallToolRequest, type CallToolResult, type CreateTaskResult, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import { createApprover } from '../approval.js';
import type { Connection } from '../connection.js';
import type { ServerLog } from '../log.js';
import { toolError } from '../results.js';
import { logCall } from '../tools/call.js';
import type { ToolContext, ToolSpec } from '../tools/types.js';
import { taskProtocolError, type ServerTasks } from './store.js';

/**
 * Answers a `tools/call` that carries `params.task`: creates the task (bound to the connection's principal) and returns
 * it at once, while the tool runs in the background with its own abort signal — the request's ends with this answer —
 * which `tasks/cancel` aborts. The task is `completed` with the tool's result, an error result included, and `failed`
 * only when the handler throws something unexpected. Throws a JSON-RPC error: `-32602` for an unknown tool or a bad
 * `task.ttl` (`data.code: "INVALID_ARGUMENTS"`), `-32601` for a tool without task support, `-32600` with
 * `data.code: "TOO_MANY_TASKS"` at the principal's cap, `-32603` with `data.code: "STORE_UNAVAILABLE"` when a shared
 * store did not answer.
 */
export async function startTask(specs: readonly ToolSpec[], params: CallToolRequest['params'], connection: Connection, request: RequestId, log: ServerLog): Promise<CreateTaskResult> {
  const spec = specs.find((s) => s.name === params.name);
  if (!spec) throw new McpError(ErrorCode.InvalidParams, `No tool "${params.name}"`, { code: 'TOOL_NOT_FOUND', name: params.name });
  if (spec.execution?.taskSupport !== 'optional') {
    throw new McpError(ErrorCode.MethodNotFound, `Tool "${params.name}" does not run as a task: call it without \`task\``);
  }
  const { tasks } = connection.state;
  let taskId: string;
  let task: CreateTaskResult['task'];
  try {
    task = await tasks.create(connection.principal.id, spec.name, tasks.ttl(params.task?.ttl));
    taskId = task.taskId;
  } catch (error) {
    throw protocolError(error);
  }
  const controller = new AbortController();
  tasks.track(taskId, controller);
  const started = performance.now();
  void runInTask(spec, params, connection, taskId, controller.signal).then((result) =>
    logCall(log, connection, params, { request, task: taskId, started, result, cancelled: controller.signal.aborted }),
  );
  return { task };
}

/** Runs the tool of task `taskId` to its end and settles the task; resolves with the result (never rejects). */
async function runInTask(spec: ToolSpec, params: CallToolRequest['params'], connection: Connection, taskId: string, signal: AbortSignal): Promise<CallToolResult> {
  const { state, server } = connection;
  const watch = new TaskWatch(state.tasks, taskId);
  // Approvals are asked without `relatedRequestId`: the call's own stream ended with the task's creation. A task
  // outlives its request, so a client that cannot be asked leaves the answer to anyone else (`wait`), unless `allow`.
  const headlessMode = state.headlessMode === 'allow' ? 'allow' : 'wait';
  const onApproval = createApprover({ server, headlessMode, timeoutMs: state.approvalTimeoutMs });
  const context: ToolContext = { connection, runOptions: { signal, onApproval, onEvent: (event) => watch.onEvent(event) } };
  let result: CallToolResult;
  let status: 'completed' | 'failed' = 'completed';
  try {
    const valid = await state.validator.check(spec.name, spec.inputSchema, params.arguments);
    result = await spec.handler(valid, context);
  } catch (error) {
    result = toolError(toWireError(error));
    if (!(error instanceof AgentSpacesError)) status = 'failed';
  }
  await watch.idle();
  try {
    await state.tasks.settle(taskId, status, result, status === 'failed' ? 'the tool failed unexpectedly' : undefined);
  } catch (error) {
    // The result cannot be kept (the disk or the database failed): the task fails without it, or stays as it was if
    // even that fails.
    const failed = toolError(toWireError(error));
    try {
      await state.tasks.settle(taskId, 'failed', failed, 'the result could not be kept');
    } catch {
      // The store did not answer: the task stays as it was, run by nobody, for a later sweep to fail.
      state.tasks.untrack(taskId);
      return failed;
    }
  }
  return result;
}

/**
 * Follows the events of a task's runs: records each run's id on the task (so a run resumed after a restart finds it),
 * and keeps the task `input_required` — naming the pending approval — while a run waits for one, `working` otherwise.
 * The writes are made one after another, in the order of the events.
 */
class TaskWatch {
  readonly #tasks: ServerTasks;
  readonly #taskId: string;
  /** Approvals waited for: id → what waits. */
  readonly #pending = new Map<string, string>();
  /** The last write, which the next one follows. */
  #writes: Promise<void> = Promise.resolve();

  constructor(tasks: ServerTasks, taskId: string) {
    this.#tasks = tasks;
    this.#taskId = taskId;
  }

  onEvent(event: RunEvent): void {
    if (event.type === 'runStarted') {
      const { runId } = event;
      this.#write(() => this.#tasks.noteRun(this.#taskId, runId));
      return;
    }
    if (event.type === 'approvalRequired') this.#pending.set(event.id, event.source === 'script' ? 'the script' : `${event.capability}.${event.function}`);
    else if (event.type === 'approvalResolved') this.#pending.delete(event.id);
    else return;
    const [first] = this.#pending;
    const message = first && `waiting for approval ${first[0]} (${first[1]})`;
    this.#write(() => (message ? this.#tasks.setStatus(this.#taskId, 'input_required', message) : this.#tasks.setStatus(this.#taskId, 'working')));
  }

  /** Resolves once every write asked for so far is done (or failed). */
  idle(): Promise<void> {
    return this.#writes;
  }

  #write(write: () => Promise<void>): void {
    // A status that cannot be written changes nothing for the run; its end settles the task.
    this.#writes = this.#writes.then(write).catch(() => undefined);
  }
}

/** The JSON-RPC error of a task that cannot be created: `data.code` is the stable code. */
function protocolError(error: unknown): McpError {
  if (!(error instanceof AgentSpacesError)) return new McpError(ErrorCode.InternalError, `The task cannot be created: ${String(error)}`);
  return taskProtocolError(error);
}
