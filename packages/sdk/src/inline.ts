import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { RuntimeHandlers } from '@agent-spaces/bridge';

/** Inline definitions compiled into a temporary folder, with the handlers of their `defineTool()` values. */
export interface InlineCapabilities {
  ids: string[];
  capabilitiesDir: string;
  handlers: RuntimeHandlers;
  dispose(): Promise<void>;
}

/** Compiles inline definitions like any source; a bad one fails `INVALID_DEFINITION` with every diagnostic. */
export async function buildInline(definitions: readonly object[]): Promise<InlineCapabilities> {
  if (definitions.length === 0) return { ids: [], capabilitiesDir: '', handlers: {}, dispose: async () => {} };
  const { buildCapabilities, inlineSource, isDefineToolValue } = await import('@agent-spaces/compiler');
  const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-inline-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const report = await buildCapabilities({
    rootDir: dir,
    sources: [],
    outDir: dir,
    configSources: definitions.map((definition, index) => inlineSource(definition, `capabilities[${index}]`)),
  }).catch(async (error: unknown) => {
    await dispose();
    throw error;
  });
  const failed = report.capabilities.filter((entry) => entry.status === 'failed');
  if (failed.length > 0) {
    await dispose();
    const problems = failed.flatMap((entry) => entry.diagnostics.map((d) => `${d.file}${d.pointer ? `#${d.pointer}` : ''}: ${d.message}`));
    throw new AgentSpacesError('INVALID_DEFINITION', `Inline capability definition is invalid:\n${problems.join('\n')}`, { diagnostics: failed.flatMap((e) => e.diagnostics) });
  }
  const handlers: RuntimeHandlers = {};
  for (const [index, definition] of definitions.entries()) {
    if (!isDefineToolValue(definition)) continue;
    const id = report.capabilities.find((entry) => entry.file === `capabilities[${index}]`)!.id;
    handlers[id] = Object.fromEntries(Object.entries(definition.functions).map(([name, fn]) => [name, fn.handler as RuntimeHandlers[string][string]]));
  }
  return { ids: report.capabilities.map((entry) => entry.id), capabilitiesDir: join(dir, 'capabilities'), handlers, dispose };
}

