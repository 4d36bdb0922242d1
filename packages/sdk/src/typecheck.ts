import { join } from 'node:path';
import type { BoundedTypechecker, TypecheckDiagnostic, TypecheckSession } from '@agent-spaces/compiler';
import type { TypecheckBudget } from '@agent-spaces/capabilities';

export type { TypecheckDiagnostic };

/** Where a space with output folder `outDir` keeps the results of its plain checks across processes. */
export function typecheckCacheDir(outDir: string): string {
  return join(outDir, 'cache', 'typecheck');
}

/**
 * Starts loading TypeScript and its lib files in a typecheck worker for a space (output folder `outDir`, typecheck
 * `budget`) that is about to check `code`, while the space loads; unless `code` was checked before (its result is then
 * likely kept, and a worker would be wasted). For a one-off run, such as `agent-spaces run`.
 */
export function preloadTypecheck(options: { outDir: string; code: string; budget?: Partial<TypecheckBudget> }): void {
  const script = { code: options.code, cacheDir: typecheckCacheDir(options.outDir) };
  void import('@agent-spaces/compiler')
    .then((compiler) => compiler.preloadTypechecker({ script, ...(options.budget ? { budget: options.budget } : {}) }))
    // The check itself reports a compiler that does not load.
    .catch(() => undefined);
}

/** The space-wide part of every {@link Typecheck}: what code is checked against, and the checker once loaded. */
interface SpaceChecker {
  declarations: ReadonlyMap<string, string>;
  budget: Partial<TypecheckBudget> | undefined;
  /** Where results are kept across processes (the compiler's typecheck cache); none when undefined. */
  cacheDir: string | undefined;
  checker?: Promise<BoundedTypechecker>;
}

/**
 * The typecheck of a space, or of one of its sessions. Checks run in the compiler's typecheck workers under the
 * space's budget (`TYPECHECK_LIMIT` past it), never on this thread; the compiler is loaded on first use (or
 * {@link prepare}), so spaces that never check never load it. A session's typecheck also knows the top-level bindings
 * of its earlier runs.
 */
export class Typecheck {
  #space: SpaceChecker;
  /** A session's view of the checker, opened on first use; `undefined` in the space's typecheck. */
  #session: (() => Promise<TypecheckSession>) | undefined;
  #closed = false;

  /** `cacheDir` (`<outDir>/cache/typecheck`) keeps the results of the space's plain checks, not sessions' ones. */
  constructor(declarations: ReadonlyMap<string, string>, budget?: Partial<TypecheckBudget>, cacheDir?: string) {
    this.#space = { declarations, budget, cacheDir };
  }

  /** Starts loading the checker and a typecheck worker with the space's declarations, ahead of the first check. */
  prepare(): void {
    void this.#checker()
      .then((checker) => checker.prepare())
      .catch(() => undefined);
  }

  /** The typecheck of a new session of this space, for `owner`: the space's checker, with the session's bindings. */
  session(owner?: string): Typecheck {
    const typecheck = new Typecheck(this.#space.declarations);
    typecheck.#space = this.#space;
    let session: Promise<TypecheckSession> | undefined;
    typecheck.#session = () => (session ??= this.#checker().then((c) => c.createSession(owner)));
    return typecheck;
  }

  /**
   * Diagnostics of `code` against the space's declarations (and, in a session, the earlier runs' bindings); `owner`
   * (outside a session) is whom the check is for, served fairly beside others. Rejects with `TYPECHECK_LIMIT`.
   */
  async check(code: string, owner?: string): Promise<TypecheckDiagnostic[]> {
    if (this.#session) return (await this.#session()).check(code);
    return (await this.#checker()).check(code, owner);
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

  /** A session's typecheck stops recording; the space's refuses later checks. */
  dispose(): void {
    this.#closed = true;
    if (!this.#session) void this.#space.checker?.then((c) => c.dispose());
  }

  #checker(): Promise<BoundedTypechecker> {
    const space = this.#space;
    space.checker ??= import('@agent-spaces/compiler').then((c) =>
      c.createBoundedTypechecker({
        declarations: space.declarations,
        ...(space.budget ? { budget: space.budget } : {}),
        ...(space.cacheDir === undefined ? {} : { cacheDir: space.cacheDir }),
      }),
    );
    return space.checker;
  }
}
