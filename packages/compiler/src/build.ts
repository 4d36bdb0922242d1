/**
 * `buildCapabilities()`: sources → IR → `.d.ts`, proxy, `schema.json`, `meta.json`, `catalog.json` under the output folder.
 * Unchanged sources are skipped by content hash before any reader (or typescript, or esbuild) is loaded; one bad
 * source never stops the others, and a failed capability keeps its last good output.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { basename, extname, relative, resolve } from 'node:path';
import {
  AgentSpacesError,
  CAPABILITY_FILES,
  CATALOG_VERSION,
  resolveOutDir,
  type CapabilityIR,
  type CompileErrorCode,
  type Diagnostic,
  type TypecheckBudget,
} from '@agent-spaces/capabilities';
import { type BuiltRecord, readBuiltRecords, recordOf, sameInputs, writeBuildState } from './build-state.js';
import type { SchemaProblem, ValidatorsCompiler } from '@agent-spaces/bridge';
import { emitCatalog } from './emit/catalog.js';
import { emitDeclarations } from './emit/declarations.js';
import { emitMeta, emitSchemaFile } from './emit/manifest.js';
import { emitProxy } from './emit/proxy.js';
import {
  type CapabilityFiles,
  checkSandboxDeclarations,
  prepareOutput,
  removeCapability,
  removeStaging,
  writeCapability,
  writeIndexFiles,
} from './emit/write.js';
import { FileHashes, expandSources, forEachLimited, sourceStates, toPosix } from './inputs.js';
import { kebabCase } from './ir/names.js';
import { checkCapabilityNames, findIdCollisions } from './ir/normalize.js';
import { readerFor } from './sources/index.js';
import type { DeclarationsResult } from './emit/declarations.js';
import { SKILLS_DIR, SKILLS_ID, readSkills, skillDeclarations, skillFiles, skillsKey } from './skills.js';
import type { SourceContext, SourceResult } from './sources/types.js';

/** What to build. */
export interface BuildOptions {
  /** Folder the source paths (and the default output folder) are relative to: the config file's folder. */
  rootDir: string;
  /** Source files or globs (`capabilities/*`, `tools/weather.json`), relative to `rootDir`. */
  sources: string[];
  /** Output folder, relative to `rootDir` or absolute. Default `.agent-spaces`. */
  outDir?: string;
  /** Sources declared in the config rather than in files (MCP servers, OpenAPI sources). */
  configSources?: ConfigSource[];
  /** Rebuild every source, even those whose inputs did not change. */
  force?: boolean;
  /** Like `force`, and fetch remote inputs (OpenAPI specs) again instead of using their cache. */
  refresh?: boolean;
  /** Called once per capability as soon as its outcome is known. */
  onProgress?: (entry: BuildProgress) => void;
  /** Called every few seconds while a source keeps the build waiting (a slow MCP server's handshake). */
  onWaiting?: SourceContext['onWaiting'];
  /**
   * How long importing one `defineTool()` file (in a child process) may take, in ms (default 10 000); past it that
   * source fails with `TIMEOUT` and the build goes on.
   */
  loadTimeoutMs?: number;
  /**
   * Declaration files (name → text) of what the sandbox gives agent code besides the capabilities: `@agent-spaces/std`
   * and its globals, as the SDK's `SANDBOX_DECLARATIONS`. Written into the output folder's `types/agent-spaces/`, for its tsconfig.
   */
  sandboxDeclarations?: ReadonlyMap<string, string>;
  /** What the typecheck of each skill may cost (the config's `typecheck` key; default `DEFAULT_TYPECHECK_BUDGET`). */
  typecheckBudget?: Partial<TypecheckBudget>;
}

/**
 * A source declared in the config rather than a file: an MCP server, an OpenAPI source. It is read on every build
 * (its content lives elsewhere); a capability whose IR did not change is reported `unchanged` and not rewritten.
 */
export interface ConfigSource {
  /** Its place in the config, shown as the `file` of its report entries: `mcpServers.memory`, `openapi.todos`. */
  label: string;
  /** Reads the source; reports problems as diagnostics, never throws. */
  read(context: SourceContext): Promise<SourceResult>;
}

