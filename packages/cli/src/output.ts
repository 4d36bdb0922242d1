/** Where the CLI writes: stdout for results, stderr for progress and errors. Tests pass their own. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is a terminal (progress lines may be redrawn, colors used). */
  readonly interactive: boolean;
}

/** The process's stdout/stderr. */
export function createOutput(): Output {
  return {
    out: (text) => process.stdout.write(text + '\n'),
    err: (text) => process.stderr.write(text + '\n'),
    interactive: process.stderr.isTTY === true,
  };
}
