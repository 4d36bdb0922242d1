import { AgentSpacesError, LOCAL_PRINCIPAL, toWireError } from '@agent-spaces/capabilities';
import { expiredOutcome } from '@agent-spaces/bridge';
import { awaitedApprovals, type KeptRun, type RunResult } from '@agent-spaces/sdk';
import type { Connection, HostState } from '../connection.js';
import type { ServerLog } from '../log.js';
import { aliveElsewhere } from '../process-alive.js';
import { runResult, toolError } from '../results.js';
import { skillsView, skillViewer } from '../skills/visibility.js';
import type { TaskRecord } from '../tasks/record.js';

/**
 * What a server does at start with the runs a stopped process left behind (docs/mcp-server.md, "Durable runs"): a
 * run that was paused for approval is resumed — replayed against its ledger — once every approval it waits for is
 * answered (from the CLI, `/approvals` or the console; an expired one counts as denied), and its task, if it ran in
 * one, gets the result; a plain run that was running is interrupted (`RUN_INTERRUPTED`: it may have been in the middle
 * of a call, so it is never replayed); a task whose run is neither is failed. Runs of another live process (a second
 * server on the project) are left to it. Stops waiting when `signal` aborts.
 */
async function recoverRuns(state: HostState, signal: AbortSignal, resuming = new Set<string>()): Promise<void> {
  const kept: KeptRun[] = [];
  // Only paused and running runs are recovered (a session's ended runs stay for its restore): a sweep reads no ledger else.
  const candidates = [...(await state.durable.runs.keptRuns({ status: 'paused' })), ...(await state.durable.runs.keptRuns({ status: 'running' }))];
  for (const run of candidates) if (!resuming.has(run.id) && (await gone(state, run))) kept.push(run);
  const paused = new Set(kept.filter((run) => run.status === 'paused').map((run) => run.id));
  for (const task of await state.tasks.unfinished()) {
    if (!(await orphaned(state, task))) continue;
    if (!task.runIds.some((id) => paused.has(id) || resuming.has(id))) {
      await state.tasks.settle(task.task.taskId, 'failed', interruptedResult(), 'the server restarted while the task ran');
    }
  }
  for (const run of kept) {
    if (run.status === 'paused') {
      if (!(await claimed(state, run))) continue;
      resuming.add(run.id);
      void resumeWhenAnswered(state, run, signal).finally(() => resuming.delete(run.id));
    } else if (run.status === 'running' && run.sessionId === undefined) await state.durable.runs.forget(run.id);
  }
}

/** How often a replica looks for the paused runs and tasks of replicas that are gone. */
const SWEEP_MS = 2_000;

/**
 * Recovers, now and then every {@link SWEEP_MS} while `signal` lives, what processes that stopped left behind
 * ({@link recoverRuns}): with replicas, also what a replica that died later left (its paused runs resume here once
 * answered — claimed by exactly one live replica — and its other tasks fail). Without replicas, once.
 */
export function watchRecovery(state: HostState, signal: AbortSignal): void {
  const resuming = new Set<string>();
  // One sweep at a time: a slow one (a slow database) is not overtaken by the next, which could claim a run twice.
  let sweeping = false;
  const sweep = async () => {
    if (sweeping) return;
    sweeping = true;
    await recoverRuns(state, signal, resuming)
      .catch((error: unknown) => {
        if (!signal.aborted) state.log.event('run.resumed', { ok: false, code: toWireError(error).code, message: toWireError(error).message }, 'error');
      })
      .finally(() => (sweeping = false));
  };
  void sweep();
  if (!state.replicas) return;
  const timer = setInterval(() => void sweep(), SWEEP_MS);
  timer.unref();
  signal.addEventListener('abort', () => clearInterval(timer), { once: true });
}

/**
 * True when the holder of a kept run or task is gone. With replicas, the replica it names (this one is alive; one that
 * names none is left alone). Alone, at start: its process (`pid`), unless another live process holds it (a second
 * server on the project folder).
 */
async function gone(state: HostState, holder: { pid?: number; replica?: string }): Promise<boolean> {
  if (state.replicas) return holder.replica !== undefined && !(await state.replicas.alive(holder.replica));
  return !aliveElsewhere(holder.pid);
}

/**
 * True when task `task` runs nowhere: its holder is gone, or — with replicas, where this replica takes over the tasks
 * of gone ones — it is this replica's but runs in no call of this process (made more than a sweep ago, so never one
 * whose call is just starting).
 */
