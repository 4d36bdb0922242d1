// The entry of a sandbox process (forked by SandboxProcess): hosts an in-process Sandbox and talks to its parent over
// the IPC channel (./protocol.ts). A pooled process takes one plain run at a time; a session process hosts many
// sessions, each its own isolate and context, whose runs go on side by side.
// Bundled with esbuild (./child-entry.ts): at build time into dist/, from the sources on first use. The parent
// transpiles agent code: each run comes with its script, given to the Sandbox as `transpiled` (./child-transpile.ts
// stands in for the transpiler).
import type { CallOutcome, HostPort } from '@agent-spaces/capabilities';
import { failed } from '../sandbox/outcome.js';
import { Sandbox, type RunOptions, type SandboxSession } from '../sandbox/sandbox.js';
import type { FromChild, ToChild } from './protocol.js';

const send = (message: FromChild): void => {
  process.send!(message);
};

let sandbox: Sandbox | undefined;
const sessions = new Map<string, SandboxSession>();
/** Runs going on, by id: the abort of each and the resolvers of its calls in flight. */
const runs = new Map<number, { controller: AbortController; calls: Map<number, (outcome: CallOutcome) => void> }>();
let lastCallId = 0;

// The parent went away (exited, crashed, or killed): nothing may outlive it. Not process.exit(), which waits for an
// isolate's thread that may be spinning.
process.on('disconnect', () => process.kill(process.pid, 'SIGKILL'));
process.on('message', (message: ToChild) => {
  switch (message.kind) {
    case 'init':
      void init(message);
      break;
    case 'modules':
      sandbox?.setModules(message.modules);
      break;
    case 'run':
      void run(message);
      break;
    case 'open':
      if (sandbox && !sessions.has(message.session)) sessions.set(message.session, sandbox.createSession());
      break;
    case 'close':
      void sessions.get(message.session)?.close();
      sessions.delete(message.session);
      break;
    case 'outcome': {
      const calls = runs.get(message.runId)?.calls;
      const resolve = calls?.get(message.callId);
      calls?.delete(message.callId);
      resolve?.(message.outcome);
      break;
    }
    case 'abort':
      runs.get(message.runId)?.controller.abort();
      break;
    case 'ping':
      send({ kind: 'pong' });
      break;
  }
});

async function init({ modules, limits, warmUp }: Extract<ToChild, { kind: 'init' }>): Promise<void> {
  sandbox = new Sandbox({ modules, limits });
  // One run makes everything warm: the isolate, the prelude's code cache, the runtime's code, the next context.
  await sandbox.run(warmUp.code, { port: { call: async () => ({ ok: false, error: { code: 'INTERNAL', message: 'warm-up' } }) }, transpiled: warmUp.transpiled });
  send({ kind: 'ready' });
}

async function run({ runId, script, limits, session: sessionId }: Extract<ToChild, { kind: 'run' }>): Promise<void> {
  const { code } = script;
  const controller = new AbortController();
  const calls = new Map<number, (outcome: CallOutcome) => void>();
  runs.set(runId, { controller, calls });
  const port: HostPort = {
    call: (message) =>
      new Promise((resolve) => {
        const callId = ++lastCallId;
        calls.set(callId, resolve);
        send({ kind: 'call', runId, callId, message });
      }),
  };
  const options: RunOptions = { port, signal: controller.signal, limits, onLog: (entry) => send({ kind: 'log', runId, entry }), transpiled: script.transpiled };
  const target = sessionId === undefined ? sandbox : sessions.get(sessionId);
  const outcome = target
    ? await target.run(code, options)
    : failed({ code: 'SESSION_CLOSED', message: `Session ${String(sessionId)} is not open in this process` }, performance.now());
  runs.delete(runId);
  const rssBytes = process.memoryUsage.rss();
  try {
    send({ kind: 'end', runId, outcome: { ...outcome, logs: [] }, rssBytes });
  } catch (error) {
    // A value V8's serializer refuses (isolated-vm copied it, so this is rare): the run still ends.
    const message = `The run's result cannot be sent to the host: ${error instanceof Error ? error.message : String(error)}`;
    send({ kind: 'end', runId, outcome: { ok: false, error: { code: 'RESULT_NOT_CLONEABLE', message }, logs: [], stats: outcome.stats }, rssBytes });
  }
}