/** The outcome of one capability: reported through `onProgress` and listed in the {@link BuildReport}. */
export interface BuildProgress {
  /** Module id (`train-schedule`); for a source that failed before naming a capability, its file name in kebab-case. */
  id: string;
  /** Source file, relative to `rootDir`. */
  file: string;
  status: 'built' | 'unchanged' | 'failed';
  /** Errors (status `failed`) and warnings. */
  diagnostics: Diagnostic[];
  durationMs: number;
  /**
   * An OpenAPI capability read in this build: where its spec came from, the discovery URL that answered
   * (`http://localhost:8000/openapi.json`), the spec URL, or the spec file relative to `rootDir`. Absent for a source
   * file skipped as unchanged (it was not read).
   */
  spec?: string;
}

/** The outcome of a build. */
export interface BuildReport {
  /** Absolute output folder. */
  outDir: string;
  /** One entry per capability (and per source that failed before naming one), sorted by file, then id. */
  capabilities: BuildProgress[];
  /** Ids whose output was deleted because their source left the build or no longer defines them. */
  removed: string[];
  totals: { built: number; unchanged: number; failed: number };
  durationMs: number;
}

const READ_CONCURRENCY = 8;

let version: Promise<string> | undefined;

/**
 * The compiler's package version and the version of the output formats it writes (`catalog.json`), recorded in every
 * `meta.json`: a different one rebuilds everything, so a build from before a format change is never kept as fresh.
 */
export function compilerVersion(): Promise<string> {
  version ??= readFile(new URL('../package.json', import.meta.url), 'utf8').then(
    (text) => `${String((JSON.parse(text) as { version?: unknown }).version)}+catalog.${CATALOG_VERSION}`,
  );
  return version;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const group = groups.get(key(item));
    if (group) group.push(item);
    else groups.set(key(item), [item]);
  }
  return groups;
}

function hasErrors(diagnostics: readonly Diagnostic[]): boolean {
  return diagnostics.some((d) => d.severity === 'error');
}

function fallbackId(file: string): string {
  return kebabCase(basename(file, extname(file))) || 'source';
}

function failure(file: string, code: CompileErrorCode, message: string): BuildProgress {
  return { id: fallbackId(file), file, status: 'failed', diagnostics: [{ code, severity: 'error', file, message }], durationMs: 0 };
}

interface ReadSource {
  file: string;
  result: SourceResult;
  durationMs: number;
}

/** What the steps of one build share: its folders and options, the compiler version, file hashes and the report. */
interface BuildRun {
  options: BuildOptions;
  rootDir: string;
  outDir: string;
  /** `file` relative to `rootDir`, with `/`. */
  rel: (file: string) => string;
  context: SourceContext;
  /** Rebuild every source (`force` or `refresh`). */
  force: boolean;
  compiler: string;
  hashes: FileHashes;
  /** The config's sources by their label resolved against `rootDir`. */
  configSources: Map<string, ConfigSource>;
  /** Every capability's outcome so far, in the order they were known. */
  entries: BuildProgress[];
  report: (entry: BuildProgress) => void;
  /** The bridge's validators compiler; loaded (and the output folder prepared) on first use: only when something is compiled. */
  validators: () => Promise<ValidatorsCompiler>;
}

/** Which sources were read and which capabilities they define, sorted out against the last build's records. */
interface BuildPlan {
  /** The sources read, bar files other sources read that define no capability of their own. */
  sourcesRead: ReadSource[];
  /** Sources (relative) read without errors. */
  readOk: Set<string>;
  /** Sources (relative) of this build, whose last output stays when they fail now. */
  inBuild: Set<string>;
  /** The capabilities read now. */
  fresh: CapabilityIR[];
  /** The `NAME_COLLISION` diagnostic of each capability whose id another one claims. */
  collisions: ReturnType<typeof findIdCollisions>;
}

/**
 * Builds every capability of `options.sources` into `options.outDir`. Problems with a source are reported in its
 * entries (never thrown); throws only for unusable options (`CONFIG_INVALID`) or an unwritable output folder.
 */
