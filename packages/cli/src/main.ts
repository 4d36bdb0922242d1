import { isAgentSpacesError, jsonText, toWireError, visibleText } from '@agent-spaces/capabilities';
import { parseCommandLine, type ParsedCommand } from './args.js';
import { commands } from './commands/index.js';
import { COMPLETE_COMMAND, completeWords } from './completion.js';
import { commandHelp, groupHelp, usage } from './help.js';
import { toJson } from './json.js';
import { cliOutput, createOutput, useColor, type Output } from './output.js';
import { packageInfo } from './package-info.js';

/**
 * Runs the `agent-spaces` command line with `argv` (without node and script) and returns the exit code:
 * 0 success, 1 the work failed (a build error, a failed run), 2 bad usage (`INVALID_ARGUMENTS`: an unknown command or
 * option, with the closest names). With `--json`, stdout holds exactly one JSON value: the command's data, or
 * `{ ok: false, error: { code, message, data } }` when it failed (bad usage too).
 */
export async function runCli(argv: readonly string[], output: Output = createOutput()): Promise<number> {
  const [first] = argv;
  if (first === undefined || first === '--help' || first === '-h' || first === 'help') {
    output.out(usage());
    return first === undefined ? 2 : 0;
  }
  if (first === '--version' || first === '-v') {
    output.out((await packageInfo()).version);
    return 0;
  }
  const group = argv.length === 2 && ['--help', '-h', 'help'].includes(argv[1]!) ? groupHelp(first) : undefined;
  if (group !== undefined) {
    output.out(group);
    return 0;
  }
  if (first === COMPLETE_COMMAND) {
    for (const candidate of await completeWords(argv.slice(1), commands)) output.out(candidate);
    return 0;
  }
  const json = argv.includes('--json');
  let parsed: ParsedCommand;
  try {
    parsed = parseCommandLine(argv);
  } catch (error) {
    return reportFailure(error, output, json, 2);
  }
  const { command, values, positionals } = parsed;
  if (values.help) {
    output.out(commandHelp(command));
    return 0;
  }
  const shown = cliOutput(output, values.quiet ? 'quiet' : values.verbose ? 'verbose' : 'normal', !values.json && useColor(output));
  try {
    const run = await command.load();
    return await run({ values, positionals, output: shown });
  } catch (error) {
    return reportFailure(error, shown, values.json === true, error instanceof Error && isAgentSpacesError(error) && error.code === 'INVALID_ARGUMENTS' ? 2 : 1);
  }
}

/**
 * Prints a failed command's error (`✗ agent-spaces: CODE: message` on stderr, or the JSON failure on stdout), its
 * data and stack with `--verbose`, and a pointer to the help for bad usage; returns `code`.
 */
function reportFailure(error: unknown, output: Output & { debug?(text: string): void }, json: boolean, code: number): number {
  const wire = toWireError(error);
  const named = typeof wire.data?.command === 'string' && commands.some((c) => c.path.join(' ') === wire.data!.command) ? ` ${wire.data.command}` : '';
  const who = code === 2 ? `agent-spaces${named}` : 'agent-spaces';
  if (json) output.out(toJson({ ok: false, error: wire }));
  else output.err(`✗ ${who}: ${isAgentSpacesError(error) ? `${wire.code}: ` : ''}${visibleText(wire.message, '  ')}`);
  if (wire.data !== undefined) output.debug?.(visibleText(`  data: ${jsonText(wire.data)}`, '  '));
  if (error instanceof Error && error.stack) output.debug?.(visibleText(`  ${error.stack}`, '  '));
  if (code === 2 && !json) output.err(`Run \`agent-spaces${named} --help\` for ${named ? 'its options' : 'the commands'}.`);
  return code;
}
