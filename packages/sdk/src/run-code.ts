import { oversizedSource, toWireError, type HostPort, type RunEvent, type RunEventInput, type WireError } from '@agent-spaces/capabilities';
import type { Bridge, CallEvent, CallOrigin, RunStore } from '@agent-spaces/bridge';
import type { RunOutcome, RunOptions as SandboxRunOptions } from '@agent-spaces/runtime';
import { paramsBudget } from './budget.js';
import { Run, type RunLog, type RunResult } from './run.js';
import { RunDurability } from './durable/durability.js';
import type { Replay } from './durable/replay.js';
import { RunLedger } from './run-ledger.js';
import { endRunSpan, startRunSpan } from './tracing.js';
import type { Typecheck, TypecheckDiagnostic } from './typecheck.js';
import type { RunOptions } from './types.js';

/** Runs checked code in the sandbox: the space's or a session's. */
type Executor = (code: string, options: SandboxRunOptions) => Promise<RunOutcome>;

/** What every run of a space shares. */
export interface SpaceRunParts {
  bridge: Bridge;
  /** The space's typecheck (a session brings its own). */
  typecheck: Typecheck;
  /** Where runs are put on record. */
  runs: RunStore;
  checkByDefault: boolean;
  /** Longest agent code run, checked or not (`typecheck.maxSourceBytes`). */
  maxSourceBytes: number;
  /** Ask for approval of the whole script before it runs. */
  approveScripts: boolean;
  /** The space's name, for the run's record and trace span. */
  space: string;
  /** Size budget of a kept run's ledger (docs/runtime.md, "Durable runs"). */
  maxLedgerBytes: number;
  /** Keep a session's runs as they end, so a restarted server can restore the session (the app chose the run store). */
  keepSessionRuns: boolean;
}

/** A session a run belongs to: its id and its own typecheck (which remembers the session's declarations). */
interface RunSession {
  id: string;
  typecheck: Typecheck;
}

/**
 * Starts a {@link Run} of `code` in `execute`'s sandbox; its events and result are redacted by the bridge. With
 * `replay`, the run replays a kept run (under its id) against its ledger.
 */
export type StartRun = (code: string, options: RunOptions, execute: Executor, session?: RunSession, replay?: Replay) => Run;

/** The run starter of a space. */
export function runStarter(parts: SpaceRunParts): StartRun {
  return (code, options, execute, session, replay) =>
    new Run(
      options.onEvent,
      (emit) =>
        runCode(code, options, (input) => emit(parts.bridge.redact(input)), {
          ...parts,
          typecheck: session?.typecheck ?? parts.typecheck,
          execute,
          ...(session ? { sessionId: session.id } : {}),
          replay,
        }).then((result) => parts.bridge.redact(result)),
      replay?.kept.id,
    );
}

interface RunContext extends SpaceRunParts {
  execute: Executor;
  sessionId?: string;
  replay: Replay | undefined;
}

/**
 * One run: `runStarted`, put on record, refused before it runs (size, types, script approval) or executed with its
 * calls going through the bridge (each call's outcome on the run's ledger), then `runFinished` and the record ended.
 */
