import { commands } from './commands/index.js';
import { GLOBAL_OPTIONS, type Command, type CommandOption } from './commands/options.js';

/** Widest left column (flags, command names) before a description moves to the line below it. */
const MAX_LEFT = 34;

/** Columns help text wraps at: the terminal's width on a terminal, else 80. */
function helpWidth(stream: { isTTY?: boolean; columns?: number } = process.stdout): number {
  return stream.isTTY === true && stream.columns !== undefined && stream.columns > 0 ? stream.columns : 80;
}

/** `agent-spaces <command path> <positionals>`, as help and errors name a command. */
export function signature(command: Command): string {
  return [...command.path, ...command.positionals.map((p) => `<${p}>`)].join(' ');
}

/** The top-level help: what agent-spaces is, every command with its description, the global options. */
export function usage(width = helpWidth()): string {
  return [
    wrap('agent-spaces — compile tools into typed code APIs and run agent code against them', width, 0),
    '',
    'Usage: agent-spaces <command> [options]',
    '',
    'Commands:',
    columns(commands.map((c) => [signature(c), c.description]), width),
    '',
    'Options:',
    columns([
      ['-h, --help', 'Show this help'],
      ['-v, --version', 'Print the version'],
    ], width),
    '',
    'Run `agent-spaces <command> --help` for its options.',
  ].join('\n');
}

/** The help of a command group (`capabilities`, `skills`, …): its commands; undefined when `group` names none. */
export function groupHelp(group: string, width = helpWidth()): string | undefined {
  const members = commands.filter((c) => c.path.length > 1 && c.path[0] === group);
  if (members.length === 0) return undefined;
  return [
    `Usage: agent-spaces ${group} <command> [options]`,
    '',
    'Commands:',
    columns(members.map((c) => [signature(c), c.description]), width),
    '',
    `Run \`agent-spaces ${group} <command> --help\` for its options.`,
  ].join('\n');
}

/** The help of one command: its usage line, description, and every option (its own, then the global ones). */
export function commandHelp(command: Command, width = helpWidth()): string {
  const options = { ...command.options, ...GLOBAL_OPTIONS };
  return [
    `Usage: agent-spaces ${signature(command)} [options]`,
    '',
    wrap(command.description, width, 0),
    '',
    'Options:',
    columns(Object.entries(options).map(([name, option]) => [flagCell(name, option), option.description]), width),
  ].join('\n');
}

/** `-q, --quiet` or `    --config <file>`: long names line up whether or not a short form exists. */
function flagCell(name: string, option: CommandOption): string {
  const value = option.type === 'string' ? ` <${option.valueName ?? 'value'}>` : '';
  return `${option.short ? `-${option.short}, ` : '    '}--${name}${value}`;
}

/**
 * Two columns: the left cells padded to the widest (at most {@link MAX_LEFT}; a wider one puts its description on
 * the next line), the descriptions wrapped to `width` and indented under their column.
 */
function columns(rows: readonly (readonly [string, string])[], width: number): string {
  const left = Math.min(MAX_LEFT, Math.max(...rows.map(([cell]) => cell.length)));
  const indent = 2 + left + 2;
  return rows
    .map(([cell, description]) => {
      const text = wrap(description, width, indent).trimStart();
      return cell.length > left ? `  ${cell}\n${' '.repeat(indent)}${text}` : `  ${cell.padEnd(left)}  ${text}`;
    })
    .join('\n');
}

/** `text` wrapped at word boundaries to `width` columns, every line indented by `indent` spaces (at least 20 columns of text). */
function wrap(text: string, width: number, indent: number): string {
  const room = Math.max(20, width - indent);
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line !== '' && line.length + 1 + word.length > room) {
      lines.push(line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  lines.push(line);
  return lines.map((l) => ' '.repeat(indent) + l).join('\n');
}
