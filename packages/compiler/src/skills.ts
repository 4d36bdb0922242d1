/**
 * Skills: the project's `skills/<name>.ts` files, each exporting one async function, built into the module
 * `@capabilities/skills` (`skills.<name>(params)`). A skill is typechecked against the capabilities just built, then
 * bundled into the isolate with the npm sandbox bundler (its own code never crosses to the host; its capability calls
 * do, as any agent code's). A skill that does not typecheck is left out with a diagnostic naming it; the others build.
 */
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { CAPABILITY_PREFIX, isAgentSpacesError, type CapabilityIR, type Diagnostic, type TypecheckBudget } from '@agent-spaces/capabilities';
import type { Plugin } from 'esbuild';
import type ts from 'typescript';
import { type BuiltRecord, readBuiltRecords, sameInputs } from './build-state.js';
import { readDeclarations } from './catalog.js';
import { createBoundedTypechecker, type BoundedTypechecker } from './check/index.js';
import { indentBlock, type DeclarationsResult } from './emit/declarations.js';
import { jsDoc, stringLiteral } from './emit/escape.js';
import { identifier } from './ir/names.js';
import type { Bundle } from './sources/npm/bundle-text.js';
import type { ReadScope } from './sources/npm/confine.js';
import { bundleForIsolate } from './sources/npm/sandbox.js';

/** The module id of the skills, and the name of the object it exports. */
export const SKILLS_ID = 'skills';
/** The folder of a project's skills, relative to its config folder. */
export const SKILLS_DIR = 'skills';
/** A skill's name: its file's name, and its function's. */
const SKILL_NAME = /^[a-z][A-Za-z0-9]{0,63}$/;

/** One skill that typechecked, as the module declares it. */
interface CheckedSkill {
  name: string;
  file: string;
  /** The declarations of its file (`transpileDeclaration`), for its sub-module. */
  declarations: string;
  types: DeclarationsResult['functions'][number];
  /** Named types its file declares, by name (for the catalog's related types). */
  named: Map<string, string>;
}

/** One skill that typechecked and bundled alone: `code` is its bundle. */
interface Skill extends CheckedSkill {
  code: string;
}

/** What {@link readSkills} produced: the skills capability (absent when no skill built) and per-skill problems. */
export interface SkillsResult {
  /** The skills and what they were checked against are those of the last build: nothing was checked. */
  unchanged?: boolean;
  capability?: CapabilityIR;
  declarations?: DeclarationsResult;
  /** Problems by skill file (relative, `skills/<name>.ts`). */
  failures: Map<string, Diagnostic[]>;
  /** sha256 of every skill file that built, by relative path, and of the declarations they were checked against. */
  inputs: Record<string, string>;
}

