import type { TypecheckDiagnostic, Typechecker } from '@agent-spaces/compiler';

export type { TypecheckDiagnostic };

/** Name of the declaration file holding a session's top-level bindings. */
const SESSION_FILE = 'session-bindings.d.ts';

/**
 * The typechecker of a space or of one session, created on first use so spaces that never check never load
 * TypeScript. A session's typechecker also knows the top-level bindings of the session's earlier runs.
 */
export class Typecheck {
  readonly #declarations: ReadonlyMap<string, string>;
  readonly #bindings = new Map<string, string>();
  #checker: Promise<Typechecker> | undefined;
  /** The last {@link remember}, which the next check waits for. */
  #remembered: Promise<void> = Promise.resolve();

  constructor(declarations: ReadonlyMap<string, string>) {
    this.#declarations = declarations;
  }

  /** Diagnostics of `code` against the space's declarations (and, in a session, the earlier runs' bindings). */
  async check(code: string): Promise<TypecheckDiagnostic[]> {
    await this.#remembered;
    return (await this.#load()).check(code);
  }

  /** Records the top-level bindings of `code`, which ran in this typechecker's session, for the session's next checks. */
  remember(code: string): void {
    this.#remembered = this.#remembered.then(async () => {
      const checker = await this.#load();
      for (const [name, type] of checker.sessionBindings(code)) this.#bindings.set(name, type);
      const lines = [...this.#bindings].map(([name, type]) => `declare var ${name}: ${type};`);
      checker.setDeclarations(new Map([...this.#declarations, [SESSION_FILE, `${lines.join('\n')}\n`]]));
    }).catch(() => undefined);
  }

  /** Human-readable diagnostics with source excerpts. */
  async format(code: string, diagnostics: TypecheckDiagnostic[], fileName = 'agent.ts'): Promise<string> {
    const { formatDiagnostics } = await import('@agent-spaces/compiler');
    return formatDiagnostics(code, diagnostics, fileName);
  }

  /** Frees the language service, if one was created. */
  dispose(): void {
    void this.#checker?.then((c) => c.dispose());
  }

  #load(): Promise<Typechecker> {
    this.#checker ??= import('@agent-spaces/compiler').then((c) => c.createTypechecker({ declarations: this.#declarations }));
    return this.#checker;
  }
}
