import { existsSync, lstatSync, readdirSync, watch as watchDir, type Dirent, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { jsonText, toWireError, visibleText } from '@agent-spaces/capabilities';
import { buildProject, printDiagnostics, type BuildFlags } from './build.js';
import type { CommandContext } from './index.js';
import { loadProject, type Project } from './project.js';

/** How long changes are gathered before a rebuild: an editor's save is often several events. */
const SETTLE_MS = 150;

/** A rebuild redoes only what changed: `--force` and `--refresh` apply to the first build alone. */
const REBUILD: BuildFlags = { force: false, refresh: false };

/** Folders never watched or listed, however deep: installed packages and version control. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/**
 * `capabilities build --watch`, after the first build: rebuilds when a file changes in the config's folder, the skills
 * folder, a source pattern's folder (with its sub-folders when the pattern reaches into them) or an OpenAPI spec's
 * folder (the build itself skips what did not change), and prints one line per rebuild (`--json`: one report per
 * line). `node_modules`, `.git` and the output folder are never watched. A changed config is loaded again; one that
 * does not load is reported and the last good one kept. A failed source keeps its last good output (the build never
 * removes it). Runs until SIGINT or SIGTERM, then exits 0.
 */
export async function watch(context: CommandContext, first: Project): Promise<number> {
  const { output } = context;
  const { MCP_PROJECT_FILES, SKILLS_DIR } = await import('@agent-spaces/compiler');
  const mcpFiles = new Set<string>([...MCP_PROJECT_FILES.mcpJson, MCP_PROJECT_FILES.env]);
  const json = context.values.json === true;
  let project = first;
  // Each folder is watched on its own, not recursively: Node's recursive watch on Linux would walk node_modules too.
  const watchers = new Map<string, FSWatcher>();
  // The entries of the watched folders (bar the watched folders themselves) at the last look.
  let known = new Set<string>();
  const changed = new Set<string>();
  // A folder came or went: the folders to watch are looked for again before the next rebuild.
  let rescan = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;

  const rel = (file: string) => relative(project.rootDir, file).split(sep).join('/') || '.';
  const skipped = (path: string) => SKIPPED_FOLDERS.has(basename(path)) || path === project.outDir || path.startsWith(project.outDir + sep);
  const onChange = (dir: string) => (_event: string, name: string | Buffer | null) => {
    const file = name ? join(dir, name.toString()) : dir;
    if (skipped(file)) return;
    if (watchers.has(file) || lstatSync(file, { throwIfNoEntry: false })?.isDirectory()) rescan = true;
    else changed.add(file);
    schedule();
  };
  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      // Changes that arrive during a rebuild wait for it, then rebuild again.
      running ??= rebuild().finally(() => {
        running = undefined;
        if (changed.size > 0 || rescan) schedule();
      });
    }, SETTLE_MS);
  };

  const watchFolder = (dir: string) => {
    if (watchers.has(dir)) return;
    try {
      const watcher = watchDir(dir, onChange(dir)).on('error', () => {
        // A folder that can no longer be watched: forgotten, and looked for again.
        watcher.close();
        watchers.delete(dir);
        rescan = true;
        schedule();
      });
      watchers.set(dir, watcher);
    } catch (error) {
      // A folder that went away since it was found is no problem; running out of watches is said.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') output.err(visibleText(`✗ ${time()} ${rel(dir)}: not watched: ${toWireError(error).message}`, '    '));
    }
  };

  /** Watches the folders the config names now, and no others; returns the entries that came or went since the last look. */
  const rewatch = (): string[] => {
    const { folders, entries } = survey(watchedDirs(project, SKILLS_DIR), skipped, watchFolder);
    for (const [dir, watcher] of watchers) {
      if (folders.has(dir)) continue;
      watcher.close();
      watchers.delete(dir);
    }
    const moved = [...entries].filter((entry) => !known.has(entry)).concat([...known].filter((entry) => !entries.has(entry)));
    known = entries;
    return moved;
  };

  const rebuild = async (): Promise<void> => {
    // What came or went in folders that came or went is a change, even when no event named it.
    const moved = rescan ? rewatch() : [];
    rescan = false;
    const seen = new Set(moved);
    for (const file of changed) {
      const exists = existsSync(file);
      // A file that appeared and went between two looks (a tool's temp file) is no change.
      if (exists || known.has(file)) seen.add(file);
      if (exists) known.add(file);
      else known.delete(file);
    }
    changed.clear();
    const files = [...seen];
    if (files.length === 0) return;
    const configChanged = files.some((file) => file === project.file || mcpFiles.has(basename(file)));
    if (configChanged) {
      try {
        project = await loadProject(context);
      } catch (error) {
        output.err(visibleText(`✗ ${time()} ${rel(project.file)}: ${toWireError(error).message} (keeping the last config)`, '    '));
        return;
      }
      // Before the build, so a change during it is seen; what the new config's folders hold, the build reads anyway.
      rewatch();
    }
    let report: Awaited<ReturnType<typeof buildProject>>;
    try {
      report = await buildProject(project, REBUILD, undefined);
    } catch (error) {
      // An output folder that cannot be written, a folder that went away: said, and the watch goes on.
      output.err(visibleText(`✗ ${time()} ${files.map(rel).sort().join(', ')}: ${toWireError(error).message}`, '    '));
      return;
    }
    if (json) return output.out(jsonText(report));
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
 * Folders to watch, and whether with their sub-folders: the config's folder, the skills folder, each source pattern's
 * fixed part (with sub-folders when a glob comes before the pattern's last part, as `**` does), each spec's folder.
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

/**
 * The folders to watch for `dirs` (each, and with its sub-folders when it says so, never descending into one that
 * `skipped` names nor following a link) and the entries in them other than those folders. A folder that does not
 * exist or cannot be read is left out. `enter` is called with each folder before it is read, so that a watch it
 * starts misses nothing written after the listing.
 */
function survey(dirs: Map<string, boolean>, skipped: (path: string) => boolean, enter: (dir: string) => void): { folders: Set<string>; entries: Set<string> } {
  const folders = new Set<string>();
  const entries = new Set<string>();
  const visit = (dir: string, recursive: boolean) => {
    if (folders.has(dir)) return;
    enter(dir);
    let found: Dirent[];
    try {
      found = readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    folders.add(dir);
    for (const entry of found) {
      const path = join(dir, entry.name);
      entries.add(path);
      if (recursive && entry.isDirectory() && !skipped(path)) visit(path, true);
    }
  };
  // Recursive ones first: a folder already visited is then never one that still has to be descended into.
  for (const [dir, recursive] of [...dirs].sort(([, a], [, b]) => Number(b) - Number(a))) visit(dir, recursive);
  for (const folder of folders) entries.delete(folder);
  return { folders, entries };
}

function time(): string {
  return new Date().toTimeString().slice(0, 8);
}
