/**
 * Typed skills of a project (docs/definition-formats.md, "Skills"): `saveSkill` keeps a working function as
 * `skills/<name>.ts` and rebuilds, so later scripts import it from `@capabilities/skills`; `listSkills`, `deleteSkill`.
 */
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { AgentSpacesError, CAPABILITY_PREFIX, OUTPUT_FILES, capabilitiesDir, editorTsconfig, resolveOutDir, type JsonSchema } from '@agent-spaces/capabilities';
import { readCatalog } from '@agent-spaces/bridge/output';
import type { BuildReport } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS } from './declarations.js';
import { clientHash, fileStamp, recordOwner, recordsStamp, sha256, skillOwners, updateOwners, type OwnerRecord } from './skill-owners.js';
import { checkShare, maySee, recordedShare, shareOf, type RecordedShare, type SkillOwner, type SkillShare } from './skill-shares.js';

/** The project whose skills are meant: the folder of its config file (default the current folder), or the file itself. */
export interface SkillProject {
  rootDir?: string;
  /** Config file, relative to `rootDir` (default: the usual names, `agent-spaces.config.*`). */
  configFile?: string;
  /** Build output folder (relative to the config file's folder) instead of the config's `outDir`. */
  outDir?: string;
  /**
   * The client acting (over `mcp serve`, its MCP client's id), kept only as a sha256: a skill it saves is its own,
   * and it may replace or delete only its own. Absent: the operator (the CLI, the SDK), who may replace or delete any
   * skill, and whose skills (also those written by hand) no client may.
   */
  owner?: string;
  /** The groups of `owner` (a user's): it also sees the skills shared with any of them. */
  groups?: readonly string[];
  /** Where the skills are shared with other copies of the project (a server's replicas); default: this folder only. */
  records?: SkillRecords;
}

/**
 * What a store shared by several copies of a project (the replicas of `mcp serve`, each with its own folder) holds of
 * one skill: its owner (a client id's hash; null: the operator) and its text's sha256, or, once it was deleted, the
 * sha256 of the text deleted (`deleted`: a copy holding exactly that text goes too, any other is the operator's own).
 */
export interface SkillRecord {
  name: string;
  owner: string | null;
  sha256: string;
  deleted: boolean;
  /** With whom its owner shares it (absent: the space). */
  share?: RecordedShare;
}

/** A {@link SkillRecord} with the skill's text (absent once deleted). */
export interface SharedSkill extends SkillRecord {
  text?: string;
}

/**
 * Skills shared with other copies of the project. {@link saveSkill} and {@link deleteSkill} run their change through
 * `change`, which holds skill `name` against every other process, passes what the store holds of it (the local copy is
 * made to match it first, so the owner checks read the store) and keeps what `apply` says the skill now is. Errors of
 * `apply` (`SKILL_NOT_OWNED`, …) and of the store (`STORE_UNAVAILABLE`) pass through; nothing is kept then.
 */
export interface SkillRecords {
  change<T>(name: string, apply: (held: SharedSkill | undefined) => Promise<{ value: T; kept: SharedSkill }>): Promise<T>;
}

/** What {@link saveSkill} saves. */
export interface SaveSkillOptions extends SkillProject {
  /** The skill's name: its file's (`skills/<name>.ts`) and its exported async function's; camelCase. */
  name: string;
  /**
   * TypeScript exporting `async function <name>(params: Params): Promise<Result>`; may import `@capabilities/*`. A
   * default-exported or differently named async function (the only one) is saved under `name`.
   */
  code: string;
  /** Written as the function's doc comment when the code has none. */
  description?: string;
  /**
   * JSON Schema of the skill's `params`: `code` is then the function's body (statements using `params`, returning
   * the result; imports first), wrapped into the typed function, which is what is saved.
   */
  parameters?: JsonSchema;
  /** JSON Schema of a wrapped body's result (default: `unknown`). */
  returns?: JsonSchema;
  /** Overwrite an existing skill of the name (default: refused with `NAME_COLLISION`); only its owner may. */
  replace?: boolean;
  /**
   * With whom the skill is shared: `space` (every client may see and call it), `private` or `{ groups }` (both need an
   * `owner`). Absent: a skill it replaces keeps its share, a new one gets `defaultShare` (default `space`). A client
   * that may not see a skill can neither list, find, call, replace nor delete it.
   */
  share?: SkillShare;
  /** The share of a new skill saved without `share` (`mcp serve` gives a user's skills `private`). */
  defaultShare?: SkillShare;
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
  /** Who it belongs to: the operator (CLI, SDK, written by hand) or an MCP client. */
  owner: 'operator' | 'client';
  /** With whom it is shared: `space`, `private` (its owner only) or `{ groups }`. */
  shared: SkillShare;
  /** Whether it belongs to the `owner` the list was asked for (present only when one was given). */
  yours?: boolean;
}

