/**
 * Typed skills of a project (docs/definition-formats.md, "Skills"): `saveSkill` keeps a working function as
 * `skills/<name>.ts` and rebuilds, so later scripts import it from `@capabilities/skills`; `listSkills`, `deleteSkill`.
 */
import { existsSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { AgentSpacesError, CAPABILITY_PREFIX, capabilitiesDir, editorTsconfig, readCatalog } from '@agent-spaces/capabilities';
import type { BuildReport } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS } from './declarations.js';

/** The project whose skills are meant: the folder of its config file (default the current folder), or the file itself. */
export interface SkillProject {
  rootDir?: string;
  /** Config file, relative to `rootDir` (default: the usual names, `agent-spaces.config.*`). */
  configFile?: string;
  /** Build output folder (relative to the config file's folder) instead of the config's `outDir`. */
  outDir?: string;
}

/** What {@link saveSkill} saves. */
export interface SaveSkillOptions extends SkillProject {
  /** The skill's name: its file's (`skills/<name>.ts`) and its exported async function's; camelCase. */
  name: string;
  /** TypeScript exporting `async function <name>(params: Params): Promise<Result>`; may import `@capabilities/*`. */
  code: string;
  /** Written as the function's doc comment when the code has none. */
  description?: string;
  /** Overwrite an existing skill of the name (default: refused with `NAME_COLLISION`). */
  replace?: boolean;
}

/** A skill saved and built. */
export interface SavedSkill {
  name: string;
  /** Its file, relative to the project folder. */
  file: string;
  /** As agent code calls it: `skills.<name>(params: …): Promise<…>`. */
  signature: string;
  /** The import line that makes it callable. */
  import: string;
}

/** One skill file of a project. */
export interface SkillInfo {
  name: string;
  file: string;
  /** False when the last build left it out (it does not typecheck, or is not a skill); `capabilities build` says why. */
  built: boolean;
  signature?: string;
  summary?: string;
}

/** Most characters of a skill's code. */
const MAX_CODE = 256 * 1024;

const IMPORT_LINE = `import { skills } from '${CAPABILITY_PREFIX}skills';`;

/**
 * Checks `code` against the project's built capabilities, writes it as `skills/<name>.ts` (and `skills/tsconfig.json`
 * for editors, when there is none) and rebuilds the project.
 * Throws `INVALID_ARGUMENTS` for a bad name or code, `NAME_COLLISION` for an existing skill without `replace`,
 * `TYPE_ERROR` for code that does not typecheck and `INVALID_DEFINITION` for code that is not one exported async
 * function with declared types (the message names the skill and the problem); nothing is written then.
 */
export async function saveSkill(options: SaveSkillOptions): Promise<SavedSkill> {
  const { name, code, description } = options;
  const compiler = await import('@agent-spaces/compiler');
  checkName(name, compiler.SKILL_NAME);
  if (typeof code !== 'string' || code.trim() === '') throw new AgentSpacesError('INVALID_ARGUMENTS', 'code: must be the TypeScript of the skill', { field: 'code' });
  if (code.length > MAX_CODE) throw new AgentSpacesError('INVALID_ARGUMENTS', `code: at most ${MAX_CODE} characters`, { field: 'code' });
  if (description !== undefined && typeof description !== 'string') throw new AgentSpacesError('INVALID_ARGUMENTS', 'description: must be a string', { field: 'description' });
  return serialized(async () => {
    const project = await loadProject(options);
    const file = `${compiler.SKILLS_DIR}/${name}.ts`;
    if (existsSync(join(project.rootDir, file)) && options.replace !== true) {
      throw new AgentSpacesError('NAME_COLLISION', `skill "${name}" exists (${file}); to overwrite it, ask for a replacement (replace: true; --replace in the CLI)`, { field: 'name', name });
    }
    const text = withDoc(code, name, description);
    const declarations = await compiler.skillDeclarations(project.config.outDir, SANDBOX_DECLARATIONS);
    const checked = await compiler.checkSkill(project.rootDir, name, text, declarations);
    if (!checked.ok) throw new AgentSpacesError(checked.code, checked.problem, { field: 'code', name });
    const folder = join(project.rootDir, compiler.SKILLS_DIR);
    await mkdir(folder, { recursive: true });
    await writeFile(join(project.rootDir, file), text);
    // An editor opened on the skills checks them as the build does; a tsconfig already there is the project's own.
    await writeFile(join(folder, 'tsconfig.json'), editorTsconfig(folder, project.config.outDir), { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'EEXIST') throw error;
    });
    await build(project);
    return { name, file, signature: checked.signature, import: IMPORT_LINE };
  });
}

