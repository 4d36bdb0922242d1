import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { EDITOR_PLUGIN, visibleText } from '@agent-spaces/capabilities';
import type { CommandContext } from './context.js';
import { loadProject, type Project } from './project.js';
import { toJson } from '../json.js';
import { packageInfo } from '../package-info.js';

/** One check of `agent-spaces doctor`: what was checked, whether it passed, what was found and, on failure, what to do. */
interface Check {
  name: string;
  ok: boolean;
  detail: string;
  fix?: string;
}

/**
 * `agent-spaces doctor`: checks Node's version, that isolated-vm loads and runs code in a sandbox process, the
 * config, the build's freshness, the editor plugin, and that each MCP server and OpenAPI spec can be reached; prints each failure with
 * what to do. Exit code 1 when a check fails.
 */
export async function doctor(context: CommandContext): Promise<number> {
  const { output } = context;
  const checks: Check[] = [await nodeVersion(), await sandbox()];
  let project: Project | undefined;
  try {
    project = await loadProject(context);
    checks.push({ name: 'config', ok: true, detail: project.file });
  } catch (error) {
    checks.push({ name: 'config', ok: false, detail: (error as Error).message, fix: 'fix the file and field named above, or run `agent-spaces init` to start a project' });
  }
  if (project) checks.push(await freshness(project), editorPlugin(project), ...(await configSources(project)));
  if (context.values.json === true) {
    output.out(toJson({ ok: checks.every((c) => c.ok), checks }));
  } else {
    for (const check of checks) {
      (check.ok ? output.info : output.err)(visibleText(`${check.ok ? '✓' : '✗'} ${check.name.padEnd(22)} ${check.detail}`, '    '));
      if (check.fix) output.err(`    fix: ${check.fix}`);
    }
    const failed = checks.filter((c) => !c.ok).length;
    if (failed === 0) output.info('All checks passed.');
    else output.err(`${failed} of ${checks.length} checks failed.`);
  }
  return checks.every((c) => c.ok) ? 0 : 1;
}

async function nodeVersion(): Promise<Check> {
  const range = (await packageInfo()).node;
  const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
  const [needMajor, needMinor] = range.replace(/^>=\s*/, '').split('.').map(Number) as [number, number | undefined];
  const ok = major > needMajor || (major === needMajor && minor >= (needMinor ?? 0));
  return { name: 'node', ok, detail: `${process.versions.node} (needs ${range})`, ...(ok ? {} : { fix: `install Node ${range} (https://nodejs.org)` }) };
}

/** Runs one line of code in a sandbox process, as runs do: isolated-vm's binary loads and works. */
async function sandbox(): Promise<Check> {
  const fix = 'rebuild it for this Node: `npm rebuild isolated-vm` (needs python3, make and a C++ compiler)';
  try {
    const { createSpace } = await import('@agent-spaces/sdk');
    const space = await createSpace({ capabilities: [], typecheck: false, policies: { audit: false } });
    try {
      const result = await space.run('export default 6 * 7');
      if (result.ok && result.result === 42) return { name: 'isolated-vm', ok: true, detail: 'loads and runs code' };
      return { name: 'isolated-vm', ok: false, detail: `a test run failed: ${result.ok ? String(result.result) : result.error.message}`, fix };
    } finally {
      await space.close();
    }
  } catch (error) {
    return { name: 'isolated-vm', ok: false, detail: `cannot start a sandbox: ${(error as Error).message}`, fix };
  }
}

async function freshness(project: Project): Promise<Check> {
  const { buildFreshness } = await import('@agent-spaces/compiler');
  const { stale, missing } = await buildFreshness({ rootDir: project.rootDir, sources: project.config.capabilities, outDir: project.outDir });
  if (missing.length > 0) {
    return { name: 'build', ok: false, detail: `sources not found: ${missing.join(', ')}`, fix: 'create them, or fix `capabilities` in the config' };
  }
  if (stale.length > 0) {
    return { name: 'build', ok: false, detail: `not built or changed since the last build: ${stale.join(', ')}`, fix: 'run `agent-spaces capabilities build` (or keep `--watch` running)' };
  }
  return { name: 'build', ok: true, detail: `up to date (${project.outDir})` };
}

/**
 * The language service plugin the generated tsconfig names (`@agent-spaces/ts-plugin`), found from the project as an
 * editor using the project's TypeScript looks for it: without it, an editor flags a top-level `return` (TS1108).
 */
function editorPlugin(project: Project): Check {
  try {
    const file = createRequire(join(project.rootDir, 'package.json')).resolve(`${EDITOR_PLUGIN}/package.json`);
    const { version } = JSON.parse(readFileSync(file, 'utf8')) as { version: string };
    return { name: 'editor', ok: true, detail: `${EDITOR_PLUGIN} ${version} (editors using the project's TypeScript check agent scripts as check does)` };
  } catch {
    return {
      name: 'editor',
      ok: false,
      detail: `${EDITOR_PLUGIN} is not installed: editors flag a top-level return (TS1108)`,
      fix: `npm install --save-dev ${EDITOR_PLUGIN} typescript, then pick the project's TypeScript in the editor ("Use Workspace Version" in VS Code)`,
    };
  }
}

/** Reads every MCP server (discovery: start or connect, list tools) and OpenAPI spec of the config, as a build does. */
async function configSources(project: Project): Promise<Check[]> {
  const { configSources: sourcesOf } = await import('@agent-spaces/compiler');
  const context = { rootDir: project.rootDir, outDir: project.outDir, relative: (file: string) => file };
  return Promise.all(
    sourcesOf(project.config).map(async (source): Promise<Check> => {
      const result = await source.read(context);
      const errors = result.diagnostics.filter((d) => d.severity === 'error');
      if (errors.length === 0) {
        const functions = result.capabilities.reduce((n, c) => n + c.functions.length, 0);
        return { name: source.label, ok: true, detail: `reachable, ${functions} function${functions === 1 ? '' : 's'}` };
      }
      const fix = source.label.startsWith('mcpServers.')
        ? `check ${source.label} (command and args, url, env, headers); start it by hand to see its own error`
        : `check ${source.label}.spec (the file exists, or the URL answers) and its baseUrl`;
      return { name: source.label, ok: false, detail: errors.map((d) => d.message).join('; '), fix };
    }),
  );
}
