/** One problem found by the pre-run typecheck, located in the agent's own code. */
export interface TypecheckDiagnostic {
  /**
   * TypeScript's diagnostic code (`2322`), or `100001` for agent-spaces' own rule that a script gives its result
   * with either `export default` or a top-level `return`, never both.
   */
  code: number;
  category: 'error' | 'warning';
  message: string;
  /** 1-based line in the agent's code (line 1 for problems inside the given declarations). */
  line: number;
  /** 1-based column (UTF-16 code units) in the agent's code. */
  column: number;
  /** The declared function (a capability's, std's) whose call the problem is in: fix the call against its signature. */
  function?: FunctionHint;
  /** For a name the module or object does not have, its closest names (most alike first). */
  closest?: FunctionHint[];
  /**
   * What the size budget (docs/sdk-and-cli.md, "Typechecking") cut, whole: the message and the hint's signatures as they
   * were before. Absent when nothing was cut; left out of what `mcp serve` answers, which the model reads.
   */
  detail?: { message?: string; signatures?: string[] };
}

/** A declared name a type error is about, as the agent calls it. */
export interface FunctionHint {
  /** As the agent's code names it: `trainSchedule.getSchedule`, or an imported name. */
  name: string;
  /** The module declaring it (`@capabilities/trains`); '' for a global. */
  module: string;
  /**
   * For a function, its signature with parameter object types written out:
   * `trainSchedule.getSchedule(params?: { station?: string }): Promise<Trip[]>`; within the hint's budget, inline
   * object types abbreviated (`{ … }`) or the declared parameter types named instead.
   */
  signature?: string;
}

/** What a {@link Typechecker} checks agent code against. */
export interface TypecheckerOptions {
  /**
   * Declaration texts by file name (`train-schedule.d.ts`): the compiled `@capabilities/*` modules,
   * `@agent-spaces/std` and the sandbox globals. Every name must end with `.d.ts`.
   */
  declarations: ReadonlyMap<string, string>;
}

/**
 * Typechecks agent code with one reused TypeScript language service. Checks asked for with {@link checkBatched} or
 * through a session are checked together: each script is its own file of one program.
 */
export interface Typechecker {
  /** Diagnostics of `code` (empty when it typechecks), checked now and alone. */
  check(code: string): TypecheckDiagnostic[];
  /**
   * Diagnostics of `code`, checked in one program with every other batched check asked for in the same turn of the
   * event loop or while the previous batch ran. A check alone is not delayed: it runs at the end of this turn.
   */
  checkBatched(code: string): Promise<TypecheckDiagnostic[]>;
  /** A session's view of this typechecker: its checks also see the top-level bindings of its earlier runs. */
  createSession(): TypecheckSession;
  /** Replaces the declarations, e.g. after the capabilities were rebuilt. */
  setDeclarations(declarations: ReadonlyMap<string, string>): void;
  /** Frees the language service; the typechecker cannot be used afterwards, and batched checks still queued fail. */
  dispose(): void;
}

/**
 * The checks of one session, batched with all others of the typechecker. The session's top-level bindings (each
 * with the type TypeScript inferred; `any` when the type cannot be written outside its script) are declared in its
 * own checked file only, never seen by another session.
 */
export interface TypecheckSession {
  /** Diagnostics of `code` with the bindings of the session's earlier runs declared; waits for {@link remember}. */
  check(code: string): Promise<TypecheckDiagnostic[]>;
  /**
   * Records the top-level bindings of `code`, which ran in this session, for its next checks. The bindings found by
   * the check of the same code are reused; code that was not checked is checked for them.
   */
  remember(code: string): Promise<void>;
}
