/** Where the CLI writes: stdout for results, stderr for progress and errors. Tests pass their own. */
export interface Output {
  out(text: string): void;
  err(text: string): void;
  /** True when stderr is a terminal (progress lines may be redrawn, colors used). */
  readonly interactive: boolean;
}

/** How much a command says on stderr: `--quiet` leaves out progress, `--verbose` adds details. */
export type Verbosity = 'quiet' | 'normal' | 'verbose';

/** What commands write through: {@link Output} plus progress lines that `--quiet` drops and details only `--verbose` shows. */
export interface CliOutput extends Output {
  /** Progress and success lines (stderr): left out with `--quiet`. */
  info(text: string): void;
  /** Details (stderr): shown only with `--verbose`. */
  debug(text: string): void;
}

/** The process's stdout/stderr. */
export function createOutput(): Output {
  return {
    out: (text) => process.stdout.write(text + '\n'),
    err: (text) => process.stderr.write(text + '\n'),
    interactive: process.stderr.isTTY === true,
  };
}

/**
 * True when stderr lines get colors: on a terminal unless `NO_COLOR` is set (https://no-color.org), or whenever
 * `FORCE_COLOR` is set to anything but `0`.
 */
export function useColor(output: Output, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '') return env.FORCE_COLOR !== '0';
  return output.interactive && (env.NO_COLOR === undefined || env.NO_COLOR === '');
}

/** A line's leading mark and its color (SGR code): the one place that says how marks look. */
const MARKS: Record<string, number> = { '✓': 32, '↻': 36, '·': 2, '✗': 31, '!': 33, '→': 36, '←': 36 };

/** `line` with its leading mark colored (indented lines too). Only marks get colors: the text stays as written. */
function paint(line: string): string {
  const match = /^(\s*)(\S)/.exec(line);
  const code = match ? MARKS[match[2]!] : undefined;
  if (!match || code === undefined) return line;
  const at = match[1]!.length;
  return `${line.slice(0, at)}\x1b[${code}m${match[2]}\x1b[${code === 2 ? 22 : 39}m${line.slice(at + 1)}`;
}

/** Wraps `output` for one command: levels by `verbosity`, and stderr marks colored when `color`. */
export function cliOutput(output: Output, verbosity: Verbosity, color: boolean): CliOutput {
  const err = color ? (text: string) => output.err(text.split('\n').map(paint).join('\n')) : (text: string) => output.err(text);
  return {
    out: (text) => output.out(text),
    err,
    info: verbosity === 'quiet' ? () => undefined : err,
    debug: verbosity === 'verbose' ? err : () => undefined,
    interactive: output.interactive,
  };
}
