import { visibleText } from '@agent-spaces/capabilities';
import type { CommandContext } from './index.js';
import { loadProject } from './project.js';
import { toJson } from '../json.js';

/** `agent-spaces capabilities build`: compiles every source, printing one line per capability and a summary. */
export async function build(context: CommandContext): Promise<number> {
  const { output } = context;
  const json = context.values.json === true;
  const project = await loadProject(context);
  const { buildCapabilities, configSources } = await import('@agent-spaces/compiler');
  const report = await buildCapabilities({
    rootDir: project.rootDir,
    sources: project.config.capabilities,
    configSources: configSources(project.config),
    outDir: project.outDir,
    force: context.values.force === true,
    refresh: context.values.refresh === true,
    onProgress: json
      ? undefined
      : (entry) => {
          const mark = entry.status === 'built' ? '✓' : entry.status === 'unchanged' ? '·' : '✗';
          output.err(visibleText(`${mark} ${entry.id.padEnd(24)} ${entry.status.padEnd(9)} ${entry.file} (${entry.durationMs.toFixed(0)} ms)`));
          // Diagnostics quote what sources say (an MCP server's tool names and schemas): shown, never acted on.
          for (const d of entry.diagnostics) {
            output.err(visibleText(`    ${d.severity} ${d.code} ${d.file}${d.pointer ? `#${d.pointer}` : ''}: ${d.message}`, '      '));
          }
        },
  });
  if (json) {
    output.out(toJson(report));
  } else {
    const { built, unchanged, failed } = report.totals;
    output.err(`${built} built, ${unchanged} unchanged, ${failed} failed in ${report.durationMs.toFixed(0)} ms → ${project.outDir}`);
  }
  return report.totals.failed > 0 ? 1 : 0;
}