/** Most characters of a skill's code. */
const MAX_CODE = 256 * 1024;
/** Most characters of a skill's description. */
const MAX_DESCRIPTION = 4096;

const IMPORT_LINE = `import { skills } from '${CAPABILITY_PREFIX}skills';`;

/**
 * Checks `code` against the project's built capabilities and bundles it, exactly as the build will, writes it as
 * `skills/<name>.ts` (and `skills/tsconfig.json` for editors, when there is none), records its `owner` and rebuilds.
 * Throws `INVALID_ARGUMENTS` for a bad name or code, `SKILL_NOT_OWNED` for another owner's skill, `NAME_COLLISION`
 * for an existing skill without `replace`, `TYPE_ERROR` for code that does not typecheck, `IMPORT_REFUSED` for code
 * importing what a skill may not read and `INVALID_DEFINITION` for code that is not one exported async function with
 * declared types (the message names the skill and the problem); nothing is written then.
 */
export async function saveSkill(options: SaveSkillOptions): Promise<SavedSkill> {
  const { name, code, description } = options;
  const compiler = await import('@agent-spaces/compiler');
  checkName(name, compiler.skillNameProblem);
  if (typeof code !== 'string' || code.trim() === '') throw new AgentSpacesError('INVALID_ARGUMENTS', 'code: must be the TypeScript of the skill', { field: 'code' });
  if (code.length > MAX_CODE) throw new AgentSpacesError('INVALID_ARGUMENTS', `code: at most ${MAX_CODE} characters`, { field: 'code' });
  if (description !== undefined && typeof description !== 'string') throw new AgentSpacesError('INVALID_ARGUMENTS', 'description: must be a string', { field: 'description' });
  if (description !== undefined && description.length > MAX_DESCRIPTION) {
    throw new AgentSpacesError('INVALID_ARGUMENTS', `description: at most ${MAX_DESCRIPTION} characters`, { field: 'description' });
  }
  for (const field of ['parameters', 'returns'] as const) {
    const schema = options[field];
    if (schema !== undefined && (schema === null || typeof schema !== 'object' || Array.isArray(schema))) {
      throw new AgentSpacesError('INVALID_ARGUMENTS', `${field}: must be a JSON Schema object`, { field });
    }
  }
  const share = options.share === undefined ? undefined : checkShare(options.share);
  const defaultShare = checkShare(options.defaultShare ?? 'space');
  if (options.owner === undefined && (share ?? defaultShare) !== 'space') {
    throw new AgentSpacesError('INVALID_ARGUMENTS', "share: the operator's skills are shared with the space", { field: 'share' });
  }
  return serialized(async () => {
    const project = await loadProject(options);
    return held(project, options.records, name, () => saveChecked(project, { ...options, share, defaultShare }, compiler));
  });
}