async function runCode(code: string, options: RunOptions, emit: (event: RunEventInput) => RunEvent, context: RunContext): Promise<RunResult> {
  const began = performance.now();
  const events: RunEvent[] = [];
  const bounded = paramsBudget();
  const record = (input: RunEventInput) => events.push(emit(bounded(input)));
  const { sessionId } = context;
  record({ type: 'runStarted', ...(sessionId ? { sessionId } : {}) });
  const { runId, timestamp: startedAt } = events[0]!;
  const owner = options.owner !== undefined ? { owner: options.owner } : {};
  const startedRun = { id: runId, space: context.space, script: code, startedAt, ...owner, ...(options.principal ? { principal: options.principal } : {}), ...(sessionId ? { sessionId } : {}) };
  const ledger = new RunLedger(context.runs, startedRun);
  const durability = new RunDurability({
    run: startedRun,
    ledger,
    redact: (value) => context.bridge.redact(value),
    maxLedgerBytes: context.maxLedgerBytes,
    keepEnded: sessionId !== undefined && context.keepSessionRuns,
    replay: context.replay,
  });
  const runTrace = startRunSpan({ runId, space: context.space, ...(sessionId ? { sessionId } : {}) });
  // Console output of host code run for the run's calls: run logs too, beside the sandbox's.
  const hostLogs: RunLog[] = [];
  const onEvent = (input: CallEvent) => {
    // Kept before anyone hears of it: a run announced as paused is on record.
    durability.onEvent(input);
    record(input);
    const event = events.at(-1)!;
    if (event.type === 'log') hostLogs.push({ level: event.level, message: event.message, timestamp: event.timestamp });
    if (event.type === 'capabilityResult') ledger.call(event);
  };
  const approver = durability.approver(options.onApproval);
  // An approved call runs once its run is kept as running again (a store's `keep` may resolve later): never twice.
  const beforeApprovedCall = () => ledger.written();
  const origin = { runId, ...(sessionId ? { sessionId } : {}), ...(options.principal ? { principal: options.principal } : {}), onEvent, beforeApprovedCall, traceContext: runTrace.context, ...(approver ? { onApproval: approver } : {}) };
  const finish = async (result: RunResult, executed = true): Promise<RunResult> => {
    durability.end(result.ok ? undefined : result.error, executed);
    const ended = await ledger.end(result);
    if (!ended.ok) record({ type: 'error', error: ended.error });
    record({ type: 'runFinished', ok: ended.ok, durationMs: ended.stats.durationMs, capabilityCalls: ended.stats.capabilityCalls });
    endRunSpan(runTrace.span, ended);
    return ended;
  };
  const refused = (await ledger.started()) ?? (await refusalOf(code, options, context, origin));
  if (refused) return finish({ ok: false, error: refused, logs: [], events, stats: { durationMs: performance.now() - began, capabilityCalls: 0 } }, false);
  const outcome = await execute(code, options, context, origin, durability, (entry) => record({ type: 'log', level: entry.level, message: entry.message }));
  const stats = { durationMs: performance.now() - began, capabilityCalls: outcome.stats.capabilityCalls };
  const logs = hostLogs.length === 0 ? outcome.logs : [...outcome.logs, ...hostLogs].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  const error = durability.error(outcome.ok ? undefined : outcome.error);
  return finish(!error && outcome.ok ? { ok: true, result: outcome.value, logs, events, stats } : { ok: false, error: error!, logs, events, stats });
}

/**
 * Executes `code`, its calls going to the bridge from `origin` and its console output to `onLog`; a session's
 * typecheck then remembers its declarations.
 */
async function execute(
  code: string,
  options: RunOptions,
  context: RunContext,
  origin: CallOrigin,
  durability: RunDurability,
  onLog: (entry: RunLog) => void,
): Promise<RunOutcome> {
  const port: HostPort = durability.port({ call: (message, signal) => context.bridge.call(message, signal, origin) });
  const signal = durability.signal(options.signal);
  const outcome = await context.execute(code, {
    port,
    clock: durability.clock,
    hold: durability.hold,
    ...(signal ? { signal } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.owner !== undefined ? { owner: options.owner } : {}),
    onLog,
  });
  // The session keeps this run's top-level declarations (even when it failed after them): so does its typecheck.
  if (context.sessionId && context.checkByDefault) context.typecheck.remember(code);
  return outcome;
}

/**
 * Why `code` may not run, checked before it does: over the size budget (`TYPECHECK_LIMIT`), its type errors
 * (`TYPE_ERROR`) or a typecheck over its budget, or the person asked to approve the script said no.
 */
async function refusalOf(code: string, options: RunOptions, context: RunContext, origin: CallOrigin & { runId: string }): Promise<WireError | undefined> {
  const oversized = oversizedSource(code, context.maxSourceBytes);
  if (oversized) return oversized.toWire();
  if (options.typecheck ?? context.checkByDefault) {
    let diagnostics: TypecheckDiagnostic[];
    try {
      diagnostics = await context.typecheck.check(code, options.owner);
    } catch (error) {
      return toWireError(error, 'INTERNAL', 'Typecheck failed');
    }
    if (diagnostics.length > 0) {
      return { code: 'TYPE_ERROR', message: await context.typecheck.format(code, diagnostics, options.fileName), data: { diagnostics } };
    }
  }
  if (!context.approveScripts) return undefined;
  return context.bridge.approveScript(code, origin, options.signal ?? new AbortController().signal);
}