export async function buildCapabilities(options: BuildOptions): Promise<BuildReport> {
  const started = performance.now();
  const run = await startBuild(options);
  const { rootDir, outDir, rel, report } = run;
  const [sources, previous, skills] = await Promise.all([expandSources(options.sources, rootDir, outDir), readBuiltRecords(outDir), skillFiles(rootDir)]);
  for (const { file, reason } of sources.missing) report(failure(rel(file), 'SOURCE_NOT_FOUND', `${rel(file)} ${reason}`));
  const checkStarted = performance.now();
  const { stale, fresh: unchanged, pulledIn } = sourceStates(sources.files, previous, { rootDir, version: run.compiler, hashes: run.hashes, force: run.force });
  const checkMs = (performance.now() - checkStarted) / Math.max(1, unchanged.length);
  for (const { file, records } of unchanged) for (const { id } of records) report({ id, file: rel(file), status: 'unchanged', diagnostics: [], durationMs: checkMs });
  const read = await readSources(run, [...stale, ...run.configSources.keys()]);
  const inBuild = [...stale, ...unchanged.map(({ file }) => file), ...sources.missing.map(({ file }) => file), ...run.configSources.keys()];
  const plan = planBuild(run, read, { previous, pulledIn, inBuild, skills: skills.length > 0 });
  const built = await compileSources(run, plan, previous);
  const removed = await writeOutput(run, plan, { previous, built, skills });
  run.entries.sort((a, b) => (a.file === b.file ? (a.id < b.id ? -1 : 1) : a.file < b.file ? -1 : 1));
  const count = (status: BuildProgress['status']) => run.entries.filter((e) => e.status === status).length;
  const totals = { built: count('built'), unchanged: count('unchanged'), failed: count('failed') };
  return { outDir, capabilities: run.entries, removed: [...removed].sort(), totals, durationMs: performance.now() - started };
}

/** Checks `options` and sets up what the build's steps share. */
async function startBuild(options: BuildOptions): Promise<BuildRun> {
  if (typeof options.rootDir !== 'string' || !Array.isArray(options.sources)) {
    throw new AgentSpacesError('CONFIG_INVALID', 'buildCapabilities needs a rootDir string and a sources array', { key: 'sources' });
  }
  checkSandboxDeclarations(options.sandboxDeclarations);
  const rootDir = resolve(options.rootDir);
  const outDir = resolveOutDir(rootDir, options.outDir);
  const rel = (file: string) => toPosix(relative(rootDir, file));
  const context: SourceContext = {
    rootDir,
    outDir,
    relative: rel,
    ...(options.refresh ? { refresh: true } : {}),
    ...(options.loadTimeoutMs !== undefined ? { loadTimeoutMs: options.loadTimeoutMs } : {}),
    ...(options.onWaiting ? { onWaiting: options.onWaiting } : {}),
  };
  const entries: BuildProgress[] = [];
  let loading: Promise<ValidatorsCompiler> | undefined;
  return {
    options,
    rootDir,
    outDir,
    rel,
    context,
    force: options.force === true || options.refresh === true,
    compiler: await compilerVersion(),
    hashes: new FileHashes(),
    configSources: new Map((options.configSources ?? []).map((source) => [resolve(rootDir, source.label), source])),
    entries,
    report: (entry) => {
      entries.push(entry);
      options.onProgress?.(entry);
    },
    validators: () => (loading ??= Promise.all([loadValidators(), prepareOutput(outDir)]).then(([loaded]) => loaded)),
  };
}

/** Reads `files` (source files and config source labels), a few at once; a source that cannot be read is reported. */
async function readSources(run: BuildRun, files: string[]): Promise<ReadSource[]> {
  const { rel } = run;
  const read: ReadSource[] = [];
  await forEachLimited(files.sort(), READ_CONCURRENCY, async (file) => {
    const readStarted = performance.now();
    const configSource = run.configSources.get(file);
    const reader = configSource ? () => configSource.read(run.context) : readerFor(file);
    if (!reader) return run.report(failure(rel(file), 'SOURCE_UNREADABLE', `no source reader for "${extname(file)}" files`));
    let result: SourceResult;
    try {
      result = await reader(file, run.context);
    } catch (error) {
      const diagnostic = failure(rel(file), 'SOURCE_UNREADABLE', `reading ${rel(file)} failed: ${(error as Error).message}`).diagnostics;
      result = { capabilities: [], diagnostics: diagnostic, inputs: [file], hostModules: {} };
    }
    read.push({ file, result, durationMs: performance.now() - readStarted });
  });
  return read.sort((a, b) => (a.file < b.file ? -1 : 1));
}

