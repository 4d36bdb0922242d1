import { visibleText, type Diagnostic } from '@agent-spaces/capabilities';
import type { BuildOptions, BuildReport } from '@agent-spaces/compiler';
import type { Project } from './project.js';
import type { CliOutput } from '../output.js';

/** What a build redoes regardless of what changed: every source (`force`), remote specs (`refresh`). */
export interface BuildFlags {
  force: boolean;
  refresh: boolean;
}

/**
 * Builds `project` once, redoing what `flags` say; with `progress`, prints each capability's line (and its
 * diagnostics) as it is known, and a line every few seconds while an MCP server keeps the build waiting.
 */
export async function buildProject(project: Project, flags: BuildFlags, progress: CliOutput | undefined): Promise<BuildReport> {
  const { buildCapabilities, configSources } = await import('@agent-spaces/compiler');
  // The declaration texts alone: the sdk's root would load the sandbox, the bridge and ajv.
  const { SANDBOX_DECLARATIONS } = await import('@agent-spaces/sdk/declarations');
  return buildCapabilities({
    rootDir: project.rootDir,
    sandboxDeclarations: SANDBOX_DECLARATIONS,
    sources: project.config.capabilities,
    configSources: configSources(project.config),
    outDir: project.outDir,
    typecheckBudget: project.config.typecheck,
    force: flags.force,
    refresh: flags.refresh,
    ...(progress ? { onWaiting: waitingLine(progress) } : {}),
    onProgress: progress
      ? (entry) => {
          const mark = entry.status === 'built' ? '✓' : entry.status === 'unchanged' ? '·' : '✗';
          const print = entry.status === 'failed' ? progress.err : progress.info;
          const spec = entry.spec === undefined || entry.spec === entry.file ? '' : `, spec ${entry.spec}`;
          print(visibleText(`${mark} ${entry.id.padEnd(24)} ${entry.status.padEnd(9)} ${entry.file} (${entry.durationMs.toFixed(0)} ms${spec})`));
          printDiagnostics(print, entry.diagnostics);
        }
      : undefined,
  });
}

/** Prints `… waiting for MCP server "x" (6 s)` (a progress line: `--quiet` leaves it out). */
function waitingLine(progress: CliOutput): NonNullable<BuildOptions['onWaiting']> {
  return (event) => progress.info(visibleText(`… waiting for MCP server "${event.name}" (${Math.round(event.elapsedMs / 1000)} s)`));
}

/** Prints diagnostics indented under their capability's line, with `print` (the line's own level). */
export function printDiagnostics(print: (text: string) => void, diagnostics: readonly Diagnostic[]): void {
  // Diagnostics quote what sources say (an MCP server's tool names and schemas): shown, never acted on.
  for (const d of diagnostics) {
    print(visibleText(`    ${d.severity} ${d.code} ${d.file}${d.pointer ? `#${d.pointer}` : ''}: ${d.message}`, '      '));
  }
}