/** The skill files of the project, each with its signature when the last build built it. */
export async function listSkills(options: SkillProject = {}): Promise<SkillInfo[]> {
  const { skillFiles, SKILLS_ID } = await import('@agent-spaces/compiler');
  const project = await loadProject(options);
  const dir = capabilitiesDir(project.config.outDir);
  const built = existsSync(join(dir, SKILLS_ID)) ? readCatalog(dir, SKILLS_ID) : [];
  return (await skillFiles(project.rootDir)).map((file) => {
    const name = file.slice(file.lastIndexOf('/') + 1, -'.ts'.length);
    const entry = built.find((e) => e.path === `${SKILLS_ID}.${name}`);
    return { name, file, built: entry !== undefined, ...(entry ? { signature: entry.signature, summary: entry.summary } : {}) };
  });
}

/** Deletes `skills/<name>.ts` and rebuilds. Throws `INVALID_ARGUMENTS` for a bad name or one no skill has. */
export async function deleteSkill(options: SkillProject & { name: string }): Promise<{ name: string; file: string }> {
  const compiler = await import('@agent-spaces/compiler');
  checkName(options.name, compiler.SKILL_NAME);
  return serialized(async () => {
    const project = await loadProject(options);
    const file = `${compiler.SKILLS_DIR}/${options.name}.ts`;
    if (!existsSync(join(project.rootDir, file))) {
      const names = (await compiler.skillFiles(project.rootDir)).map((f) => f.slice(f.lastIndexOf('/') + 1, -'.ts'.length));
      throw new AgentSpacesError('INVALID_ARGUMENTS', `name: no skill "${options.name}" (skills: ${names.join(', ') || 'none'})`, { field: 'name' });
    }
    await rm(join(project.rootDir, file));
    await build(project);
    return { name: options.name, file };
  });
}

function checkName(name: unknown, pattern: RegExp): asserts name is string {
  if (typeof name !== 'string' || !pattern.test(name)) {
    throw new AgentSpacesError(
      'INVALID_ARGUMENTS',
      `name: ${JSON.stringify(name)} is not a skill name (a camelCase identifier: letters and digits, starting with a lower-case letter, at most 64)`,
      { field: 'name' },
    );
  }
}

/** `code` with `description` as the doc comment of its function `name` when the code gives it none. */
function withDoc(code: string, name: string, description: string | undefined): string {
  const at = code.search(new RegExp(String.raw`export\s+async\s+function\s+${name}\b`));
  if (description === undefined || description.trim() === '' || at === -1 || code.slice(0, at).trimEnd().endsWith('*/')) return code;
  const doc = `/**\n${description
    .trim()
    .replaceAll('*/', '*\\/')
    .split('\n')
    .map((line) => ` * ${line}`.trimEnd())
    .join('\n')}\n */\n`;
  return code.slice(0, at) + doc + code.slice(at);
}

async function loadProject(options: SkillProject) {
  const { loadConfig } = await import('@agent-spaces/compiler');
  const project = await loadConfig({ cwd: options.rootDir ?? process.cwd(), ...(options.configFile ? { configFile: options.configFile } : {}) });
  return options.outDir === undefined ? project : { ...project, config: { ...project.config, outDir: resolve(project.rootDir, options.outDir) } };
}

/** Builds the project as `capabilities build` does. */
async function build(project: Awaited<ReturnType<typeof loadProject>>): Promise<BuildReport> {
  const { buildCapabilities, configSources } = await import('@agent-spaces/compiler');
  const { rootDir, config } = project;
  return buildCapabilities({ rootDir, sandboxDeclarations: SANDBOX_DECLARATIONS, sources: config.capabilities, configSources: configSources(config), outDir: config.outDir });
}

/** Saves and deletes in this process, one at a time, so that their builds never overlap. */
let queue: Promise<unknown> = Promise.resolve();
function serialized<T>(task: () => Promise<T>): Promise<T> {
  const next = queue.then(task, task);
  queue = next.catch(() => undefined);
  return next;
}