/**
 * Sorts out what was `read` against the last build: files that other sources read and that define nothing are no
 * sources; `last.inBuild` lists the sources (absolute) of this build, `last.skills` whether it has skills.
 */
function planBuild(
  run: BuildRun,
  read: ReadSource[],
  last: { previous: readonly BuiltRecord[]; pulledIn: Set<string>; inBuild: string[]; skills: boolean },
): BuildPlan {
  const { rel } = run;
  const { pulledIn } = last;
  for (const { file, result } of read) for (const input of result.inputs) if (resolve(input) !== file) pulledIn.add(rel(input));
  const notSources = new Set(read.filter(({ file, result }) => result.capabilities.length === 0 && pulledIn.has(rel(file))).map(({ file }) => rel(file)));
  const sourcesRead = read.filter(({ file }) => !notSources.has(rel(file)));
  const readOk = new Set(sourcesRead.filter(({ result }) => !hasErrors(result.diagnostics)).map(({ file }) => rel(file)));

  // Ids whose last output stays (unchanged sources, sources that failed now) cannot be claimed by another source.
  const inBuild = new Set(last.inBuild.map(rel));
  for (const file of notSources) inBuild.delete(file);
  if (last.skills) inBuild.add(SKILLS_DIR);
  const kept = last.previous.filter((record) => inBuild.has(record.file) && !readOk.has(record.file));
  const fresh = sourcesRead.flatMap(({ file, result }) => (readOk.has(rel(file)) ? result.capabilities : []));
  const collisions = findIdCollisions(fresh, new Map(kept.map((record) => [record.id, record.file])));
  return { sourcesRead, readOk, inBuild, fresh, collisions };
}

/**
 * Compiles each capability of the sources read without errors, and reports the others failed; a config source's
 * capability whose IR did not change is kept as built. Returns the records of the capabilities built or kept.
 */
async function compileSources(run: BuildRun, plan: BuildPlan, previous: readonly BuiltRecord[]): Promise<Map<string, BuiltRecord>> {
  const { rel, report } = run;
  const built = new Map<string, BuiltRecord>();
  const jobs = plan.sourcesRead.flatMap((source) => {
    const { file, result } = source;
    if (!plan.readOk.has(rel(file)) || result.capabilities.length === 0) {
      const ids = result.capabilities.length > 0 ? result.capabilities.map((c) => c.id) : [fallbackId(rel(file))];
      for (const id of ids) report({ id, file: rel(file), status: 'failed', diagnostics: result.diagnostics, durationMs: source.durationMs, ...specOf(result, id) });
      return [];
    }
    return result.capabilities.map((capability) => ({ source, capability }));
  });
  const previousById = new Map(previous.map((record) => [record.id, record]));
  for (const { source, capability } of jobs) {
    const jobStarted = performance.now();
    const spec = specOf(source.result, capability.id);
    const collision = plan.collisions.get(capability);
    const diagnostics = [...source.result.diagnostics, ...checkCapabilityNames(capability), ...(collision ? [collision] : [])];
    const fingerprint = run.configSources.has(source.file) ? irFingerprint(capability, run.compiler) : undefined;
    const last = previousById.get(capability.id);
    if (fingerprint && !run.force && !hasErrors(diagnostics) && last?.file === capability.source.file && sameInputs(last.inputs, fingerprint)) {
      built.set(last.id, last);
      report({ id: capability.id, file: capability.source.file, status: 'unchanged', diagnostics, durationMs: source.durationMs + performance.now() - jobStarted, ...spec });
      continue;
    }
    const { record, ...entry } = compileCapability(capability, source, diagnostics, await compileContext(run, fingerprint));
    if (record) built.set(record.id, record);
    report({ ...entry, durationMs: source.durationMs / source.result.capabilities.length + performance.now() - jobStarted, ...spec });
  }
  return built;
}

/** `{ spec }` of capability `id` read by `result` (see {@link BuildProgress.spec}), or nothing. */
function specOf(result: SourceResult, id: string): Pick<BuildProgress, 'spec'> {
  const spec = result.specs?.[id];
  return spec === undefined ? {} : { spec };
}

/**
 * Removes the output of capabilities that left the build, builds the skills, and writes the index files and the build
 * state. Returns the ids removed.
 */
