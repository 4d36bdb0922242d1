import { inspect } from 'node:util';
import { AgentSpacesError, toWireError, visibleText } from '@agent-spaces/capabilities';
import type { AgentEvent, ModelSettings, ToolPermission } from '@agent-spaces/sdk';
import type { CommandContext } from './context.js';
import { loadProject } from './project.js';
import { printEvent } from './run.js';
import { toJson } from '../json.js';
import type { CliOutput } from '../output.js';

/**
 * `agent-spaces ask "<message>"`: a headless agent answers by writing code in the project's space (docs/agents.md),
 * with the config's `model` or `--model [provider:]model` (`--base-url`); prints its steps live (stderr) and its
 * answer (stdout). Exit 0 on an answer, 1 when the run failed (`MAX_TURNS`, `MODEL_ERROR`, …), 2 for bad options.
 */
export async function ask(context: CommandContext): Promise<number> {
  const { output, values } = context;
  const message = context.positionals[0] ?? '';
  const project = await loadProject(context);
  const { TOOL_PERMISSIONS, configSpaceOptions, createSpace, parseModel } = await import('@agent-spaces/sdk');
  let model: ModelSettings | undefined;
  let maxTurns: number | undefined;
  let toolPermission: ToolPermission | undefined;
  try {
    if (message.trim() === '') throw usage('message', 'must be a non-empty string');
    const flags = values.model !== undefined || values['base-url'] !== undefined;
    const settings = flags ? withFlags(project.raw.model, values.model, values['base-url']) : project.raw.model;
    if (settings !== undefined) model = parseModel(settings, 'model', flags ? `${project.file} with --model / --base-url` : project.file);
    if (values['max-turns'] !== undefined) {
      maxTurns = Number(values['max-turns']);
      if (!Number.isInteger(maxTurns) || maxTurns < 1 || maxTurns > 100) throw usage('--max-turns', 'must be an integer from 1 to 100');
    }
    if (values['tool-permission'] !== undefined) {
      toolPermission = values['tool-permission'] as ToolPermission;
      if (!TOOL_PERMISSIONS.includes(toolPermission)) throw usage('--tool-permission', `must be one of ${TOOL_PERMISSIONS.join(', ')}`);
    }
  } catch (error) {
    if (!(error instanceof AgentSpacesError) || (error.code !== 'INVALID_ARGUMENTS' && error.code !== 'CONFIG_INVALID')) throw error;
    if (values.json === true) output.out(toJson({ ok: false, error: toWireError(error) }));
    else output.err(`agent-spaces ask: ${error.message}`);
    return 2;
  }
  const space = await createSpace({ ...configSpaceOptions(project.rootDir, project.config), outDir: project.outDir });
  try {
    const json = values.json === true;
    const result = await space.ask(message, {
      ...(model ? { model } : {}),
      ...(maxTurns ? { maxTurns } : {}),
      ...(toolPermission ? { toolPermission } : {}),
      ...(json ? {} : { onEvent: (event: AgentEvent) => printAgentEvent(event, output) }),
    });
    if (json) output.out(toJson(result));
    else if (result.ok) {
      output.out(visibleText(result.text));
      output.info(`✓ ${result.turns} turn(s), ${result.usage.tokens} token(s)`);
    } else output.err(`✗ ${result.error.code}: ${visibleText(result.error.message, '  ')}`);
    return result.ok ? 0 : 1;
  } finally {
    await space.close();
  }
}

/**
 * The config's `model` (unchecked) with `--model [provider:]model` and `--base-url` applied, for the caller to check
 * once; a config `model` that is not an object is returned as it is, for that check to report.
 */
function withFlags(config: unknown, flag: unknown, baseURL: unknown): unknown {
  if (config !== undefined && (typeof config !== 'object' || config === null || Array.isArray(config))) return config;
  const base = config as Partial<Record<keyof ModelSettings, unknown>> | undefined;
  const text = typeof flag === 'string' ? flag : undefined;
  const at = text?.indexOf(':') ?? -1;
  const provider = at > 0 ? text!.slice(0, at) : base?.provider;
  const name = text !== undefined ? text.slice(at + 1) : base?.model;
  if (provider === undefined || !name) throw usage('--model', 'must be [provider:]model, with a provider when the config has no model');
  return { ...base, provider, model: name, ...(typeof baseURL === 'string' ? { baseURL } : {}) };
}

function usage(field: string, problem: string): AgentSpacesError {
  return new AgentSpacesError('INVALID_ARGUMENTS', `${field} ${problem}`, { errors: [{ field, problem }] });
}

/** One line per agent step on stderr: its messages and code runs, then the runs' capability calls and logs. */
function printAgentEvent(event: AgentEvent, output: CliOutput): void {
  if (event.type === 'agentMessage') {
    if (event.text && event.toolCalls.length > 0) output.info(visibleText(`◆ ${event.text}`, '  '));
    for (const call of event.toolCalls) {
      const code = typeof (call.input as { code?: unknown })?.code === 'string' ? (call.input as { code: string }).code : inspect(call.input);
      output.info(visibleText(`▸ ${call.name}\n${code}`, '  '));
    }
  } else if (event.type === 'codeRun') {
    output.info(event.ok ? '✓ code ran' : visibleText(`✗ code failed: ${event.error?.code}: ${event.error?.message}`, '  '));
  } else printEvent(event, output);
}