/** The skill files (`skills/*.ts`) of the project at `rootDir`, sorted; none when there is no such folder. */
export async function skillFiles(rootDir: string): Promise<string[]> {
  const entries = await readdir(join(rootDir, SKILLS_DIR), { withFileTypes: true }).catch(() => []);
  const names = entries.filter((e) => e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')).map((e) => e.name);
  return names.sort().map((name) => `${SKILLS_DIR}/${name}`);
}

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

/** The skill files read: their code, the problems of those that could not be read, and the inputs record of a build. */
interface ReadFiles {
  codes: Map<string, string>;
  failures: Map<string, Diagnostic[]>;
  /** `key` (what they are checked against) and the sha256 of each file read. */
  inputs: Record<string, string>;
}

async function readSkillFiles(rootDir: string, files: readonly string[], key: string): Promise<ReadFiles> {
  const codes = new Map<string, string>();
  const failures = new Map<string, Diagnostic[]>();
  const inputs: Record<string, string> = { [SKILLS_DIR]: key };
  for (const file of files) {
    try {
      const code = await readFile(join(rootDir, file), 'utf8');
      codes.set(file, code);
      inputs[file] = sha256(code);
    } catch (error) {
      failures.set(file, [{ code: 'SOURCE_UNREADABLE', severity: 'error', file, message: `cannot read ${file}: ${(error as Error).message}` }]);
    }
  }
  return { codes, failures, inputs };
}

/** True when the skill files read are those `last` (the inputs of the last build) was built from, none unreadable. */
const unchangedSince = (read: ReadFiles, last: Record<string, string> | undefined) => read.failures.size === 0 && sameInputs(last, read.inputs);

/**
 * True when the skill `files` (relative to `rootDir`) are those the skills record `last` was built from by compiler
 * `version`, all of them built. A build then keeps the skills as built unless what they are checked against changed.
 */
export async function skillsUnchanged(rootDir: string, files: readonly string[], version: string, last: BuiltRecord | undefined): Promise<boolean> {
  const key = last?.inputs?.[SKILLS_DIR];
  if (last?.compilerVersion !== version || key === undefined) return false;
  return unchangedSince(await readSkillFiles(rootDir, files, key), last.inputs);
}

/**
 * Checks and bundles the skill `files` (relative to `rootDir`) against `declarations` (file name → text: the built
 * capabilities and the sandbox's own, read only when needed) under the typecheck `budget`; never throws for a bad
 * skill, which fails alone: the module is built from the others. `key` names what they are checked against
 * ({@link skillsKey}). Nothing is read or checked when the files and key are those of `last` (the inputs of the last
 * build), which then is `unchanged`.
 */
export async function readSkills(
  rootDir: string,
  files: readonly string[],
  key: string,
  declarations: () => Promise<ReadonlyMap<string, string>>,
  { budget, last }: { budget?: Partial<TypecheckBudget> | undefined; last?: Record<string, string> | undefined } = {},
): Promise<SkillsResult> {
  const read = await readSkillFiles(rootDir, files, key);
  const { codes, failures, inputs } = read;
  if (unchangedSince(read, last)) return { unchanged: true, failures, inputs };
  const skills: Skill[] = [];
  const { default: typescript } = await import('typescript');
  const checker = createBoundedTypechecker({ declarations: await declarations(), ...(budget ? { budget } : {}) });
  try {
    for (const [file, code] of codes) {
      const checked = await checkOne(typescript, checker, file, code);
      if ('problem' in checked) {
        failures.set(file, [{ code: checked.code === 'TYPECHECK_LIMIT' ? checked.code : 'INVALID_DEFINITION', severity: 'error', file, message: checked.problem }]);
        continue;
      }
      const bundle = await bundleSkill(rootDir, checked.name, code);
      if (bundle.ok) skills.push({ ...checked, code: bundle.code });
      else failures.set(file, bundle.diagnostics);
    }
  } finally {
    checker.dispose();
  }
  const bundle = skills.length > 0 ? await combineSkills(rootDir, skills) : undefined;
  if (bundle?.ok === false) for (const skill of skills) failures.set(skill.file, bundle.diagnostics);
  // A failed skill is left out of the inputs, so the next build checks it again (and reports it again).
  for (const file of failures.keys()) delete inputs[file];
  if (!bundle?.ok) return { failures, inputs };
  const capability: CapabilityIR = {
    id: SKILLS_ID,
    exportName: SKILLS_ID,
    sourceName: SKILLS_DIR,
    description: `The project's skills: functions saved as ${SKILLS_DIR}/<name>.ts, run in the sandbox.`,
    version: '0.0.0',
    source: { kind: 'skill', file: SKILLS_DIR },
    // Listed so that a space offers them (search, `hideFunctions`); their calls never reach the bridge.
    functions: skills.map((s) => s.types.fn),
    config: {},
    executor: { kind: 'runtime' },
    module: { code: bundle.code, declarations: moduleDeclarations(skills) },
  };
  const types = new Map(skills.flatMap((s) => [...s.named]));
  return { capability, declarations: { text: capability.module!.declarations, diagnostics: [], functions: skills.map((s) => s.types), types }, failures, inputs };
}

/**
 * Why a skill cannot build: `TYPE_ERROR` when its code does not typecheck, `TYPECHECK_LIMIT` when its check went over
 * the budget, `IMPORT_REFUSED` when it imports what it may not read, else `INVALID_DEFINITION`.
 */
interface SkillProblem {
  code: 'TYPE_ERROR' | 'TYPECHECK_LIMIT' | 'INVALID_DEFINITION' | 'IMPORT_REFUSED';
  problem: string;
}

/** Imports a skill leaves for the isolate to resolve: the modules the space provides. */
const EXTERNAL = [`${CAPABILITY_PREFIX}*`, '@agent-spaces/std'];

/** What a skill may read: nothing but its own code (the skills folder holds skills of other owners). */
const SKILL_SCOPE: ReadScope = {
  roots: [],
  packages: false,
  rule: `a skill imports only the modules the space provides (${CAPABILITY_PREFIX}*, @agent-spaces/std), never a file or a package`,
};

/**
 * Skill `name` holding `code`, bundled alone for the isolate as it is saved (`skills/<name>.ts` under `rootDir`,
 * its imports resolved from the skills folder): the one bundling of a skill, at save and at build.
 */
function bundleSkill(rootDir: string, name: string, code: string): Promise<Bundle> {
  const label = `${SKILLS_DIR}/${name}.ts`;
  const resolveDir = join(rootDir, SKILLS_DIR);
  return bundleForIsolate({ contents: code, rootDir, resolveDir, label, owner: `skill "${name}"`, loader: 'ts', external: EXTERNAL, scope: SKILL_SCOPE });
}

/** The module of `skills` from their bundles (given as text, no file read): `export const skills = { … }`. */
function combineSkills(rootDir: string, skills: ReadonlyArray<Pick<Skill, 'name' | 'code'>>): Promise<Bundle> {
  const bundles = new Map(skills.map((s) => [s.name, s.code]));
  const bundled: Plugin = {
    name: 'bundled-skills',
    setup(build) {
      build.onResolve({ filter: /^skill:/ }, ({ path }) => ({ path: path.slice('skill:'.length), namespace: 'skill' }));
      build.onLoad({ filter: /.*/, namespace: 'skill' }, ({ path }) => ({ contents: bundles.get(path) ?? '', loader: 'js' }));
    },
  };
  const entry = skills.map((s, i) => `import { ${s.name} as s${i} } from ${stringLiteral(`skill:${s.name}`)};\n`).join('');
  return bundleForIsolate({
    contents: `${entry}export const ${SKILLS_ID} = { ${skills.map((s, i) => `${s.name}: s${i}`).join(', ')} };\n`,
    rootDir,
    label: SKILLS_DIR,
    owner: 'the skills',
    external: EXTERNAL,
    scope: SKILL_SCOPE,
    plugins: [bundled],
  });
}

/**
 * The module `@capabilities/skills` holding only the skills `names` of the project at `rootDir` (a space that may not
 * offer the others: their code must not reach its isolate), bundled from their files as a build bundles them. A skill
 * whose file is gone or no longer bundles is left out.
 */
export async function skillsModule(rootDir: string, names: readonly string[]): Promise<string> {
  const skills: Array<Pick<Skill, 'name' | 'code'>> = [];
  for (const name of names) {
    const code = await readFile(join(rootDir, SKILLS_DIR, `${name}.ts`), 'utf8').catch(() => undefined);
    const bundle = code === undefined ? undefined : await bundleSkill(rootDir, name, code);
    if (bundle?.ok) skills.push({ name, code: bundle.code });
  }
  const bundle = skills.length > 0 ? await combineSkills(rootDir, skills) : undefined;
  return bundle?.ok ? bundle.code : `export const ${SKILLS_ID} = {};\n`;
}

const skillName = (file: string) => file.slice(SKILLS_DIR.length + 1, -'.ts'.length);

/** Members of every object (`constructor`, `toString`, `__proto__`, …): a skill of such a name would shadow one. */
const OBJECT_MEMBERS = new Set(Object.getOwnPropertyNames(Object.prototype));

/**
 * Why `name` cannot name a skill, or undefined when it can: a skill's name is its file's and its function's, and a
 * member of `skills`, so it must be a camelCase identifier of at most 64 characters, not a reserved word or a name the
 * module keeps (`then`), and no member of every object.
 */
export function skillNameProblem(name: unknown): string | undefined {
  if (typeof name !== 'string' || !SKILL_NAME.test(name)) return 'the name must be a camelCase identifier (letters and digits, starting with a lower-case letter, at most 64)';
  if (identifier(name) !== name) return `the name must be a plain identifier, and ${name} is a reserved word or a name the module keeps`;
  if (OBJECT_MEMBERS.has(name)) return `the name must not be a member of every object (Object.prototype.${name})`;
  return undefined;
}

/** Checks skill `file` holding `code` (for `owner`, served fairly beside others): its name, its types, its shape. */
async function checkOne(typescript: typeof ts, checker: BoundedTypechecker, file: string, code: string, owner?: string): Promise<CheckedSkill | SkillProblem> {
  const name = skillName(file);
  const badName = skillNameProblem(name);
  if (badName) return { code: 'INVALID_DEFINITION', problem: `skill "${name}": ${badName}` };
  let diagnostics;
  try {
    diagnostics = await checker.check(code, owner);
  } catch (error) {
    if (!isAgentSpacesError(error) || error.code !== 'TYPECHECK_LIMIT') throw error;
    return { code: 'TYPECHECK_LIMIT', problem: `skill "${name}": ${error.message}` };
  }
  const errors = diagnostics.filter((d) => d.category === 'error');
  if (errors.length > 0) {
    const first = errors[0]!;
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
    const problem = `skill "${name}" does not typecheck against the current capabilities: ${file}:${first.line}:${first.column} TS${first.code}: ${first.message}${more}`;
    return { code: 'TYPE_ERROR', problem };
  }
  const skill = readSkill(typescript, name, file, code);
  return typeof skill === 'string' ? { code: 'INVALID_DEFINITION', problem: skill } : skill;
}

/** Whom a skill is checked for and what its check may cost ({@link checkSkill}). */
export interface CheckSkillOptions {
  /** The client saving it: its checks are served fairly beside other clients'. */
  owner?: string;
  /** Default `DEFAULT_TYPECHECK_BUDGET`; past it the skill is refused with `TYPECHECK_LIMIT`. */
  budget?: Partial<TypecheckBudget>;
}

/**
 * Checks the code of skill `name` exactly as a build would, before it is saved: against `declarations` (file name →
 * text: the built capabilities and the sandbox's own) in a typecheck worker under the budget, bundled as it will be.
 * Answers its signature in `@capabilities/skills`, or why it cannot build.
 */
export async function checkSkill(
  rootDir: string,
  name: string,
  code: string,
  declarations: ReadonlyMap<string, string>,
  options: CheckSkillOptions = {},
): Promise<{ ok: true; signature: string } | ({ ok: false } & SkillProblem)> {
  const { default: typescript } = await import('typescript');
  const checker = createBoundedTypechecker({ declarations, ...(options.budget ? { budget: options.budget } : {}) });
  try {
    const skill = await checkOne(typescript, checker, `${SKILLS_DIR}/${name}.ts`, code, options.owner);
    if ('problem' in skill) return { ok: false, ...skill };
    const bundle = await bundleSkill(rootDir, name, code);
    if (!bundle.ok) {
      const code = bundle.diagnostics.some((d) => d.code === 'IMPORT_REFUSED') ? 'IMPORT_REFUSED' : 'INVALID_DEFINITION';
      return { ok: false, code, problem: bundle.diagnostics.map((d) => d.message).join('; ') };
    }
    const { params, result } = skill.types;
    return { ok: true, signature: `${SKILLS_ID}.${name}(${params ? `params${params.optional ? '?' : ''}: ${params.type}` : ''}): Promise<${result}>` };
  } finally {
    checker.dispose();
  }
}

/**
 * What the skills are checked against, as one sha256: the compiler version, the sandbox's declarations and the other
 * built capabilities' `records`. A record's inputs vouch for its `index.d.ts` (it is rebuilt when they change), so
 * that file is read (from `outDir`) only for a record without inputs.
 */
export async function skillsKey(outDir: string, compiler: string, records: readonly BuiltRecord[], sandbox: ReadonlyMap<string, string> = new Map()): Promise<string> {
  const hash = createHash('sha256').update(compiler);
  for (const [name, text] of [...sandbox].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`\0${name}\0${text}`);
  for (const { id, compilerVersion, inputs } of [...records].sort((a, b) => (a.id < b.id ? -1 : 1))) {
    if (id === SKILLS_ID) continue;
    const vouched = inputs !== undefined && Object.keys(inputs).length > 0;
    hash.update(`\0${id}\0${compilerVersion ?? ''}\0${vouched ? JSON.stringify(inputs) : await readDeclarations(outDir, id)}`);
  }
  return hash.digest('hex');
}

/**
 * The declarations skills are checked against: `sandbox` and the `index.d.ts` of the capabilities `ids` built in
 * `outDir` (default: all of the last build) but the skills.
 */
export async function skillDeclarations(outDir: string, sandbox: ReadonlyMap<string, string> = new Map(), ids?: readonly string[]): Promise<Map<string, string>> {
  const declarations = new Map(sandbox);
  for (const id of ids ?? (await readBuiltRecords(outDir)).map((r) => r.id)) if (id !== SKILLS_ID) declarations.set(`${id}.d.ts`, await readDeclarations(outDir, id));
  return declarations;
}

/** The `index.d.ts` of `@capabilities/skills`: one sub-module per skill file, and the `skills` object. */
function moduleDeclarations(skills: readonly CheckedSkill[]): string {
  const modules = skills.map((s) => `declare module ${stringLiteral(`${CAPABILITY_PREFIX}${SKILLS_ID}/${s.name}`)} {\n${indentBlock(s.declarations, '  ')}\n}\n`);
  const imports = skills.map((s, i) => `  import { ${s.name} as s${i} } from ${stringLiteral(`${CAPABILITY_PREFIX}${SKILLS_ID}/${s.name}`)};\n`);
  const members = skills.map((s, i) => `${jsDoc(s.types.doc, '    ')}    ${s.name}: typeof s${i};\n`);
  const object = `  /** The project's skills (${SKILLS_DIR}/<name>.ts). */\n  export const ${SKILLS_ID}: {\n${members.join('')}  };\n`;
  return `// Generated by @agent-spaces/compiler from the project's skills. Do not edit.\n${modules.join('')}declare module ${stringLiteral(CAPABILITY_PREFIX + SKILLS_ID)} {\n${imports.join('')}${object}}\n`;
}

/**
 * The declared shape of skill `name` from its typechecked `code`, or why it is not a skill: the file must export one
 * async function of the skill's name, with a doc comment and declared parameter and result types.
 */
function readSkill(typescript: typeof ts, name: string, file: string, code: string): CheckedSkill | string {
  const shape = `${file} must export one async function ${name}(params: Params): Promise<Result> with a doc comment and declared parameter and result types`;
  const source = typescript.createSourceFile(file, code, typescript.ScriptTarget.ES2022, true, typescript.ScriptKind.TS);
  const fn = source.statements.find(
    (s): s is ts.FunctionDeclaration =>
      typescript.isFunctionDeclaration(s) && s.name?.text === name && (s.modifiers?.some((m) => m.kind === typescript.SyntaxKind.ExportKeyword) ?? false),
  );
  const isAsync = fn?.modifiers?.some((m) => m.kind === typescript.SyntaxKind.AsyncKeyword) ?? false;
  const param = fn?.parameters[0];
  const result = fn?.type;
  if (!fn || !isAsync || fn.parameters.length > 1 || (param && !param.type) || !result) return `skill "${name}": ${shape}`;
  if (!typescript.isTypeReferenceNode(result) || result.typeName.getText(source) !== 'Promise' || result.typeArguments?.length !== 1) {
    return `skill "${name}": its result type must be written as Promise<Result>; ${shape}`;
  }
  const comment = typescript
    .getLeadingCommentRanges(code, fn.getFullStart())
    ?.filter((range) => code.startsWith('/**', range.pos))
    .at(-1);
  if (!comment) return `skill "${name}": the function has no doc comment (/** ... */ saying what it does); ${shape}`;
  const emitted = typescript.transpileDeclaration(code, { fileName: file, compilerOptions: { strict: true } });
  if (emitted.diagnostics?.length) {
    const message = typescript.flattenDiagnosticMessageText(emitted.diagnostics[0]!.messageText, ' ');
    return `skill "${name}": its declarations cannot be written: ${message}`;
  }
  const named = new Map<string, string>();
  for (const statement of source.statements) {
    if (typescript.isInterfaceDeclaration(statement) || typescript.isTypeAliasDeclaration(statement)) named.set(statement.name.text, statement.getText(source));
  }
  const paramType = param?.type?.getText(source);
  const declared = paramType !== undefined ? source.statements.find((s) => typescript.isInterfaceDeclaration(s) && s.name.text === paramType) : undefined;
  const doc = commentLines(code.slice(comment.pos, comment.end));
  return {
    name,
    file,
    declarations: emitted.outputText.replace(/^(export )?declare /gm, '$1').replace(/^export \{\};\n?/gm, '').trim(),
    named,
    types: {
      fn: { name, sourceName: name, parameters: { type: 'object' } },
      ...(param && paramType !== undefined
        ? {
            params: {
              optional: param.questionToken !== undefined || param.initializer !== undefined,
              type: paramType,
              ...(declared && typescript.isInterfaceDeclaration(declared) ? { body: `{ ${declared.members.map((m) => m.getText(source)).join(' ')} }` } : {}),
            },
          }
        : {}),
      result: result.typeArguments[0]!.getText(source),
      doc,
    },
  };
}

/** The text lines of a `/** ... *\/` comment, without its delimiters and leading `*`s. */
function commentLines(comment: string): string[] {
  const lines = comment
    .replace(/^\/\*\*\s*/, '')
    .replace(/\s*\*\/$/, '')
    .split('\n')
    .map((line) => line.replace(/^\s*\* ?/, '').trimEnd());
  while (lines[0] === '') lines.shift();
  while (lines.at(-1) === '') lines.pop();
  return lines;
}