/** The change of {@link saveSkill} once its arguments are checked: what it returns, and the skill as saved. */
async function saveChecked(project: Project, options: SaveSkillOptions, compiler: typeof import('@agent-spaces/compiler')): Promise<{ value: SavedSkill; kept: SharedSkill }> {
  const { name, code, description } = options;
  const folder = join(project.rootDir, compiler.SKILLS_DIR);
  const file = `${compiler.SKILLS_DIR}/${name}.ts`;
  const taken = () => new AgentSpacesError('NAME_COLLISION', `the name "${name}" is taken; save yours under another name`, { field: 'name', name });
  const current = await assertMayChange(folder, name, options, taken);
  if (current !== undefined && options.replace !== true) {
    throw new AgentSpacesError('NAME_COLLISION', `skill "${name}" exists (${file}); to overwrite it, ask for a replacement (replace: true; --replace in the CLI)`, { field: 'name', name });
  }
  const shapes = { ...(description !== undefined ? { description } : {}), ...(options.parameters ? { parameters: options.parameters } : {}), ...(options.returns ? { returns: options.returns } : {}) };
  const text = await compiler.shapeSkill(name, code, shapes);
  const declarations = await compiler.skillDeclarations(project.config.outDir, SANDBOX_DECLARATIONS);
  const checked = await compiler.checkSkill(project.rootDir, name, text, declarations, {
    ...(options.owner !== undefined ? { owner: options.owner } : {}),
    budget: project.config.typecheck,
  });
  // Code not in the shape of a skill (a body without `parameters` does not typecheck either): show it in the shape.
  const misshapen = checked.ok ? false : checked.code === 'INVALID_DEFINITION' || (checked.code === 'TYPE_ERROR' && !new RegExp(String.raw`export\s+async\s+function\s+${name}\b`).test(text));
  if (!checked.ok && misshapen) {
    const shaped = await compiler.suggestSkill(name, text, description);
    throw new AgentSpacesError(checked.code, `${checked.problem}. Saved in the accepted shape, it reads:\n${shaped}`, { field: 'code', name });
  }
  if (!checked.ok) throw new AgentSpacesError(checked.code, checked.problem, { field: 'code', name });
  await mkdir(folder, { recursive: true });
  await writeFile(join(project.rootDir, file), text);
  const share = options.owner === undefined ? undefined : recordedShare(options.share ?? (current ? shareOf(current.owner) : (options.defaultShare ?? 'space')));
  await recordOwner(folder, name, text, options.owner, share);
  // An editor opened on the skills checks them as the build does; a tsconfig already there is the project's own.
  await writeFile(join(folder, 'tsconfig.json'), editorTsconfig(folder, project.config.outDir), { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await build(project);
  const kept = { name, owner: options.owner === undefined ? null : clientHash(options.owner), sha256: sha256(text), deleted: false, text, ...(share ? { share } : {}) };
  return { value: { name, file, signature: checked.signature, import: IMPORT_LINE }, kept };
}

/**
 * The skill files of the project that `options.owner` (with its `groups`; absent: the operator, who sees all) may see,
 * each with its signature when the last build built it, whose it is and with whom it is shared.
 */
export async function listSkills(options: SkillProject = {}): Promise<SkillInfo[]> {
  const { SKILLS_ID } = await import('@agent-spaces/compiler');
  const project = await loadProject(options);
  const dir = capabilitiesDir(project.config.outDir);
  const built = existsSync(join(dir, SKILLS_ID)) ? readCatalog(dir, SKILLS_ID) : [];
  const asked = options.owner === undefined ? undefined : clientHash(options.owner);
  return (await projectSkills(project.rootDir, options)).flatMap(({ name, file, owner, visible }) => {
    if (!visible) return [];
    const entry = built.find((e) => e.path === `${SKILLS_ID}.${name}`);
    return [
      {
        name,
        file,
        built: entry !== undefined,
        ...(entry ? { signature: entry.signature, summary: entry.summary } : {}),
        owner: owner.kind,
        shared: shareOf(owner),
        ...(asked === undefined ? {} : { yours: owner.kind === 'client' && owner.id === asked }),
      },
    ];
  });
}

/**
 * The names of the project's skills that `options.owner` (with its `groups`) may not see; none for the operator. Cheap
 * enough for every run: three stats while no skill, owner record or build changed; the config file is not loaded.
 */
export async function hiddenSkills(options: SkillProject = {}): Promise<string[]> {
  if (options.owner === undefined) return [];
  const cwd = resolve(options.rootDir ?? process.cwd());
  const rootDir = options.configFile === undefined ? cwd : dirname(resolve(cwd, options.configFile));
  const skills = await skillOwnersOf(rootDir, options.outDir);
  return skills.filter((skill) => !maySee(skill.owner, options, clientHash)).map((skill) => skill.name);
}

/** The owners of each project's skills as last read, with the stamp they were read at ({@link skillOwnersOf}). */
const ownersRead = new Map<string, { stamp: string; skills: Array<{ name: string; owner: SkillOwner }> }>();

/**
 * The owner of each skill of the project at `rootDir`, read again only when a skill or owner record was added,
 * removed or recorded ({@link recordsStamp}) or a build ended since the last read: runs ask on every start, and reading
 * and hashing every skill file each time would cost the hot path a file per skill.
 */
async function skillOwnersOf(rootDir: string, outDir: string | undefined): Promise<Array<{ name: string; owner: SkillOwner }>> {
  const { SKILLS_DIR } = await import('@agent-spaces/compiler');
  const stamps = [recordsStamp(join(rootDir, SKILLS_DIR)), fileStamp(join(resolveOutDir(rootDir, outDir), OUTPUT_FILES.buildState))];
  const stamp = (await Promise.all(stamps)).join('|');
  const known = ownersRead.get(rootDir);
  if (known?.stamp === stamp) return known.skills;
  const skills = (await projectSkills(rootDir, {})).map(({ name, owner }) => ({ name, owner }));
  ownersRead.set(rootDir, { stamp, skills });
  return skills;
}

/** Every skill file of the project at `rootDir`: its name, file, owner, and whether `viewer` may see it. */
async function projectSkills(rootDir: string, viewer: SkillProject): Promise<Array<{ name: string; file: string; owner: SkillOwner; visible: boolean }>> {
  const { skillFiles, SKILLS_DIR } = await import('@agent-spaces/compiler');
  const files = await skillFiles(rootDir);
  const names = files.map((file) => file.slice(file.lastIndexOf('/') + 1, -'.ts'.length));
  const texts = new Map(await Promise.all(names.map(async (name, i) => [name, await readFile(join(rootDir, files[i]!), 'utf8').catch(() => '')] as const)));
  const owners = await skillOwners(join(rootDir, SKILLS_DIR), texts);
  return names.map((name, i) => {
    const owner = owners.get(name) ?? { kind: 'operator' };
    return { name, file: files[i]!, owner, visible: maySee(owner, viewer, clientHash) };
  });
}

/**
 * Deletes `skills/<name>.ts` and rebuilds. Throws `INVALID_ARGUMENTS` for a bad name or one no skill has,
 * `SKILL_NOT_OWNED` for another owner's skill.
 */
export async function deleteSkill(options: SkillProject & { name: string }): Promise<{ name: string; file: string }> {
  const compiler = await import('@agent-spaces/compiler');
  checkName(options.name, compiler.skillNameProblem);
  return serialized(async () => {
    const project = await loadProject(options);
    return held(project, options.records, options.name, async () => {
      const folder = join(project.rootDir, compiler.SKILLS_DIR);
      const file = `${compiler.SKILLS_DIR}/${options.name}.ts`;
      const skills = await projectSkills(project.rootDir, options);
      const notFound = () => {
        const names = skills.filter((skill) => skill.visible).map((skill) => skill.name);
        return new AgentSpacesError('INVALID_ARGUMENTS', `name: no skill "${options.name}" (skills: ${names.join(', ') || 'none'})`, { field: 'name' });
      };
      const current = await assertMayChange(folder, options.name, options, notFound);
      if (current === undefined) throw notFound();
      const { text } = current;
      await rm(join(project.rootDir, file));
      await recordOwner(folder, options.name, undefined, undefined);
      await build(project);
      return { value: { name: options.name, file }, kept: { name: options.name, owner: null, sha256: sha256(text), deleted: true } };
    });
  });
}

/**
 * The text and owner of skill `name` in `folder` (undefined: there is none); throws `hidden()` when there is one
 * `viewer` may not see, and `SKILL_NOT_OWNED` when it may but `viewer.owner` (a client; undefined: the operator, who
 * may change any) is not the client it belongs to.
 */
async function assertMayChange(folder: string, name: string, viewer: SkillProject, hidden: () => AgentSpacesError): Promise<{ text: string; owner: SkillOwner } | undefined> {
  const text = await readSkill(folder, name);
  if (text === undefined) return undefined;
  const current = (await skillOwners(folder, new Map([[name, text]]))).get(name) ?? { kind: 'operator' };
  if (viewer.owner === undefined) return { text, owner: current };
  if (!maySee(current, viewer, clientHash)) throw hidden();
  if (current.kind === 'client' && current.id === clientHash(viewer.owner)) return { text, owner: current };
  const whose = current?.kind === 'client' ? 'another client' : 'the operator';
  throw new AgentSpacesError('SKILL_NOT_OWNED', `skill "${name}" belongs to ${whose}: only its owner may replace or delete it; save yours under another name`, { field: 'name', name });
}

/**
 * Makes the project's `skills/` folder hold what `records` say (the files, and their owner records): a skill whose file
 * differs is written with its text from `texts` (asked once, for those only), a deleted one is removed when its file
 * is the text deleted. Skills the records do not name are left alone, and so are names that are no skill names. Does
 * not rebuild ({@link rebuildSkills}); waits for the saves and deletes in progress. Returns the names whose file changed.
 */
export async function mirrorSkills(options: SkillProject, records: readonly SkillRecord[], texts: (names: string[]) => Promise<ReadonlyMap<string, string>>): Promise<string[]> {
  return serialized(async () => mirror(await loadProject(options), records, texts));
}

/** Builds the project as `capabilities build` does, after the saves and deletes in progress. */
export async function rebuildSkills(options: SkillProject = {}): Promise<void> {
  await serialized(async () => build(await loadProject(options)));
}

async function mirror(project: Project, records: readonly SkillRecord[], texts: (names: string[]) => Promise<ReadonlyMap<string, string>>): Promise<string[]> {
  const { SKILLS_DIR, skillNameProblem } = await import('@agent-spaces/compiler');
  const folder = join(project.rootDir, SKILLS_DIR);
  const valid = records.filter((record) => skillNameProblem(record.name) === undefined);
  const local = new Map(await Promise.all(valid.map(async ({ name }) => [name, await readSkill(folder, name)] as const)));
  const differs = (record: SkillRecord) => !record.deleted && !hashes(local.get(record.name), record.sha256);
  const stale = valid.filter(differs).map((record) => record.name);
  const fetched = stale.length > 0 ? await texts(stale) : new Map<string, string>();
  const owners = new Map<string, OwnerRecord | undefined>();
  const changed: string[] = [];
  for (const record of valid) {
    const file = join(folder, `${record.name}.ts`);
    if (record.deleted) {
      if (!hashes(local.get(record.name), record.sha256)) continue;
      await rm(file, { force: true });
      owners.set(record.name, undefined);
      changed.push(record.name);
      continue;
    }
    const text = fetched.get(record.name) ?? local.get(record.name);
    // A text that is not the record's (changed again meanwhile) waits for the next time.
    if (!hashes(text, record.sha256)) continue;
    if (text !== local.get(record.name)) {
      await mkdir(folder, { recursive: true });
      await writeFile(file, text!);
      changed.push(record.name);
    }
    owners.set(record.name, record.owner === null ? undefined : { client: record.owner, sha256: record.sha256, ...(record.share ? { share: record.share } : {}) });
  }
  await updateOwners(folder, owners);
  return changed;
}

const hashes = (text: string | undefined, hash: string) => text !== undefined && sha256(text) === hash;

/** The text of `skills/<name>.ts` in `folder`; undefined when there is none. */
async function readSkill(folder: string, name: string): Promise<string | undefined> {
  return readFile(join(folder, `${name}.ts`), 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return undefined;
    throw error;
  });
}

/**
 * Runs `change` of skill `name` through `records` when the project shares its skills (its local copy first made to
 * match what they hold; rebuilt when that changed a file and the change then failed), else as it is.
 */
async function held<T>(project: Project, records: SkillRecords | undefined, name: string, change: () => Promise<{ value: T; kept: SharedSkill }>): Promise<T> {
  if (!records) return (await change()).value;
  return records.change(name, async (current) => {
    const text = current?.text;
    const changed = current ? await mirror(project, [current], async () => new Map(text === undefined ? [] : [[name, text]])) : [];
    try {
      return await change();
    } catch (error) {
      if (changed.length > 0) await build(project);
      throw error;
    }
  });
}

function checkName(name: unknown, problem: (name: unknown) => string | undefined): asserts name is string {
  const why = problem(name);
  if (why !== undefined) throw new AgentSpacesError('INVALID_ARGUMENTS', `name: ${JSON.stringify(name)} is not a skill name: ${why}`, { field: 'name' });
}

/** A project as loaded from its config file. */
type Project = Awaited<ReturnType<typeof import('@agent-spaces/compiler').loadConfig>>;

async function loadProject(options: SkillProject): Promise<Project> {
  const { loadConfig } = await import('@agent-spaces/compiler');
  const project = await loadConfig({ cwd: options.rootDir ?? process.cwd(), ...(options.configFile ? { configFile: options.configFile } : {}) });
  return options.outDir === undefined ? project : { ...project, config: { ...project.config, outDir: resolve(project.rootDir, options.outDir) } };
}

/** Builds the project as `capabilities build` does. */
async function build(project: Project): Promise<BuildReport> {
  const { buildCapabilities, configSources } = await import('@agent-spaces/compiler');
  const { rootDir, config } = project;
  return buildCapabilities({ rootDir, sandboxDeclarations: SANDBOX_DECLARATIONS, sources: config.capabilities, configSources: configSources(config), outDir: config.outDir, typecheckBudget: config.typecheck });
}

/** Saves and deletes in this process, one at a time, so that their builds never overlap. */
let queue: Promise<unknown> = Promise.resolve();
function serialized<T>(task: () => Promise<T>): Promise<T> {
  const next = queue.then(task, task);
  queue = next.catch(() => undefined);
  return next;
}
