import type { ProcessSandbox, Sandbox, SessionOptions } from '@agent-spaces/runtime';
import type { StartRun } from './run-code.js';
import type { Typecheck } from './typecheck.js';
import type { Session } from './types.js';

/** The sessions of a space: each a sandbox session with its own typecheck; all closed with the space. */
export class SpaceSessions {
  readonly #open = new Set<Session>();
  readonly #sandbox: Sandbox | ProcessSandbox;
  readonly #typecheck: Typecheck;
  readonly #start: StartRun;

  constructor(sandbox: Sandbox | ProcessSandbox, typecheck: Typecheck, start: StartRun) {
    this.#sandbox = sandbox;
    this.#typecheck = typecheck;
    this.#start = start;
  }

  /** A new session (`space.createSession()`): top-level declarations of a run are visible to the next. */
  create(options: SessionOptions = {}): Session {
    const inner = this.#sandbox.createSession(options);
    const typecheck = this.#typecheck.session(options.owner);
    const parts = { id: inner.id, typecheck };
    let closed = false;
    const session: Session = {
      id: inner.id,
      // A closed session answers SESSION_CLOSED without typechecking first.
      run: (code, runOptions = {}) => this.#start(code, closed ? { ...runOptions, typecheck: false } : runOptions, (c, o) => inner.run(c, o), parts),
      close: async () => {
        this.#open.delete(session);
        closed = true;
        typecheck.dispose();
        await inner.close();
      },
    };
    this.#open.add(session);
    return session;
  }

  /** Closes every open session. */
  async close(): Promise<void> {
    await Promise.all([...this.#open].map((s) => s.close()));
  }
}
