import { payloadBytes, type HostPort, type LogLevel, type WireError } from '@agent-spaces/capabilities';
import type { TranspiledScript } from '../assemble.js';
import { HostChannel, isTimeout, type ChannelOwner } from '../host-port.js';
import type { RunLimits } from '../limits.js';
import type { Lease } from '../pool.js';
import type { MainResult } from '../prelude/contract.js';
import { aborted, cpuLimit, isolateError, resultNotCloneable, resultTooLarge, scriptError, timeout, type RunOutcome } from './outcome.js';

/** What one run needs besides its isolate and context. */
export interface Execution {
  script: TranspiledScript;
  modules: ReadonlyMap<string, string>;
  limits: RunLimits;
  port: HostPort;
  signal: AbortSignal | undefined;
  onLog: ((entry: { level: LogLevel; message: string; timestamp: string }) => void) | undefined;
  /** Keep the script's top-level declarations as globals (sessions). */
  persist: boolean;
  /** `performance.now()` when the run began: the wall clock counts from here. */
  started: number;
}

/** How a run ended, and whether the agent's code had finished (if not, its isolate may still be busy). */
export interface Executed {
  outcome: RunOutcome;
  settled: boolean;
}

type End = { result: MainResult } | { error: WireError };

/**
 * Runs a transpiled script in a leased context under its limits: the wall clock, CPU time, the abort signal and the
 * channel's call, payload and log limits each end the run at once with a structured error. When the run ends,
 * in-flight calls are aborted on the host and their outcomes dropped. A plain run's first stretch is tried inline
 * (see {@link HostChannel.tryInline}); when it runs long, the run starts over in a fresh context, which replaces
 * `lease.context`.
 */
export async function execute(lease: Lease, run: Execution): Promise<Executed> {
  const { host } = lease;
  const { limits, signal } = run;
  const isolate = host.isolate;
  const cpuStart = isolate.cpuTime;
  let cpuMs = 0;
  const cpuUsedMs = (): number => {
    if (!host.disposed) cpuMs = Number(isolate.cpuTime - cpuStart) / 1e6;
    return cpuMs;
  };
  let over = false;
  let finish!: (end: End) => void;
  const ended = new Promise<End>((resolve) => {
    finish = (end) => {
      over = true;
      resolve(end);
    };
  });
  const elapsed = (): number => performance.now() - run.started;
  const wallLeft = (): number => limits.timeoutMs - elapsed();
  const cpuLeft = (): number => limits.cpuTimeMs - cpuUsedMs();
  let settled = false;
  const owner: ChannelOwner = {
    limits,
    port: run.port,
    onLog: run.onLog,
    fail: (error) => finish({ error }),
    stop: () => host.dispose(),
    done(result) {
      settled = true;
      finish({ result });
    },
    budgetMs: () => Math.min(wallLeft(), cpuLeft()),
    raised(error) {
      // A budget ran out (isolated-vm's timeout is the smaller of the two), or the isolate is gone (the memory limit,
      // or the sandbox closing); anything else is a rejection the agent had not handled yet, and the run goes on.
      if (error === undefined || isTimeout(error)) finish({ error: cpuLeft() <= wallLeft() ? cpuLimit(limits) : timeout(limits) });
      else if (host.disposed) finish({ error: isolateError(error, limits, true) });
    },
  };
  let channel = new HostChannel(lease.context.settle, owner);
  const stopOnDispose = host.onDispose(() => finish({ error: isolateError(new Error('The isolate was disposed'), limits, true) }));
  lease.context.channel = channel;

  // One timer watches both clocks: CPU time grows no faster than wall time, so it is checked no earlier than it could
  // have run out, and again when what is left of either budget has passed.
  let timer: NodeJS.Timeout | undefined;
  const watch = (): void => {
    const wall = wallLeft();
    if (wall <= 0) return finish({ error: timeout(limits) });
    const cpu = cpuLeft();
    if (cpu <= 0) return finish({ error: cpuLimit(limits) });
    timer = setTimeout(watch, Math.max(1, Math.min(wall, cpu)));
  };
  timer = setTimeout(watch, Math.max(0, Math.min(limits.timeoutMs - elapsed(), limits.cpuTimeMs)));
  const onAbort = (): void => finish({ error: aborted(signal?.reason) });
  signal?.addEventListener('abort', onAbort, { once: true });

  /** Links and starts the agent's code; a plain run once more on the isolate's thread if its inline start ran long. */
  const begin = async (): Promise<void> => {
    try {
      const agent = lease.context.link(run.script, run.modules, wallLeft());
      if (run.persist) return channel.startedOn(lease.context.start(agent, true));
      if (channel.tryInline((timeoutMs) => lease.context.startInline(agent, timeoutMs))) return;
      lease.context.release();
      lease.context = await host.newContext(run.modules);
      if (over) {
        settled = true;
        return;
      }
      channel = new HostChannel(lease.context.settle, owner);
      lease.context.channel = channel;
      channel.startedOn(lease.context.start(lease.context.link(run.script, run.modules, wallLeft()), false));
    } catch (error) {
      // Linking runs only trusted code, and a new context none: nothing of the agent's is left running.
      settled = true;
      finish({ error: isolateError(error, limits, host.disposed) });
    }
  };
  let begun: Promise<void> | undefined;
  if (signal?.aborted) {
    settled = true;
    onAbort();
  } else {
    begun = begin();
  }

  const end = await ended;
  // A run can end while a fresh context is being made for its second start: `lease.context` is final once that is over.
  await begun;
  clearTimeout(timer);
  stopOnDispose();
  signal?.removeEventListener('abort', onAbort);
  channel.end();
  lease.context.channel = undefined;

  const stats = { durationMs: elapsed(), capabilityCalls: channel.calls, cpuTimeMs: cpuUsedMs() };
  const logs = channel.logs;
  if ('error' in end) return { settled, outcome: { ok: false, error: end.error, logs, stats } };
  if (!end.result.ok) {
    const error = 'thrown' in end.result ? scriptError(end.result.thrown) : resultNotCloneable(end.result.notCloneable);
    return { settled, outcome: { ok: false, error, logs, stats } };
  }
  const value = end.result.value;
  if (payloadBytes(value, limits.maxPayloadBytes) > limits.maxPayloadBytes) {
    return { settled, outcome: { ok: false, error: resultTooLarge(limits), logs, stats } };
  }
  return { settled, outcome: { ok: true, value, logs, stats } };
}
