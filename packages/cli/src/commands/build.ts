import { buildProject, type BuildFlags } from './build-project.js';
import type { CommandContext } from './context.js';
import { loadProject } from './project.js';
import { toJson } from '../json.js';

/**
 * `agent-spaces capabilities build`: compiles every source, printing one line per capability and a summary; with
 * `--watch`, then rebuilds on every change (see `watch.ts`).
 */
export async function build(context: CommandContext): Promise<number> {
  const { output } = context;
  const json = context.values.json === true;
  const project = await loadProject(context);
  const { selfServers } = await import('@agent-spaces/compiler');
  const skipped = selfServers(project.config.mcpServers, project.config.mcpSelfUrls);
  const notes = project.config.mcpNotes ?? [];
  if (!json) for (const note of notes) output.info(`· ${note}`);
  const why = (server: string) => ('url' in project.config.mcpServers[server]! ? 'its url is' : 'it starts');
  if (!json) for (const server of skipped) output.info(`· mcpServers.${server} skipped: ${why(server)} agent-spaces' own MCP server`);
  const flags: BuildFlags = { force: context.values.force === true, refresh: context.values.refresh === true };
  const report = await buildProject(project, flags, json ? undefined : output);
  if (json) {
    const extra = { ...(skipped.length > 0 ? { skipped: skipped.map((server) => `mcpServers.${server}`) } : {}), ...(notes.length > 0 ? { notes } : {}) };
    output.out(toJson({ ...report, ...extra }));
  } else {
    const { built, unchanged, failed } = report.totals;
    (failed > 0 ? output.err : output.info)(`${built} built, ${unchanged} unchanged, ${failed} failed in ${report.durationMs.toFixed(0)} ms → ${project.outDir}`);
  }
  if (context.values.watch === true) return (await import('./watch.js')).watch(context, project);
  return report.totals.failed > 0 ? 1 : 0;
}
