import { readFile } from 'node:fs/promises';
import { relative, resolve } from 'node:path';
import { inspect } from 'node:util';
import { AgentSpacesError, jsonText, visibleText, type RunEvent } from '@agent-spaces/capabilities';
import { cliApprover, parseAutoAnswer } from '../approve.js';
import type { CommandContext } from './context.js';
import { loadProject } from './project.js';
import { toJson } from '../json.js';
import type { CliOutput } from '../output.js';

/**
 * `agent-spaces run <file.ts>`: runs the script, printing calls and logs live (stderr) and the result (stdout).
 * Approval requests are prompted for on a terminal, else answered by `--approve all|none` (default none: denied).
 */
export async function run(context: CommandContext): Promise<number> {
  const onApproval = cliApprover(context.output, parseAutoAnswer(context.values.approve));
  const { space, code, file } = await prepare(context, context.values['no-check'] !== true, onApproval);
  try {
    const json = context.values.json === true;
    const result = await space.run(code, json ? { fileName: file } : { fileName: file, onEvent: (event) => printEvent(event, context.output) });
    if (json) {
      context.output.out(toJson(result));
    } else if (result.ok) {
      context.output.out(visibleText(inspect(result.result, { depth: 8 })));
      context.output.info(`✓ finished in ${result.stats.durationMs.toFixed(1)} ms, ${result.stats.capabilityCalls} capability call(s)`);
    } else {
      context.output.err(`✗ ${result.error.code}: ${visibleText(result.error.message, '  ')}`);
    }
    return result.ok ? 0 : 1;
  } finally {
    await space.close();
  }
}

/** `agent-spaces check <file.ts>`: typechecks only. */
export async function check(context: CommandContext): Promise<number> {
  const { space, code, file } = await prepare(context, true);
  try {
    const diagnostics = await space.check(code);
    if (context.values.json === true) {
      context.output.out(toJson({ ok: diagnostics.length === 0, diagnostics }));
    } else if (diagnostics.length === 0) {
      context.output.info(`✓ ${file}: no type errors`);
    } else {
      const { formatDiagnostics } = await import('@agent-spaces/compiler');
      context.output.out(visibleText(formatDiagnostics(code, diagnostics, file)));
      context.output.err(`✗ ${diagnostics.length} type error(s)`);
    }
    return diagnostics.length === 0 ? 0 : 1;
  } finally {
    await space.close();
  }
}

async function prepare(context: CommandContext, typecheck: boolean, onApproval?: ReturnType<typeof cliApprover>) {
  const path = resolve(context.positionals[0]!);
  const file = relative(process.cwd(), path);
  let code: string;
  try {
    code = await readFile(path, 'utf8');
  } catch (error) {
    throw new AgentSpacesError('SOURCE_NOT_FOUND', `Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? error}`, { file });
  }
  // The sandbox process forks while the project loads: a run's first cost is that fork, not the config.
  const sdk = import('@agent-spaces/sdk').then((loaded) => (loaded.warmSandboxProcesses(), loaded));
  sdk.catch(() => undefined); // Awaited below, unless loading the project fails first.
  const project = await loadProject(context);
  const { configSpaceOptions, createSpace, preloadTypecheck } = await sdk;
  // TypeScript and its lib files load in a typecheck worker while the space loads (unless the check is likely cached).
  if (typecheck) preloadTypecheck({ outDir: project.outDir, code, budget: project.config.typecheck });
  const space = await createSpace({
    ...configSpaceOptions(project.rootDir, project.config),
    outDir: project.outDir,
    typecheck,
    ...(onApproval ? { onApproval } : {}),
  });
  return { space, code, file };
}

/**
 * Prints one run event on stderr. Names, params, messages and logs come from agent code (or handlers and servers it
 * reaches): each line goes through `visibleText`, its later lines indented under it.
 */
export function printEvent(event: RunEvent, output: CliOutput): void {
  const line = describeEvent(event);
  if (line !== undefined) output.info(visibleText(line, '  '));
}

function describeEvent(event: RunEvent): string | undefined {
  switch (event.type) {
    case 'capabilityCall':
      return `→ ${event.capability}.${event.function}(${preview(event.params)})`;
    case 'capabilityResult':
      return event.ok
        ? `← ${event.capability}.${event.function} ok (${event.durationMs.toFixed(1)} ms)`
        : `← ${event.capability}.${event.function} ${event.error?.code}: ${event.error?.message}`;
    case 'log':
      return `[${event.level}] ${event.message}`;
    case 'approvalResolved':
      return `${event.approved ? '✓ approved' : '✗ denied'} by ${event.by}${event.reason ? `: ${event.reason}` : ''}`;
    case 'progress': {
      const share = event.total ? `${Math.round((event.progress / event.total) * 100)}%` : String(event.progress);
      return `… ${event.capability}.${event.function} ${share}${event.message ? ` ${event.message}` : ''}`;
    }
    case 'approvalRequired':
    case 'runStarted':
    case 'runFinished':
    case 'error':
      return undefined;
    default:
      event satisfies never;
      return undefined;
  }
}

/** Params in one line: JSON as `--json` writes it (cycles and bigints too), cut past 120 characters. */
function preview(value: unknown): string {
  if (value === undefined) return '';
  const text = jsonText(value);
  return text.length > 120 ? `${text.slice(0, 117)}...` : text;
}
