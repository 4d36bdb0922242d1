import { existsSync, readdirSync, watch as watchDir, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { toWireError, visibleText } from '@agent-spaces/capabilities';
import { buildProject, printDiagnostics, type Project } from './build.js';
import type { CommandContext } from './index.js';
import { loadProject } from './project.js';
import { toJson } from '../json.js';

/** How long changes are gathered before a rebuild: an editor's save is often several events. */
const SETTLE_MS = 150;

/**
 * `capabilities build --watch`, after the first build: rebuilds when a file changes in the config's folder, the skills
 * folder, a source pattern's folder or an OpenAPI spec's folder (the build itself skips what did not change), and prints one line per
 * rebuild (`--json`: one report per line). A changed config is loaded again; one that does not load is reported
 * and the last good one kept. A failed source keeps its last good output (the build never removes it). Runs until
 * SIGINT or SIGTERM, then exits 0.
 */
export async function watch(context: CommandContext, first: Project): Promise<number> {
  const { output } = context;
  const { SKILLS_DIR } = await import('@agent-spaces/compiler');
  const json = context.values.json === true;
  let project = first;
  const watchers = new Map<string, FSWatcher>();
  let known = new Set<string>();
  const changed = new Set<string>();
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const rel = (file: string) => relative(project.rootDir, file).split(sep).join('/') || '.';
  const onChange = (dir: string) => (_event: string, name: string | Buffer | null) => {
    const file = name ? join(dir, name.toString()) : dir;
    if (file === project.outDir || file.startsWith(project.outDir + sep)) return;
    changed.add(file);
    schedule();
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // Changes that arrive during a rebuild wait for it, then rebuild again.
      running ??= rebuild().finally(() => {
        running = undefined;
        if (changed.size > 0) schedule();
      });
    }, SETTLE_MS);
  };

  const rewatch = () => {
    const dirs = watchedDirs(project, SKILLS_DIR);
    for (const [dir, watcher] of watchers) {
      if (dirs.has(dir)) continue;
      watcher.close();
      watchers.delete(dir);
    }
    for (const [dir, recursive] of dirs) {
      if (watchers.has(dir) || !existsSync(dir)) continue;
      watchers.set(dir, watchDir(dir, { recursive }, onChange(dir)));
    }
    known = listFiles(dirs);
  };

  const rebuild = async (): Promise<void> => {
    // A file that appeared and went between two looks (a tool's temp file) is no change.
    const files = [...changed].filter((file) => existsSync(file) || known.has(file));
    changed.clear();
    if (files.length === 0) return;
    const configChanged = files.some((file) => file === project.file || ['.mcp.json', 'mcp.json', '.env'].includes(basename(file)));
    if (configChanged) {
      try {
        project = await loadProject(context);
      } catch (error) {
        output.err(visibleText(`✗ ${time()} ${rel(project.file)}: ${toWireError(error).message} (keeping the last config)`, '    '));
        return;
      }
    }
    let report: Awaited<ReturnType<typeof buildProject>>;
    try {
      report = await buildProject(context, project, undefined);
      rewatch();
    } catch (error) {
      // An output folder that cannot be written, a folder that went away: said, and the watch goes on.
      output.err(visibleText(`✗ ${time()} ${files.map(rel).sort().join(', ')}: ${toWireError(error).message}`, '    '));
      return;
    }
    if (json) return output.out(toJson(report).replace(/\n\s*/g, ''));
    const { built, unchanged, failed } = report.totals;
    const what = files.map(rel).sort().join(', ');
    (failed > 0 ? output.err : output.info)(`${failed > 0 ? '✗' : '↻'} ${time()} ${what}: ${built} built, ${unchanged} unchanged, ${failed} failed in ${report.durationMs.toFixed(0)} ms`);
    for (const entry of report.capabilities) {
      if (entry.status === 'failed') {
        output.err(visibleText(`  ✗ ${entry.id} ${entry.file}: keeps its last good output`));
        printDiagnostics(output.err, entry.diagnostics);
      }
    }
  };

  rewatch();
  output.info('Watching for changes (Ctrl-C to stop)');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  clearTimeout(timer);
  for (const watcher of watchers.values()) watcher.close();
  await running;
  return 0;
}

/**
 * Folders to watch, and whether recursively: the config's folder, the skills folder, each source pattern's fixed part,
 * each spec's folder.
 */
function watchedDirs(project: Project, skillsDir: string): Map<string, boolean> {
  const dirs = new Map<string, boolean>([
    [project.rootDir, false],
    [resolve(project.rootDir, skillsDir), false],
  ]);
  const add = (dir: string, recursive: boolean) => dirs.set(dir, (dirs.get(dir) ?? false) || recursive);
  for (const pattern of project.config.capabilities) {
    const fixed = pattern.split('/');
    const glob = fixed.findIndex((part) => /[*?[\]{}!]/.test(part));
    const base = glob < 0 ? dirname(pattern) : fixed.slice(0, glob).join('/');
    add(resolve(project.rootDir, base || '.'), glob >= 0 && fixed.slice(glob, -1).length > 0);
  }
  for (const source of project.config.openapi) {
    if (source.spec && !/^https?:/.test(source.spec)) add(dirname(resolve(project.rootDir, source.spec)), false);
  }
  return dirs;
}

function listFiles(dirs: Map<string, boolean>): Set<string> {
  const files = new Set<string>();
  for (const [dir, recursive] of dirs) {
    try {
      for (const name of readdirSync(dir, { recursive, encoding: 'utf8' })) files.add(join(dir, name));
    } catch {
      // a folder that went away: nothing in it to know
    }
  }
  return files;
}

function time(): string {
  return new Date().toTimeString().slice(0, 8);
}