async function orphaned(state: HostState, task: TaskRecord): Promise<boolean> {
  if (await gone(state, { pid: task.process.pid, replica: task.replica })) return true;
  const mine = state.replicas !== undefined && task.replica === state.replicas.id;
  return mine && !state.tasks.runsHere(task.task.taskId) && Date.now() - Date.parse(task.task.createdAt) > SWEEP_MS;
}

/** True when this process may resume paused `run`: always alone; with replicas, when it won the claim on it. */
async function claimed(state: HostState, run: KeptRun): Promise<boolean> {
  return state.replicas ? state.replicas.claim(`run:${run.id}`, run.replica) : true;
}

/** Waits for every answer `run` waits for, then resumes it and settles its task; logs how it went. */
async function resumeWhenAnswered(state: HostState, run: KeptRun, signal: AbortSignal): Promise<void> {
  const { log } = state;
  try {
    await Promise.all(awaitedApprovals(run).map((id) => answered(state, id, signal)));
    const started = performance.now();
    const result = await resumed(state, run);
    const task = await state.tasks.byRun(run.id);
    if (task) await state.tasks.settle(task.task.taskId, 'completed', runResult(result));
    log.event('run.resumed', { run: run.id, space: run.space, ok: result.ok, code: result.ok ? undefined : result.error.code, duration_ms: Math.round(performance.now() - started), task: task?.task.taskId });
  } catch (error) {
    if (signal.aborted) return;
    const wire = toWireError(error);
    const task = await state.tasks.byRun(run.id);
    if (task) await state.tasks.settle(task.task.taskId, 'completed', toolError(wire));
    if (run.sessionId === undefined) await state.durable.runs.forget(run.id);
    logFailure(log, run, wire.code);
  }
}

/** Resolves once approval `id` is answered: an expired one is denied as it expires, a missing one is an error. */
async function answered(state: HostState, id: string, signal: AbortSignal): Promise<void> {
  const store = state.durable.approvalStore;
  const record = await store.get(id);
  if (!record) throw new AgentSpacesError('REPLAY_UNAVAILABLE', `The approval request ${id} the run waits for is not on record`, { approvalId: id });
  if (record.answer) return;
  const expiresAt = record.request.expiresAt === undefined ? Infinity : Date.parse(record.request.expiresAt);
  const expire = () => void store.answer(id, expiredOutcome(record.request));
  const timer = Number.isFinite(expiresAt) ? setTimeout(expire, Math.max(0, expiresAt - Date.now())) : undefined;
  timer?.unref();
  try {
    await store.answered(id, signal);
  } finally {
    clearTimeout(timer);
  }
}

/** Resumes `run` in its space: a plain run by itself, a session's by restoring the session (then closed, kept). */
async function resumed(state: HostState, run: KeptRun): Promise<RunResult> {
  const definition = state.spaces.find((space) => space.id === run.space);
  if (!definition) throw new AgentSpacesError('SPACE_NOT_FOUND', `The space "${run.space}" of paused run ${run.id} is no longer served`, { spaceId: run.space });
  // The view of the space its principal had: without the skills it may not see.
  const view = await skillsView(skillViewer(state.skillProject, run.principal ?? LOCAL_PRINCIPAL, run.owner ?? ''), undefined);
  const { space, release } = await state.shared.use(definition, view);
  try {
    const owner = run.owner === undefined ? {} : { owner: run.owner };
    if (run.sessionId === undefined) return await (await space.resume(run.id, owner));
    const { session, resumed } = await space.restoreSession(run.sessionId, owner);
    await session.close({ keepRuns: true });
    if (!resumed) throw new AgentSpacesError('REPLAY_UNAVAILABLE', `Session ${run.sessionId} had no paused run to resume`, { runId: run.id });
    return resumed;
  } finally {
    release();
  }
}

function interruptedResult() {
  return toolError({ code: 'RUN_INTERRUPTED', message: 'The server restarted while the task ran, outside a pause: it is not resumed', data: { reason: 'restart' } });
}

function logFailure(log: ServerLog, run: KeptRun, code: string): void {
  log.event('run.resumed', { run: run.id, space: run.space, ok: false, code });
}

/**
 * Restores session `id` for `connection` when this process does not hold it but a stopped one did, for the same
 * principal (its runs replayed: variables back, no side effect repeated). A session that cannot be restored is
 * closed on record and the error says why (`REPLAY_UNAVAILABLE`, `REPLAY_DIVERGED`, `RUN_INTERRUPTED`).
 */
export async function restoreKept(connection: Connection, id: string): Promise<void> {
  await connection.state.sessions.ensure(connection.id, connection.principal.id, id, async (spaceId) => {
    const space = await connection.space(connection.definition(spaceId));
    return space.restoreSession(id);
  });
}
