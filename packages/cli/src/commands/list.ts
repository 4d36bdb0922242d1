import { visibleText } from '@agent-spaces/capabilities';
import type { CommandContext } from './context.js';
import { loadProject } from './project.js';
import { toJson } from '../json.js';

/** `agent-spaces capabilities list`: a table of the built capabilities. */
export async function list(context: CommandContext): Promise<number> {
  const project = await loadProject(context);
  const { listCapabilities } = await import('@agent-spaces/compiler');
  const metas = await listCapabilities(project.outDir);
  if (context.values.json === true) {
    context.output.out(toJson(metas));
    return 0;
  }
  if (metas.length === 0) {
    context.output.err('No capabilities built yet: run `agent-spaces capabilities build`.');
    return 0;
  }
  const rows = metas.map((m) => [
    `@capabilities/${m.id}`,
    m.exportName,
    m.source.kind,
    String(m.functions.length),
    m.functions.filter((f) => f.requiresApproval).length > 0 ? 'yes' : '',
    m.source.file,
  ]);
  const header = ['module', 'export', 'source', 'functions', 'approval', 'file'];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  for (const row of [header, ...rows]) context.output.out(row.map((cell, i) => cell.padEnd(widths[i]!)).join('  ').trimEnd());
  return 0;
}

/**
 * `agent-spaces capabilities show <name>`: prints the capability's `index.d.ts`; with `--json`, its metadata
 * (`meta.json`, as `capabilities list --json` lists it) and `declarations`, the same text.
 */
export async function show(context: CommandContext): Promise<number> {
  const project = await loadProject(context);
  const { listCapabilities, readDeclarations } = await import('@agent-spaces/compiler');
  const name = context.positionals[0]!.replace(/^@capabilities\//, '');
  const declarations = await readDeclarations(project.outDir, name);
  if (context.values.json === true) {
    const meta = (await listCapabilities(project.outDir)).find((m) => m.id === name);
    context.output.out(toJson({ ...meta, id: name, declarations }));
    return 0;
  }
  // Declarations carry the descriptions a source gave (an MCP server's among them): shown, never acted on.
  context.output.out(visibleText(declarations));
  return 0;
}
