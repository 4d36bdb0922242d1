import type { TypecheckDiagnostic, Typechecker } from '@agent-spaces/compiler';

export type { TypecheckDiagnostic };

/** The space's typechecker, created on first use so spaces that never check never load TypeScript. */
export class Typecheck {
  #declarations: ReadonlyMap<string, string>;
  #checker: Promise<Typechecker> | undefined;

  constructor(declarations: ReadonlyMap<string, string>) {
    this.#declarations = declarations;
  }

  /** Diagnostics of `code` against the space's declarations. */
  async check(code: string): Promise<TypecheckDiagnostic[]> {
    this.#checker ??= import('@agent-spaces/compiler').then((c) => c.createTypechecker({ declarations: this.#declarations }));
    return (await this.#checker).check(code);
  }

  /** Human-readable diagnostics with source excerpts. */
  async format(code: string, diagnostics: TypecheckDiagnostic[]): Promise<string> {
    const { formatDiagnostics } = await import('@agent-spaces/compiler');
    return formatDiagnostics(code, diagnostics, 'agent.ts');
  }

  /** Frees the language service, if one was created. */
  dispose(): void {
    void this.#checker?.then((c) => c.dispose());
  }
}
