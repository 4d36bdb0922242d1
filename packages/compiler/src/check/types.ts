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
}

/** What a {@link Typechecker} checks agent code against. */
export interface TypecheckerOptions {
  /**
   * Declaration texts by file name (`train-schedule.d.ts`): the compiled `@capabilities/*` modules,
   * `@agent-spaces/std` and the sandbox globals. Every name must end with `.d.ts`.
   */
  declarations: ReadonlyMap<string, string>;
}

/** Typechecks agent code with one reused TypeScript language service. */
export interface Typechecker {
  /** Diagnostics of `code` (empty when it typechecks); repeated checks reuse the parsed libs and declarations. */
  check(code: string): TypecheckDiagnostic[];
  /**
   * The top-level bindings `code` declares, each with the type TypeScript infers for it (`string`,
   * `import("@capabilities/train-schedule").Trip[]`), for a session to declare as globals of its next runs. A type
   * that cannot be written outside the script (a local class or interface) becomes `any`.
   */
  sessionBindings(code: string): Map<string, string>;
  /** Replaces the declarations, e.g. after the capabilities were rebuilt. */
  setDeclarations(declarations: ReadonlyMap<string, string>): void;
  /** Frees the language service; the typechecker cannot be used afterwards. */
  dispose(): void;
}

/** Code of the diagnostic for a script that mixes `export default` with a top-level `return`. */
export const MIXED_RESULT_CODE = 100_001;
