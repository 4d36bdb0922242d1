import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { makeProject, type Project } from '../../../../test/fixtures/project.js';

const FIXTURE = fileURLToPath(new URL('../../../../test/fixtures/mcp-tools-server.mjs', import.meta.url));

/**
 * A built project whose `mcp-counter` capability is the counting fixture (a real MCP server over stdio) serving
 * `tools`, every call appended to `calls.log` ({@link calls}); `config` adds keys of the project's config (policies,
 * server settings).
 */
export async function counterProject(tools: readonly object[], config: Record<string, unknown>): Promise<Project> {
  const project = await makeProject({ 'tools.json': tools });
  const env = { TOOLS_FILE: project.path('tools.json'), CALLS_FILE: project.path('calls.log') };
  await project.write({
    'agent-spaces.config.json': { capabilities: [], mcpServers: { counter: { command: process.execPath, args: [FIXTURE], env } }, ...config },
  });
  const report = await project.build();
  expect(report.totals.failed).toBe(0);
  return project;
}

/** The counting fixture's calls, `<tool> <arguments>` each, in order. */
export async function calls(project: Project): Promise<string[]> {
  return (await readFile(project.path('calls.log'), 'utf8').catch(() => '')).split('\n').filter(Boolean);
}
