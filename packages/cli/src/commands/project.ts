import { resolve } from 'node:path';
import type { CommandContext } from './context.js';

/** The project a command works on, as {@link loadProject} returns it. */
export type Project = Awaited<ReturnType<typeof loadProject>>;

/** The project a command works on: its config, root folder and build output folder. */
export async function loadProject(context: Pick<CommandContext, 'values'>) {
  const { loadConfig } = await import('@agent-spaces/compiler');
  const configFile = typeof context.values.config === 'string' ? context.values.config : undefined;
  const loaded = await loadConfig({ cwd: process.cwd(), ...(configFile ? { configFile } : {}) });
  const outDir = typeof context.values.out === 'string' ? resolve(context.values.out) : loaded.config.outDir;
  return { ...loaded, outDir };
}
