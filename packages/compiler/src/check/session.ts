import type { Binding } from './bindings.js';
import type { TypecheckDiagnostic, TypecheckSession } from './types.js';

/** One script for the typechecker, with what a session adds to it. */
export interface CheckRequest {
  code: string;
  /** Bindings of a session's earlier runs, by name, to declare for this script only. */
  bindings?: ReadonlyMap<string, Binding>;
  /** Also find the top-level bindings the script declares. */
  collectBindings?: boolean;
}

/** The typechecker's answer to a {@link CheckRequest}. */
export interface CheckResult {
  diagnostics: TypecheckDiagnostic[];
  /** The script's top-level bindings, when asked for (empty otherwise). */
  bindings: ReadonlyMap<string, Binding>;
}

/** A {@link TypecheckSession} whose checks go into the typechecker's batches through `submit`. */
export class BatchedSession implements TypecheckSession {
  readonly #submit: (request: CheckRequest) => Promise<CheckResult>;
  readonly #bindings = new Map<string, Binding>();
  /** The bindings found by the last check, kept for the {@link remember} of its run. */
  #checked: { code: string; bindings: ReadonlyMap<string, Binding> } | undefined;
  /** The last {@link remember}, which the next check waits for. */
  #remembered: Promise<void> = Promise.resolve();

  constructor(submit: (request: CheckRequest) => Promise<CheckResult>) {
    this.#submit = submit;
  }

  async check(code: string): Promise<TypecheckDiagnostic[]> {
    await this.#remembered;
    const result = await this.#find(code);
    this.#checked = { code, bindings: result.bindings };
    return result.diagnostics;
  }

  remember(code: string): Promise<void> {
    const recorded = this.#remembered.then(async () => {
      const checked = this.#checked;
      const bindings = checked?.code === code ? checked.bindings : (await this.#find(code)).bindings;
      for (const [name, binding] of bindings) this.#bindings.set(name, binding);
    });
    // A recording that failed (the typechecker was disposed) must not block the session's next checks.
    this.#remembered = recorded.catch(() => undefined);
    return recorded;
  }

  #find(code: string): Promise<CheckResult> {
    return this.#submit({ code, bindings: new Map(this.#bindings), collectBindings: true });
  }
}
