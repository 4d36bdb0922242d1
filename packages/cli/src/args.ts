import { parseArgs } from 'node:util';
import { AgentSpacesError, closestNames } from '@agent-spaces/capabilities';
import { commands } from './commands/index.js';
import { GLOBAL_OPTIONS, type Command, type CommandOption } from './commands/options.js';
import { signature } from './help.js';

/** A command line read against the command table: the command, its option values and its positionals. */
export interface ParsedCommand {
  command: Command;
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/**
 * Reads `argv` (without node and script) as one command of the table. Throws `INVALID_ARGUMENTS` for an unknown
 * command or option (naming the closest known ones: "did you mean"), a string option without its value, a boolean
 * option given one, the wrong number of positionals, or `--quiet` with `--verbose`; `data.command` names the command
 * when one was found, for its help.
 */
export function parseCommandLine(argv: readonly string[]): ParsedCommand {
  const command = findCommand(argv);
  const options: Record<string, CommandOption> = { ...command.options, ...GLOBAL_OPTIONS };
  const name = command.path.join(' ');
  const problem = (message: string, more: Record<string, unknown> = {}) =>
    new AgentSpacesError('INVALID_ARGUMENTS', message, { command: name, ...more });
  const { tokens } = parseArgs({ args: argv.slice(command.path.length), options, allowPositionals: true, strict: false, tokens: true });
  const values: ParsedCommand['values'] = {};
  const positionals: string[] = [];
  for (const token of tokens) {
    if (token.kind === 'positional') positionals.push(token.value);
    if (token.kind !== 'option') continue;
    const option = Object.hasOwn(options, token.name) ? options[token.name]! : undefined;
    if (!option) {
      const closest = closestNames(token.name, Object.keys(options), 2).map((n) => `--${n}`);
      throw problem(`unknown option "${token.rawName}"${didYouMean(closest)}`, { option: token.rawName, closest });
    }
    // `--config --json` is a missing value, not a config named "--json" (`--config=--json` names it).
    if (option.type === 'string' && (token.value === undefined || (!token.inlineValue && token.value.startsWith('-')))) throw problem(`--${token.name} needs a value (<${option.valueName ?? 'value'}>)`, { option: `--${token.name}` });
    if (option.type === 'boolean' && token.value !== undefined) throw problem(`--${token.name} takes no value (got "${token.value}")`, { option: `--${token.name}` });
    values[token.name] = token.value ?? true;
  }
  if (values.help) return { command, values, positionals };
  if (positionals.length !== command.positionals.length) {
    throw problem(`expected ${command.positionals.map((p) => `<${p}>`).join(' ') || 'no arguments'}, got ${positionals.length === 0 ? 'none' : positionals.map((p) => `"${p}"`).join(' ')}`);
  }
  if (values.quiet && values.verbose) throw problem('--quiet and --verbose exclude each other');
  return { command, values, positionals };
}

/** The command `argv` names; `INVALID_ARGUMENTS` with the closest command names when none matches. */
function findCommand(argv: readonly string[]): Command {
  const [first = '', second] = argv;
  const found = commands.find((c) => c.path[0] === first && (c.path.length === 1 || c.path[1] === second));
  if (found) return found;
  const group = commands.filter((c) => c.path[0] === first);
  const word = second !== undefined && !second.startsWith('-') ? second : undefined;
  if (group.length > 0 && word === undefined) {
    throw new AgentSpacesError('INVALID_ARGUMENTS', `"${first}" needs a command: ${group.map(signature).join(', ')}`, { command: first, closest: [] });
  }
  const typed = word === undefined || group.length === 0 ? first : `${first} ${word}`;
  const closest = closestCommands(first, word);
  throw new AgentSpacesError('INVALID_ARGUMENTS', `unknown command "${typed}"${didYouMean(closest)}`, { command: typed, closest });
}

/**
 * The command name closest to what was typed, if any is close: within a known group by the subcommand's word (`capabilities biuld`
 * → `capabilities build`); else by a command's first word (`capabilites` → `capabilities`), its whole name, or a
 * subcommand's word alone (`biuld` → `capabilities build`).
 */
function closestCommands(first: string, second: string | undefined): string[] {
  const group = commands.filter((c) => c.path[0] === first && c.path[1] !== undefined);
  if (second !== undefined && group.length > 0) {
    return closestNames(second, group.map((c) => c.path[1]!), 1).map((word) => `${first} ${word}`);
  }
  const byWord = new Map<string, string>();
  for (const c of commands) {
    const full = c.path.join(' ');
    byWord.set(full, full);
    if (!byWord.has(c.path[0]!)) byWord.set(c.path[0]!, c.path.length === 1 ? full : c.path[0]!);
    if (c.path[1] !== undefined && !byWord.has(c.path[1])) byWord.set(c.path[1], full);
  }
  const groups = [...new Set(commands.filter((c) => c.path[1] !== undefined).map((c) => c.path[0]!))];
  const groupMeant = second === undefined ? undefined : closestNames(first, groups, 1)[0];
  if (groupMeant !== undefined) {
    const inGroup = closestCommands(groupMeant, second);
    return inGroup.length > 0 ? inGroup : [groupMeant];
  }
  return closestNames(first, [...byWord.keys()], 1).map((name) => byWord.get(name)!);
}

/** ` (did you mean "a" or "b"?)`, or nothing. */
function didYouMean(closest: readonly string[]): string {
  return closest.length === 0 ? '' : ` (did you mean ${closest.map((c) => `"${c}"`).join(' or ')}?)`;
}
