// The entry of a sandbox process, the child side (forked by the parent's SupervisedChild): executes the runs its parent
// sends in isolates of this process and talks to the parent over the IPC channel (../protocol.ts). The parent prepared
// each run (limits, transpile, import check) and this side trusts it: it executes the run as sent, and loads no
// transpiler. A pooled process takes one plain run at a time; a session process hosts many sessions, each its own
// isolate and context, whose runs go on side by side.
// Bundled with esbuild (../parent/child-entry.ts): at build time into dist/, from the sources on first use.
import type { CallOutcome } from '@agent-spaces/capabilities';
import type { CallSink } from '../../isolate/channel.js';
import { IsolateRunner, type IsolateSession, type RunRoutes } from '../../isolate/runner.js';
import { RunHold } from '../../hold.js';
import { failed, type RunOutcome } from '../../outcome.js';
import type { FromChild, ToChild } from '../protocol.js';

const send = (message: FromChild): void => {
  process.send!(message);
};

let runner: IsolateRunner | undefined;
const sessions = new Map<string, IsolateSession>();
/** Runs going on, by id: the abort of each and where the outcome of each of its calls in flight goes, by `seq`. */
const runs = new Map<number, { controller: AbortController; calls: Map<number, (outcome: CallOutcome) => void>; hold: RunHold }>();

// The parent went away (exited, crashed, or killed): nothing may outlive it. Not process.exit(), which waits for an
// isolate's thread that may be spinning.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
process.on('message', (message: ToChild) => {
  switch (message.kind) {
    case 'init':
      void init(message);
      break;
    case 'modules':
      if (runner) runner.modules = message.modules;
      break;
    case 'reset':
      // A pooled process hosts no session: closing the runner disposes every isolate a run of the last sandbox used.
      void runner?.close();
      runner = new IsolateRunner(message.memoryMb, message.modules);
      break;
    case 'run':
      void run(message);
      break;
    case 'open':
      if (runner && !sessions.has(message.session)) sessions.set(message.session, runner.createSession());
      break;
    case 'close':
      void sessions.get(message.session)?.close();
      sessions.delete(message.session);
      break;
    case 'outcome': {
      const calls = runs.get(message.runId)?.calls;
      const deliver = calls?.get(message.seq);
      calls?.delete(message.seq);
      deliver?.(message.outcome);
      break;
    }
    case 'abort':
      runs.get(message.runId)?.controller.abort();
      break;
    case 'hold': {
      const hold = runs.get(message.runId)?.hold;
      if (message.held) hold?.hold();
      else hold?.release();
      break;
    }
    case 'ping':
      send({ kind: 'pong' });
      break;
  }
});

async function init({ modules, memoryMb, warmUp }: Extract<ToChild, { kind: 'init' }>): Promise<void> {
  runner = new IsolateRunner(memoryMb, modules);
  // One run makes everything warm: the isolate, the prelude's code cache, the runtime's code, the next context.
  const refuse: CallSink = (_seq, _message, _signal, deliver) => deliver({ ok: false, error: { code: 'INTERNAL', message: 'warm-up' } });
  await runner.run(warmUp, { calls: refuse, signal: undefined, onLog: undefined }, performance.now());
  send({ kind: 'ready' });
}

async function run({ runId, run: prepared, session: sessionId }: Extract<ToChild, { kind: 'run' }>): Promise<void> {
  const started = performance.now();
  const controller = new AbortController();
  const calls = new Map<number, (outcome: CallOutcome) => void>();
  const hold = new RunHold();
  runs.set(runId, { controller, calls, hold });
  const routes: RunRoutes = {
    calls: (seq, message, _signal, deliver) => {
      calls.set(seq, deliver);
      send({ kind: 'call', runId, seq, capability: message.capability, function: message.function, params: message.params });
    },
    signal: controller.signal,
    onLog: (entry) => send({ kind: 'log', runId, entry }),
    hold,
  };
  const session = sessionId === undefined ? undefined : sessions.get(sessionId);
  let outcome: RunOutcome;
  if (sessionId === undefined) outcome = await runner!.run(prepared, routes, started);
  else if (session) outcome = await session.run(async () => ({ run: prepared }), routes);
  else outcome = failed({ code: 'SESSION_CLOSED', message: `Session ${sessionId} is not open in this process` }, started);
  runs.delete(runId);
  end(runId, outcome);
}

/** Reports the end of run `runId` with the child's RSS; the lines were streamed, so the outcome goes without them. */
function end(runId: number, outcome: RunOutcome): void {
  const rssBytes = process.memoryUsage.rss();
  try {
    send({ kind: 'end', runId, outcome: { ...outcome, logs: [] }, rssBytes });
  } catch (error) {
    // A value V8's serializer refuses (isolated-vm copied it, so this is rare): the run still ends.
    const message = `The run's result cannot be sent to the host: ${error instanceof Error ? error.message : String(error)}`;
    send({ kind: 'end', runId, outcome: { ok: false, error: { code: 'RESULT_NOT_CLONEABLE', message }, logs: [], stats: outcome.stats }, rssBytes });
  }
}