async function writeOutput(
  run: BuildRun,
  plan: BuildPlan,
  outcome: { previous: readonly BuiltRecord[]; built: Map<string, BuiltRecord>; skills: readonly string[] },
): Promise<Set<string>> {
  const { outDir } = run;
  const { previous, built, skills } = outcome;
  const produced = groupBy(plan.fresh, (capability) => capability.source.file);
  const removed = new Set(
    previous
      .filter(({ id }) => !built.has(id))
      .filter(({ id, file }) => !plan.inBuild.has(file) || (plan.readOk.has(file) && !produced.get(file)?.some((c) => c.id === id)))
      .map(({ id }) => id),
  );
  await Promise.all([...removed].map((id) => removeCapability(outDir, id)));
  let records = [...previous.filter(({ id }) => !removed.has(id) && !built.has(id)), ...built.values()];
  if (skills.length > 0) {
    const skillsRecord = await buildSkills(run, skills, records);
    if (skillsRecord === undefined && records.some((r) => r.id === SKILLS_ID && r.file === SKILLS_DIR)) {
      await removeCapability(outDir, SKILLS_ID);
      removed.add(SKILLS_ID);
    }
    records = [...records.filter((r) => !(r.id === SKILLS_ID && r.file === SKILLS_DIR)), ...(skillsRecord ? [skillsRecord] : [])];
  }
  await writeIndexFiles(outDir, records.map(({ id }) => id), run.options.sandboxDeclarations);
  await writeBuildState(outDir, records);
  await removeStaging(outDir);
  return removed;
}

interface CompileContext {
  outDir: string;
  rootDir: string;
  compiler: string;
  hashes: FileHashes;
  /** Compiles the functions' params validators ahead of runs (the bridge's, see `loadValidatorsCompiler`). */
  validators: ValidatorsCompiler;
  /** The inputs record of a config source's capability (its IR's hash), in place of file hashes. */
  fingerprint?: Record<string, string>;
}

/** The context to compile a capability of `run` in, loading the validators compiler if not yet loaded. */
async function compileContext(run: BuildRun, fingerprint: Record<string, string> | undefined): Promise<CompileContext> {
  const { outDir, rootDir, compiler, hashes } = run;
  return { outDir, rootDir, compiler, hashes, validators: await run.validators(), ...(fingerprint ? { fingerprint } : {}) };
}

/** The inputs record of a capability read from a config source: `{ [label]: sha256 of its IR and the compiler version }`. */
function irFingerprint(capability: CapabilityIR, compiler: string): Record<string, string> {
  const hash = createHash('sha256').update(compiler).update('\0').update(JSON.stringify(capability)).digest('hex');
  return { [capability.source.file]: hash };
}

/** `INVALID_DEFINITION` for a params schema ajv cannot compile, naming the function and the field. */
function schemaDiagnostic(capability: CapabilityIR, problem: SchemaProblem): Diagnostic {
  const fn = capability.functions.find((f) => f.name === problem.function);
  const field = [...problem.pointer.matchAll(/\/properties\/([^/]+)/g)].map((m) => m[1]!.replace(/~1/g, '/').replace(/~0/g, '~')).join('.');
  const where = field === '' ? `its parameters schema${problem.pointer ? ` at ${problem.pointer}` : ''}` : `param "${field}" (parameters${problem.pointer})`;
  return {
    code: 'INVALID_DEFINITION',
    severity: 'error',
    file: capability.source.file,
    pointer: `${fn?.pointer ?? ''}/parameters${problem.pointer}`,
    message: `function "${fn?.sourceName ?? problem.function}": ${where} does not compile: ${problem.message}`,
  };
}

async function loadValidators(): Promise<ValidatorsCompiler> {
  const { loadValidatorsCompiler } = await import('@agent-spaces/bridge');
  return loadValidatorsCompiler();
}

/**
 * Builds the project's skills (`skills`, relative paths) into `@capabilities/skills`, checked against the other built
 * capabilities of `records`; reports each skill that failed and the module. Returns its record, or undefined when no
 * skill built (or the id is another capability's).
 */
