/**
 * Shell completion: `agent-spaces completion <shell>` prints a small script for bash, zsh or fish that asks
 * `agent-spaces __complete <words…>` for the candidates of the word under the cursor, answered here from the command
 * table (commands, subcommands, options, option values) and the build output (capability names). When there is no
 * candidate, the scripts fall back to the shell's file names (`run <file.ts>`, `--config <file>`).
 */
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { GLOBAL_OPTIONS, type Command, type CommandOption } from './commands/options.js';
import type { CommandContext } from './commands/context.js';

/** Shells `agent-spaces completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;

/** The hidden command the scripts call; not in the table, so help never lists it. */
export const COMPLETE_COMMAND = '__complete';

const SCRIPTS: Record<(typeof SHELLS)[number], string> = {
  bash: `# agent-spaces completion for bash: source <(agent-spaces completion bash)
_agent_spaces_complete() {
  local IFS=$'\\n'
  COMPREPLY=($(agent-spaces ${COMPLETE_COMMAND} "\${COMP_WORDS[@]:1:COMP_CWORD}" 2>/dev/null))
}
complete -o default -F _agent_spaces_complete agent-spaces
`,
  zsh: `#compdef agent-spaces
# agent-spaces completion for zsh: source <(agent-spaces completion zsh), after compinit
_agent_spaces_complete() {
  local -a candidates
  candidates=("\${(@f)$(agent-spaces ${COMPLETE_COMMAND} "\${(@)words[2,CURRENT]}" 2>/dev/null)}")
  if [[ -n "\${candidates[1]}" ]]; then compadd -a candidates; else _files; fi
}
compdef _agent_spaces_complete agent-spaces
`,
  fish: `# agent-spaces completion for fish: agent-spaces completion fish | source
function __agent_spaces_complete
  set -l words (commandline -opc) (commandline -ct)
  agent-spaces ${COMPLETE_COMMAND} $words[2..-1] 2>/dev/null
end
complete -c agent-spaces -a '(__agent_spaces_complete)'
`,
};

/** `agent-spaces completion <shell>`: prints the script; `INVALID_ARGUMENTS` for a shell it has none for. */
export async function completion(context: CommandContext): Promise<number> {
  const shell = context.positionals[0]!;
  if (!(SHELLS as readonly string[]).includes(shell)) {
    throw new AgentSpacesError('INVALID_ARGUMENTS', `no script for "${shell}" (shells: ${SHELLS.join(', ')})`, { command: 'completion', shell });
  }
  context.output.out(SCRIPTS[shell as (typeof SHELLS)[number]].trimEnd());
  return 0;
}

/**
 * The candidates for the last of `words` (the command line after `agent-spaces`, the word under the cursor last,
 * `''` when it is empty), read from `table`; `[]` lets the shell complete file names.
 */
export async function completeWords(words: readonly string[], table: readonly Command[]): Promise<string[]> {
  const current = words.at(-1) ?? '';
  const before = words.slice(0, -1);
  const command = table.find((c) => c.path.every((part, i) => before[i] === part));
  if (!command) {
    const level = before.length === 0 ? table : table.filter((c) => c.path[0] === before[0] && c.path.length > 1);
    if (before.length > 1) return [];
    const names = level.map((c) => c.path[before.length]!);
    return startingWith(before.length === 0 ? [...names, '--help', '--version'] : names, current);
  }
  const options: Record<string, CommandOption> = { ...command.options, ...GLOBAL_OPTIONS };
  const pending = valueOption(before.at(-1), options);
  if (pending) return startingWith(choices(pending), current);
  if (current.startsWith('-')) {
    const long = Object.keys(options).map((name) => `--${name}`);
    const short = Object.values(options).flatMap((o) => (o.short ? [`-${o.short}`] : []));
    return startingWith(current.startsWith('--') || current === '-' ? long : [...short, ...long], current);
  }
  const position = positionalsBefore(before.slice(command.path.length), options);
  const positional = command.positionals[position];
  if (command.path.join(' ') === 'capabilities show' && positional === 'name') return startingWith(await builtCapabilities(words), current);
  if (command.path.join(' ') === 'completion' && positional === 'shell') return startingWith([...SHELLS], current);
  return [];
}

/** The string option `word` names when it still waits for its value (`--config`, not `--config=x`). */
function valueOption(word: string | undefined, options: Record<string, CommandOption>): CommandOption | undefined {
  if (word === undefined || !word.startsWith('-') || word.includes('=')) return undefined;
  const name = word.replace(/^--?/, '');
  const option = word.startsWith('--') ? options[name] : Object.values(options).find((o) => o.short === name);
  return option?.type === 'string' ? option : undefined;
}

/** The values an option's `valueName` lists (`all|none`); none for a free value (a file, a URL). */
function choices(option: CommandOption): string[] {
  return option.valueName?.includes('|') ? option.valueName.split('|') : [];
}

/** How many positionals `words` (after the command path) hold, skipping options and their values. */
function positionalsBefore(words: readonly string[], options: Record<string, CommandOption>): number {
  let count = 0;
  for (let i = 0; i < words.length; i++) {
    if (!words[i]!.startsWith('-')) count++;
    else if (valueOption(words[i], options)) i++;
  }
  return count;
}

/** The ids of the built capabilities of the project found from here (`--config` honoured); none without a build. */
async function builtCapabilities(words: readonly string[]): Promise<string[]> {
  const at = words.indexOf('--config');
  const config = at >= 0 ? words[at + 1] : undefined;
  try {
    const { loadProject } = await import('./commands/project.js');
    const project = await loadProject({ values: config ? { config } : {} });
    const { listCapabilities } = await import('@agent-spaces/compiler');
    return (await listCapabilities(project.outDir)).map((meta) => meta.id);
  } catch {
    return []; // no config or no build: nothing to offer
  }
}

function startingWith(candidates: readonly string[], prefix: string): string[] {
  return [...new Set(candidates)].filter((candidate) => candidate.startsWith(prefix));
}
