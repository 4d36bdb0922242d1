import type { TypecheckDiagnostic, Typechecker, TypecheckSession } from '@agent-spaces/compiler';

export type { TypecheckDiagnostic };

/**
 * The typecheck of a space, or of one of its sessions. A space has one typechecker, created on first use so spaces
 * that never check never load TypeScript, and shared by its sessions; checks that wait together are checked in one
 * program. A session's typecheck also knows the top-level bindings of the session's earlier runs.
 */
export class Typecheck {
  /** The space's declarations and its typechecker once loaded; one object, shared by the sessions' typechecks. */
  #space: { declarations: ReadonlyMap<string, string>; checker?: Promise<Typechecker> };
  /** A session's view of the checker, opened on first use; `undefined` in the space's typecheck. */
  #session: (() => Promise<TypecheckSession>) | undefined;
  #closed = false;

  constructor(declarations: ReadonlyMap<string, string>) {
    this.#space = { declarations };
  }

  /** The typecheck of a new session of this space: the space's checker, with the session's bindings. */
  session(): Typecheck {
    const typecheck = new Typecheck(this.#space.declarations);
    typecheck.#space = this.#space;
    let session: Promise<TypecheckSession> | undefined;
    typecheck.#session = () => (session ??= this.#checker().then((c) => c.createSession()));
    return typecheck;
  }

  /** Diagnostics of `code` against the space's declarations (and, in a session, the earlier runs' bindings). */
  async check(code: string): Promise<TypecheckDiagnostic[]> {
    if (this.#session) return (await this.#session()).check(code);
    return (await this.#checker()).checkBatched(code);
  }

  /**
   * Records the top-level bindings of `code`, which ran in this typecheck's session (even when it failed after
   * them), for the session's next checks. A space's typecheck keeps no bindings.
   */
  remember(code: string): void {
    if (!this.#session || this.#closed) return;
    // Chained before any later check of the session, which waits for it; a failure leaves the bindings as they were.
    this.#session()
      .then((session) => session.remember(code))
      .catch(() => undefined);
  }

  /** Human-readable diagnostics with source excerpts. */
  async format(code: string, diagnostics: TypecheckDiagnostic[], fileName = 'agent.ts'): Promise<string> {
    const { formatDiagnostics } = await import('@agent-spaces/compiler');
    return formatDiagnostics(code, diagnostics, fileName);
  }

  /** A session's typecheck stops recording; the space's frees its language service, if one was created. */
  dispose(): void {
    this.#closed = true;
    if (!this.#session) void this.#space.checker?.then((c) => c.dispose());
  }

  #checker(): Promise<Typechecker> {
    const space = this.#space;
    space.checker ??= import('@agent-spaces/compiler').then((c) => c.createTypechecker({ declarations: space.declarations }));
    return space.checker;
  }
}
