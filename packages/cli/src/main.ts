import { parseArgs, type ParseArgsConfig } from 'node:util';
import { isAgentSpacesError, jsonText, toWireError, visibleText } from '@agent-spaces/capabilities';
import { commands, type Command } from './commands/index.js';
import { toJson } from './json.js';
import { cliOutput, createOutput, useColor, type Output } from './output.js';
import { packageInfo } from './package-info.js';

/**
 * Runs the `agent-spaces` command line with `argv` (without node and script) and returns the exit code:
 * 0 success, 1 the work failed (a build error, a failed run), 2 bad usage.
 */
export async function runCli(argv: readonly string[], output: Output = createOutput()): Promise<number> {
  const [first, second] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    output.out(usage());
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-v') {
    output.out((await packageInfo()).version);
    return 0;
  }
  const command = commands.find((c) => c.path[0] === first && (c.path.length === 1 || c.path[1] === second));
  if (!command) {
    output.err(`agent-spaces: unknown command "${argv.slice(0, 2).join(' ')}"\n\n${usage()}`);
    return 2;
  }
  const rest = argv.slice(command.path.length);
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: [...rest], options: { ...command.options, ...GLOBAL_OPTIONS }, allowPositionals: true, strict: true } satisfies ParseArgsConfig);
  } catch (error) {
    output.err(`agent-spaces ${command.path.join(' ')}: ${(error as Error).message}\n\n${commandHelp(command)}`);
    return 2;
  }
  if (parsed.values.help) {
    output.out(commandHelp(command));
    return 0;
  }
  if (parsed.positionals.length !== command.positionals.length) {
    output.err(`agent-spaces ${command.path.join(' ')}: expected ${command.positionals.map((p) => `<${p}>`).join(' ') || 'no arguments'}\n\n${commandHelp(command)}`);
    return 2;
  }
  if (parsed.values.quiet && parsed.values.verbose) {
    output.err(`agent-spaces ${command.path.join(' ')}: --quiet and --verbose exclude each other\n\n${commandHelp(command)}`);
    return 2;
  }
  const shown = cliOutput(output, parsed.values.quiet ? 'quiet' : parsed.values.verbose ? 'verbose' : 'normal', !parsed.values.json && useColor(output));
  try {
    const run = await command.load();
    return await run({ values: parsed.values, positionals: parsed.positionals, output: shown });
  } catch (error) {
    const wire = toWireError(error);
    if (parsed.values.json) output.out(toJson({ ok: false, error: wire }));
    else shown.err(`✗ agent-spaces: ${isAgentSpacesError(error) ? `${wire.code}: ` : ''}${visibleText(wire.message, '  ')}`);
    if (wire.data !== undefined) shown.debug(visibleText(`  data: ${jsonText(wire.data)}`, '  '));
    if (error instanceof Error && error.stack) shown.debug(visibleText(`  ${error.stack}`, '  '));
    return 1;
  }
}

/** Options every command takes. */
const GLOBAL_OPTIONS = {
  quiet: { type: 'boolean', short: 'q', description: 'Print only results and problems, no progress' },
  verbose: { type: 'boolean', description: 'Print details too (the data and stack of an error)' },
  help: { type: 'boolean', short: 'h', description: 'Show this help' },
} as const;

function usage(): string {
  const width = Math.max(...commands.map((c) => signature(c).length));
  return [
    'agent-spaces — compile tools into typed code APIs and run agent code against them',
    '',
    'Usage: agent-spaces <command> [options]',
    '',
    'Commands:',
    ...commands.map((c) => `  ${signature(c).padEnd(width)}  ${c.description}`),
    '',
    'Run `agent-spaces <command> --help` for its options.',
  ].join('\n');
}

function signature(c: Command): string {
  return [...c.path, ...c.positionals.map((p) => `<${p}>`)].join(' ');
}

function commandHelp(c: Command): string {
  const lines = [`Usage: agent-spaces ${signature(c)} [options]`, '', c.description, '', 'Options:'];
  for (const [name, option] of Object.entries(c.options)) {
    lines.push(`  --${name}${option.type === 'string' ? ` <${option.valueName ?? 'value'}>` : ''}`.padEnd(24) + option.description);
  }
  for (const [name, option] of Object.entries(GLOBAL_OPTIONS)) lines.push(`  --${name}`.padEnd(24) + option.description);
  return lines.join('\n');
}
