import type { RunStore } from '@agent-spaces/bridge';
import type { ProcessSandbox, Sandbox, SessionOptions } from '@agent-spaces/runtime';
import type { Replay } from './durable/replay.js';
import type { Run } from './run.js';
import type { StartRun } from './run-code.js';
import type { Typecheck } from './typecheck.js';
import type { RunOptions, Session } from './types.js';

/** The sessions of a space: each a sandbox session with its own typecheck; all closed with the space. */
export class SpaceSessions {
  /** Open sessions, each with how to end it while the space closes (its kept runs stay: a restart can restore it). */
  readonly #open = new Map<Session, () => Promise<void>>();
  readonly #sandbox: Sandbox | ProcessSandbox;
  readonly #typecheck: Typecheck;
  readonly #start: StartRun;
  readonly #runs: RunStore;

  /** `runs`: where a session's kept runs are forgotten as it closes. */
  constructor(sandbox: Sandbox | ProcessSandbox, typecheck: Typecheck, start: StartRun, runs: RunStore) {
    this.#sandbox = sandbox;
    this.#typecheck = typecheck;
    this.#start = start;
    this.#runs = runs;
  }

  /** A new session (`space.createSession()`): top-level declarations of a run are visible to the next. */
  create(options: SessionOptions = {}): Session {
    return this.open(options).session;
  }

  /**
   * A new session (under `id`, a restored session's, when given) and its replaying runner: a run of it that replays a
   * kept run of the session (`space.restoreSession`).
   */
  open(options: SessionOptions = {}, id?: string): { session: Session; replay(code: string, options: RunOptions, replay: Replay): Run } {
    const inner = this.#sandbox.createSession(options);
    const typecheck = this.#typecheck.session(options.owner);
    const parts = { id: id ?? inner.id, typecheck };
    let closed = false;
    const end = async () => {
      this.#open.delete(session);
      closed = true;
      typecheck.dispose();
      await inner.close();
    };
    const session: Session = {
      id: parts.id,
      // A closed session answers SESSION_CLOSED without typechecking first.
      run: (code, runOptions = {}) => this.#start(code, closed ? { ...runOptions, typecheck: false } : runOptions, (c, o) => inner.run(c, o), parts),
      close: async (closeOptions = {}) => {
        await end();
        if (closeOptions.keepRuns) return;
        for (const kept of await this.#runs.keptRuns({ sessionId: parts.id })) await this.#runs.forget(kept.id);
      },
    };
    this.#open.set(session, end);
    return { session, replay: (code, runOptions, replay) => this.#start(code, runOptions, (c, o) => inner.run(c, o), parts, replay) };
  }

  /** Ends every open session as the space closes; their kept runs stay, so a later process can restore them. */
  async close(): Promise<void> {
    await Promise.all([...this.#open.values()].map((end) => end()));
  }
}
