import type { CliOutput } from '../output.js';

/** What a command's implementation receives. */
export interface CommandContext {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
  output: CliOutput;
}
