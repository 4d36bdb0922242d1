import { existsSync, lstatSync, readdirSync, watch as watchDir, type Dirent, type FSWatcher } from 'node:fs';
import { basename, dirname, join, relative, resolve, sep } from 'node:path';
import { jsonText, toWireError, visibleText } from '@agent-spaces/capabilities';
import type { BuildReport } from '@agent-spaces/compiler';
import { buildProject, printDiagnostics, type BuildFlags } from './build-project.js';
import type { CommandContext } from './context.js';
import { loadProject, type Project } from './project.js';
import type { CliOutput } from '../output.js';

/** How long changes are gathered before a rebuild: an editor's save is often several events. */
const SETTLE_MS = 150;

/** A rebuild redoes only what changed: `--force` and `--refresh` apply to the first build alone. */
const REBUILD: BuildFlags = { force: false, refresh: false };

/** Folders never watched or listed, however deep: installed packages and version control. */
const SKIPPED_FOLDERS = new Set(['node_modules', '.git']);

/**
 * At most this many files the build read outside the watched folders (a module a capability imports from `lib/`) are
 * watched, each through its folder; past it the rest are listed once as not watched.
 */
const MAX_WATCHED_INPUTS = 1000;

/**
 * `capabilities build --watch`, after the first build: rebuilds when a file changes in the config's folder, the folders
 * of the MCP client files (`.cursor/`, `.vscode/`), the skills folder, a source pattern's folder (with its sub-folders
 * when the pattern reaches into them), an OpenAPI spec's folder, or any other file the last build recorded as read (a module a capability imports; at most
 * {@link MAX_WATCHED_INPUTS}, looked for again after every build), and prints one line per rebuild (`--json`: one
 * report per line). A removed input is said before its rebuild. `node_modules`, `.git` and the output folder are never
 * watched. A changed config is loaded again; one that does not load is reported and the last good one kept. A failed
 * source keeps its last good output (the build never removes it). Runs until SIGINT or SIGTERM, then exits 0.
 */
export async function watch(context: CommandContext, first: Project): Promise<number> {
  const { MCP_PROJECT_FILES, SKILLS_DIR } = await import('@agent-spaces/compiler');
  const mcpFiles = new Set<string>([...MCP_PROJECT_FILES.mcpJson, MCP_PROJECT_FILES.env]);
  const watcher = new ProjectWatcher(context, first, SKILLS_DIR, mcpFiles);
  await watcher.start();
  context.output.info('Watching for changes (Ctrl-C to stop)');
  await new Promise<void>((done) => {
    process.once('SIGINT', done);
    process.once('SIGTERM', done);
  });
  await watcher.close();
  return 0;
}

/**
 * The folders of one project under watch, the changes seen in them and the rebuild they lead to: changes are gathered
 * for `SETTLE_MS`, then built; a changed config is loaded again before the build.
 */
