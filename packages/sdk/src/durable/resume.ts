import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { ApprovalOutcome, Approvals, KeptRun, RunStore } from '@agent-spaces/bridge';
import type { Run, RunResult } from '../run.js';
import type { SessionOptions } from '@agent-spaces/runtime';
import type { RestoredSession, RestoreOptions, RunOptions, Session } from '../types.js';
import type { Replay } from './replay.js';

/** What resuming needs of a space. */
export interface ResumeParts {
  runs: RunStore;
  approvals: Approvals;
  /** Starts a run of the space that replays `replay`. */
  replayRun(code: string, options: RunOptions, replay: Replay): Run;
  /** A new session of the space under `id`, and its replaying runner. */
  openSession(id: string, options: SessionOptions): { session: Session; replay(code: string, options: RunOptions, replay: Replay): Run };
}

/**
 * Resumes the paused plain run `runId` (`space.resume`): once every approval it waited for is answered, it is replayed
 * against its ledger under its own id. Throws `REPLAY_UNAVAILABLE` when it is not kept, not paused, not replayable,
 * a session's (see {@link restoreSession}), or still waiting for an answer.
 */
export async function resumeRun(parts: ResumeParts, runId: string, options: RunOptions): Promise<Run> {
  const kept = await parts.runs.kept(runId);
  if (!kept) throw unavailable(runId, 'no such run is kept');
  if (kept.sessionId) throw unavailable(runId, `it ran in session ${kept.sessionId}: restore the session instead`);
  const replay = await pausedReplay(parts, kept);
  return parts.replayRun(kept.script, { ...madeFor(kept, options), typecheck: false }, replay);
}

/**
 * Restores session `sessionId` from its kept runs (`space.restoreSession`): a new session under the same id replays
 * each ended run against its ledger, strictly (a call the ledger does not hold diverges), so its variables are back
 * and no side effect repeats; a last run that paused is then resumed (its approvals must be answered). Throws
 * `REPLAY_UNAVAILABLE` (nothing kept, a run not replayable, an answer missing) or `REPLAY_DIVERGED`; the new session is
 * closed then.
 */
export async function restoreSession(parts: ResumeParts, sessionId: string, options: RestoreOptions): Promise<RestoredSession> {
  const runs = await parts.runs.keptRuns({ sessionId });
  if (runs.length === 0) throw unavailable(sessionId, 'no run of this session is kept', 'session');
  const owner = options.owner ?? runs[0]!.owner;
  const { session, replay } = parts.openSession(sessionId, { ...(owner === undefined ? {} : { owner }), ...(options.processGroup === undefined ? {} : { processGroup: options.processGroup }) });
  try {
    let resumed: RunResult | undefined;
    for (const kept of runs) {
      if (kept.status === 'running') throw unavailable(kept.id, 'it was running when its process stopped', 'run', 'RUN_INTERRUPTED');
      const paused = kept.status === 'paused';
      const toReplay = paused ? await pausedReplay(parts, kept) : { kept: checked(kept), answers: new Map(), strict: true };
      const result = await replay(kept.script, { ...madeFor(kept, options), typecheck: false }, toReplay);
      if (!result.ok && result.error.code === 'REPLAY_DIVERGED') throw new AgentSpacesError('REPLAY_DIVERGED', result.error.message, result.error.data);
      if (paused) resumed = result;
    }
    return { session, ...(resumed ? { resumed } : {}) };
  } catch (error) {
    await session.close();
    throw error;
  }
}

/** The replay of paused run `kept`, with the answers it waited for; throws when it cannot be resumed yet or at all. */
async function pausedReplay(parts: ResumeParts, kept: KeptRun): Promise<Replay> {
  if (kept.status !== 'paused') throw unavailable(kept.id, `it is ${kept.status}, not paused`, 'run', kept.status === 'running' ? 'RUN_INTERRUPTED' : 'REPLAY_UNAVAILABLE');
  const answers = new Map<string, ApprovalOutcome>();
  for (const id of awaitedApprovals(checked(kept))) {
    const answer = (await parts.approvals.get(id))?.answer;
    if (!answer) throw unavailable(kept.id, `approval ${id} has no answer yet`);
    answers.set(id, answer);
  }
  return { kept, answers, strict: false };
}

/** The approval requests paused run `kept` waits for: its script's and its calls'. */
export function awaitedApprovals(kept: KeptRun): string[] {
  const calls = kept.replay.calls.flatMap((call) => (call.approvalId === undefined ? [] : [call.approvalId]));
  return kept.awaitingScript === undefined ? calls : [kept.awaitingScript, ...calls];
}

/** `options` of a replay of `kept`: its calls are made for the principal the run was made for, unless `options` names one. */
function madeFor(kept: KeptRun, options: RunOptions): RunOptions {
  const principal = options.principal ?? kept.principal;
  return principal ? { ...options, principal } : options;
}

function checked(kept: KeptRun): KeptRun {
  if (!kept.replay.replayable) throw unavailable(kept.id, 'its ledger went over its size budget, or a call was in flight when it was kept');
  return kept;
}

function unavailable(id: string, why: string, what: 'run' | 'session' = 'run', code: 'REPLAY_UNAVAILABLE' | 'RUN_INTERRUPTED' = 'REPLAY_UNAVAILABLE'): AgentSpacesError {
  return new AgentSpacesError(code, `Cannot resume ${what} ${id}: ${why}`, { [what === 'run' ? 'runId' : 'sessionId']: id });
}