async function buildSkills(run: BuildRun, skills: readonly string[], records: readonly BuiltRecord[]): Promise<BuiltRecord | undefined> {
  const started = performance.now();
  const { options, report } = run;
  const taken = records.find((r) => r.id === SKILLS_ID && r.file !== SKILLS_DIR);
  if (taken) {
    const message = `the skills (${SKILLS_DIR}/*.ts) build into @capabilities/${SKILLS_ID}, which ${taken.file} already defines; rename that capability`;
    report({ ...failure(SKILLS_DIR, 'NAME_COLLISION', message), id: SKILLS_ID });
    return undefined;
  }
  const others = records.filter((r) => r.id !== SKILLS_ID);
  const key = await skillsKey(run.outDir, run.compiler, others, options.sandboxDeclarations);
  const declarations = () => skillDeclarations(run.outDir, options.sandboxDeclarations, others.map((r) => r.id));
  const last = records.find((r) => r.id === SKILLS_ID);
  const result = await readSkills(run.rootDir, skills, key, declarations, { budget: options.typecheckBudget, last: run.force ? undefined : last?.inputs });
  for (const [file, diagnostics] of result.failures) report({ id: SKILLS_ID, file, status: 'failed', diagnostics, durationMs: 0 });
  if (result.unchanged && last) {
    report({ id: SKILLS_ID, file: SKILLS_DIR, status: 'unchanged', diagnostics: [], durationMs: performance.now() - started });
    return last;
  }
  if (!result.capability) return undefined;
  const source: ReadSource = { file: SKILLS_DIR, result: { capabilities: [result.capability], diagnostics: [], inputs: [], hostModules: {} }, durationMs: 0 };
  const { record, ...entry } = compileCapability(result.capability, source, [], await compileContext(run, result.inputs), result.declarations);
  report({ ...entry, durationMs: performance.now() - started });
  return record;
}

/**
 * Emits and writes one capability whose source was read; `diagnostics` are those found so far. `declared` is its
 * `index.d.ts` when the source wrote it (the skills).
 */
function compileCapability(
  capability: CapabilityIR,
  source: ReadSource,
  diagnostics: Diagnostic[],
  context: CompileContext,
  declared?: DeclarationsResult,
): Omit<BuildProgress, 'durationMs'> & { record?: BuiltRecord } {
  const base = { id: capability.id, file: capability.source.file };
  if (hasErrors(diagnostics)) return { ...base, status: 'failed', diagnostics };
  // A module given whole (a sandbox-mode npm package) brings its own declarations and has no functions to declare.
  const declarations =
    declared ??
    (capability.module ? { text: capability.module.declarations, diagnostics: [], functions: [], types: new Map<string, string>() } : emitDeclarations(capability));
  diagnostics.push(...declarations.diagnostics);
  if (hasErrors(diagnostics)) return { ...base, status: 'failed', diagnostics };
  // Every params schema is compiled now, as the bridge will: one ajv cannot compile fails the build, not every call.
  const validators = context.validators(capability.functions, (problem) => diagnostics.push(schemaDiagnostic(capability, problem)));
  if (hasErrors(diagnostics)) return { ...base, status: 'failed', diagnostics };
  const inputs = context.fingerprint ?? context.hashes.all([...new Set([source.file, ...source.result.inputs])], context.rootDir) ?? {};
  const meta = emitMeta(capability, { compilerVersion: context.compiler, inputs, builtAt: new Date() });
  const files: CapabilityFiles = {
    [CAPABILITY_FILES.declarations]: declarations.text,
    [CAPABILITY_FILES.proxy]: capability.module?.code ?? emitProxy(capability),
    [CAPABILITY_FILES.schema]: `${JSON.stringify(emitSchemaFile(capability), null, 2)}\n`,
    [CAPABILITY_FILES.meta]: `${JSON.stringify(meta, null, 2)}\n`,
    [CAPABILITY_FILES.catalog]: `${JSON.stringify(emitCatalog(capability, declarations))}\n`,
    [CAPABILITY_FILES.validators]: validators,
  };
  const host = source.result.hostModules[capability.id];
  if (host !== undefined) files[CAPABILITY_FILES.host] = host;
  try {
    writeCapability(context.outDir, capability.id, files);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    return { ...base, status: 'failed', diagnostics: [...diagnostics, { code: 'WRITE_FAILED', severity: 'error', file: base.file, message }] };
  }
  return { ...base, status: 'built', diagnostics, record: recordOf(meta) };
}