class ProjectWatcher {
  private readonly output: CliOutput;
  private readonly json: boolean;
  // Each folder is watched on its own, not recursively: Node's recursive watch on Linux would walk node_modules too.
  private readonly watchers = new Map<string, FSWatcher>();
  // The files the last build read (bar node_modules and the output), each with the sources that read it.
  private inputs = new Map<string, string[]>();
  // The folders watched only for the inputs in them, outside the folders above; events for other files are ignored.
  private readonly inputWatchers = new Map<string, FSWatcher>();
  private unwatchedInputs = 0;
  // The entries of the watched folders (bar the watched folders themselves) at the last look.
  private known = new Set<string>();
  private readonly changed = new Set<string>();
  // A folder came or went: the folders to watch are looked for again before the next rebuild.
  private rescan = false;
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly context: CommandContext,
    private project: Project,
    private readonly skillsDir: string,
    private readonly mcpFiles: ReadonlySet<string>,
  ) {
    this.output = context.output;
    this.json = context.values.json === true;
  }

  /** Starts watching the folders the config names and the files the first build read. */
  async start(): Promise<void> {
    this.rewatch();
    await this.rewatchInputs();
  }

  /** Stops watching and waits for a rebuild under way. */
  async close(): Promise<void> {
    clearTimeout(this.timer);
    for (const watcher of [...this.watchers.values(), ...this.inputWatchers.values()]) watcher.close();
    await this.running;
  }

  private rel(file: string): string {
    return relative(this.project.rootDir, file).split(sep).join('/') || '.';
  }

  private skipped(path: string): boolean {
    const { outDir } = this.project;
    return SKIPPED_FOLDERS.has(basename(path)) || path === outDir || path.startsWith(outDir + sep);
  }

  private onChange(dir: string, name: string | Buffer | null): void {
    const file = name ? join(dir, name.toString()) : dir;
    if (this.skipped(file)) return;
    if (this.watchers.has(file) || lstatSync(file, { throwIfNoEntry: false })?.isDirectory()) this.rescan = true;
    else this.changed.add(file);
    this.schedule();
  }

  private onInputChange(dir: string, name: string | Buffer | null): void {
    const file = name ? join(dir, name.toString()) : dir;
    if (!this.inputs.has(file)) return;
    this.changed.add(file);
    this.schedule();
  }

  private schedule(): void {
    clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      // Changes that arrive during a rebuild wait for it, then rebuild again.
      this.running ??= this.rebuild().finally(() => {
        this.running = undefined;
        if (this.changed.size > 0 || this.rescan) this.schedule();
      });
    }, SETTLE_MS);
  }

  /** Watches `dir` into `watchers` (the config's folders, or the inputs' ones) with `onEvent`, unless it is already. */
  private watchFolder(dir: string, watchers = this.watchers, onEvent = (name: string | Buffer | null) => this.onChange(dir, name)): void {
    if (watchers.has(dir)) return;
    try {
      const watcher = watchDir(dir, (_event, name) => onEvent(name)).on('error', () => {
        // A folder that can no longer be watched: forgotten, and looked for again.
        watcher.close();
        watchers.delete(dir);
        this.rescan = true;
        this.schedule();
      });
      watchers.set(dir, watcher);
    } catch (error) {
      // A folder that went away since it was found is no problem; running out of watches is said.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') this.fail(this.rel(dir), `not watched: ${toWireError(error).message}`);
    }
  }

  /** Watches the folders the config names now, and no others; returns the entries that came or went since the last look. */
  private rewatch(): string[] {
    const dirs = watchedDirs(this.project, this.skillsDir, this.mcpFiles);
    const { folders, entries } = survey(dirs, (path) => this.skipped(path), (dir) => this.watchFolder(dir));
    for (const [dir, watcher] of this.watchers) {
      if (folders.has(dir)) continue;
      watcher.close();
      this.watchers.delete(dir);
    }
    const known = this.known;
    const moved = [...entries].filter((entry) => !known.has(entry)).concat([...known].filter((entry) => !entries.has(entry)));
    this.known = entries;
    return moved;
  }

  /**
   * Reads what the last build read and watches the folders of those files outside the watched folders (an import
   * added is watched from now on, one dropped no longer); says once when the cap leaves some unwatched.
   */
  private async rewatchInputs(): Promise<void> {
    const { readBuildInputs } = await import('@agent-spaces/compiler');
    const read = await readBuildInputs(this.project.outDir, this.project.rootDir).catch(() => new Map<string, string[]>());
    this.inputs = new Map([...read].filter(([file]) => !this.skipped(file) && !file.split(sep).some((part) => SKIPPED_FOLDERS.has(part))));
    const outside = [...this.inputs.keys()].filter((file) => !this.watchers.has(dirname(file))).sort();
    const folders = new Set(outside.slice(0, MAX_WATCHED_INPUTS).map((file) => dirname(file)));
    for (const [dir, watcher] of this.inputWatchers) {
      if (folders.has(dir)) continue;
      watcher.close();
      this.inputWatchers.delete(dir);
    }
    for (const dir of folders) this.watchFolder(dir, this.inputWatchers, (name) => this.onInputChange(dir, name));
    const unwatched = Math.max(0, outside.length - MAX_WATCHED_INPUTS);
    if (unwatched > 0 && unwatched !== this.unwatchedInputs) {
      this.fail(this.list(outside.slice(MAX_WATCHED_INPUTS, MAX_WATCHED_INPUTS + 3)), `${unwatched} files the build reads are not watched (at most ${MAX_WATCHED_INPUTS} are, besides the watched folders)`);
    }
    this.unwatchedInputs = unwatched;
  }

  /** The files that changed since the last rebuild, taken (and the known entries brought up to date). */
  private takeChanges(): string[] {
    // What came or went in folders that came or went is a change, even when no event named it.
    const seen = new Set(this.rescan ? this.rewatch() : []);
    this.rescan = false;
    for (const file of this.changed) {
      const exists = existsSync(file);
      // A file that appeared and went between two looks (a tool's temp file) is no change.
      if (exists || this.known.has(file) || this.inputs.has(file)) seen.add(file);
      // Only the watched folders' entries are known: an input's folder is not listed.
      if (!this.watchers.has(dirname(file))) continue;
      if (exists) this.known.add(file);
      else this.known.delete(file);
    }
    this.changed.clear();
    return [...seen];
  }

  /** Loads the config again and watches its folders; false (said) when it does not load, keeping the last one. */
  private async reloadConfig(): Promise<boolean> {
    try {
      this.project = await loadProject(this.context);
    } catch (error) {
      this.fail(this.rel(this.project.file), `${toWireError(error).message} (keeping the last config)`);
      return false;
    }
    // Before the build, so a change during it is seen; what the new config's folders hold, the build reads anyway.
    this.rewatch();
    return true;
  }

  private async rebuild(): Promise<void> {
    const files = this.takeChanges();
    if (files.length === 0) return;
    const configChanged = files.some((file) => file === this.project.file || this.mcpFiles.has(this.rel(file)));
    if (configChanged && !(await this.reloadConfig())) return;
    for (const file of files) {
      // A file other sources read went away (a removed source itself just leaves the build).
      const readers = (this.inputs.get(file) ?? []).filter((source) => resolve(this.project.rootDir, source) !== file);
      if (readers.length > 0 && !existsSync(file)) this.fail(this.rel(file), `removed (read by ${readers.join(', ')})`);
    }
    try {
      this.printRebuild(files, await buildProject(this.project, REBUILD, undefined));
    } catch (error) {
      // An output folder that cannot be written, a folder that went away: said, and the watch goes on.
      this.fail(this.list(files), toWireError(error).message);
    }
    await this.rewatchInputs();
  }

  /** One line for the rebuild caused by `files` (`--json`: its report), then each failed capability's diagnostics. */
  private printRebuild(files: string[], report: BuildReport): void {
    const { output } = this;
    if (this.json) return output.out(jsonText(report));
    const { built, unchanged, failed } = report.totals;
    (failed > 0 ? output.err : output.info)(`${failed > 0 ? '✗' : '↻'} ${time()} ${this.list(files)}: ${built} built, ${unchanged} unchanged, ${failed} failed in ${report.durationMs.toFixed(0)} ms`);
    for (const entry of report.capabilities) {
      if (entry.status === 'failed') {
        output.err(visibleText(`  ✗ ${entry.id} ${entry.file}: keeps its last good output`));
        printDiagnostics(output.err, entry.diagnostics);
      }
    }
  }

  private list(files: string[]): string {
    return files.map((file) => this.rel(file)).sort().join(', ');
  }

  private fail(what: string, message: string): void {
    this.output.err(visibleText(`✗ ${time()} ${what}: ${message}`, '    '));
  }
}

/**
 * Folders to watch, and whether with their sub-folders: the config's folder, the MCP client files' folders, the skills
 * folder, each source pattern's fixed part (with sub-folders when a glob comes before the pattern's last part, as `**` does), each spec's folder.
 */
function watchedDirs(project: Project, skillsDir: string, mcpFiles: ReadonlySet<string>): Map<string, boolean> {
  const dirs = new Map<string, boolean>([
    [project.rootDir, false],
    [resolve(project.rootDir, skillsDir), false],
  ]);
  const add = (dir: string, recursive: boolean) => dirs.set(dir, (dirs.get(dir) ?? false) || recursive);
  // The client files in their own folders (`.cursor/mcp.json`, `.vscode/mcp.json`).
  for (const file of mcpFiles) add(dirname(resolve(project.rootDir, file)), false);
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
