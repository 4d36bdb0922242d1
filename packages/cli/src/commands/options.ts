import type { CommandContext } from './context.js';

/** One option of a command, as `node:util` parseArgs takes it plus help text. */
export interface CommandOption {
  type: 'string' | 'boolean';
  short?: string;
  description: string;
  valueName?: string;
}

/** A CLI command: declared here, implemented in a lazily imported module so start-up stays fast. */
export interface Command {
  path: string[];
  positionals: string[];
  description: string;
  options: Record<string, CommandOption>;
  load(): Promise<(context: CommandContext) => Promise<number>>;
}

/** Options every command takes. */
export const GLOBAL_OPTIONS = {
  quiet: { type: 'boolean', short: 'q', description: 'Print only results and problems, no progress' },
  verbose: { type: 'boolean', description: 'Print details too (the data and stack of an error)' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
} as const satisfies Record<string, CommandOption>;

