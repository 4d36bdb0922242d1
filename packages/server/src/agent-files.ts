import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, extname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { AgentSpacesError, isAgentSpacesError } from '@agent-spaces/capabilities';
import { findSchemaProblems } from '@agent-spaces/compiler/file-schemas';
import { parseServerConfig, type SpaceDefinition } from './config.js';

/** Folder of agent files, relative to the project, when the config's `server.agentsDir` names none. */
export const DEFAULT_AGENTS_DIR = 'agent-files';
/** Largest agent file (and inline `invoke_with_config` definition) read, in bytes. */
export const MAX_AGENT_FILE_BYTES = 64 * 1024;
/** Most agent files read from one folder (in name order); the rest are reported and ignored. */
const MAX_AGENT_FILES = 256;
/** Longest `agent_file` / `directory` argument, in characters. */
const MAX_PATH_CHARS = 1024;
const EXTENSIONS = ['.json', '.yaml', '.yml'];

/** One agent file: a space defined in its own file (docs/agents.md, "Agent files"). */
export interface AgentFile {
  /** Its path relative to the project, with `/`. */
  readonly file: string;
  /** Its absolute path. */
  readonly path: string;
  readonly definition: SpaceDefinition;
}

/** An agent file that is not served, and why (`CONFIG_INVALID` naming the file and the field, mostly). */
export interface AgentFileProblem {
  readonly file: string;
  readonly error: AgentSpacesError;
}

/** The agent files of a folder: those that parsed, and those that did not. */
export interface AgentFileScan {
  agents: AgentFile[];
  problems: AgentFileProblem[];
}

/** The agent files of a host: its folder (absolute), the files it serves, and those it does not (re-read on reload). */
export interface AgentFileState {
  readonly dir: string;
  served: AgentFile[];
  problems: AgentFileProblem[];
}

/**
 * The absolute path of `value`, a path relative to `projectDir` given as the argument `field`; throws
 * `INVALID_ARGUMENTS` naming `field` for a path that is absolute, starts with `~`, leaves the project (`..`, or a
 * symbolic link that leads out of it), is empty, too long or holds a NUL.
 */
export function confinedPath(projectDir: string, value: unknown, field: string): string {
  const refuse = (problem: string): never => {
    throw new AgentSpacesError('INVALID_ARGUMENTS', `${field}: ${problem}`, { errors: [{ field, problem }] });
  };
  if (typeof value !== 'string' || value.length === 0) return refuse('must be a non-empty path relative to the project');
  if (value.length > MAX_PATH_CHARS) return refuse(`is longer than ${MAX_PATH_CHARS} characters`);
  if (value.includes('\0')) return refuse('may not hold a NUL character');
  if (value.startsWith('~')) return refuse(`paths are relative to the project (${projectDir}), not to a home folder: drop the "~/…" prefix`);
  if (isAbsolute(value) || /^[A-Za-z]:[\\/]/.test(value)) return refuse(`must be relative to the project (${projectDir}), not absolute`);
  const root = realOrSelf(projectDir);
  const path = resolve(root, value);
  if (!inside(root, path)) return refuse('leads outside the project');
  if (!inside(root, realOrSelf(path))) return refuse('leads outside the project (through a symbolic link)');
  return path;
}

/**
 * Reads the agent file at `path` (shown as `file`): JSON or YAML holding one `spaces[]` entry of the config, checked
 * by the config's own parser. `id` defaults to the file's name without extension, `name` to the id. Throws
 * `AGENT_NOT_FOUND` when there is no such file, and `CONFIG_INVALID` naming the file and the field otherwise.
 */
export function readAgentFile(path: string, file: string): SpaceDefinition {
  const stats = statOrUndefined(path);
  if (!stats?.isFile()) throw new AgentSpacesError('AGENT_NOT_FOUND', `No agent file ${file}`, { agentFile: file });
  const invalid = (key: string, problem: string): never => {
    throw new AgentSpacesError('CONFIG_INVALID', `${file}: ${key} ${problem}`, { file, key });
  };
  const extension = extname(path).toLowerCase();
  if (!EXTENSIONS.includes(extension)) invalid('default', `is not an agent file (${EXTENSIONS.join(', ')})`);
  if (stats.size > MAX_AGENT_FILE_BYTES) invalid('default', `is ${stats.size} bytes, more than ${MAX_AGENT_FILE_BYTES}`);
  const text = readFileSync(path, 'utf8');
  let value: unknown;
  try {
    value = extension === '.json' ? JSON.parse(text) : loadYaml().parse(text, { maxAliasCount: 100 });
  } catch (error) {
    // Never the parser's message: it quotes the text, and any JSON or YAML file of the project may be named.
    invalid('default', `is not valid ${extension === '.json' ? 'JSON' : `YAML${yamlWhere(error)}`}`);
  }
  return parseAgentDefinition(value, file, basename(path, extname(path)));
}

/**
 * `value` (one `spaces[]` entry) checked against `agent-file.schema.json`, then by the config's parser, as in
 * {@link readAgentFile}: `id` defaults to `defaultId`, `name` to the id; errors name `where` and the field without the
 * `spaces[0].` of the config.
 */
export function parseAgentDefinition(value: unknown, where: string, defaultId: string): SpaceDefinition {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new AgentSpacesError('CONFIG_INVALID', `${where}: default must be an object (one space: id, name, systemPrompt, …)`, { file: where, key: 'default' });
  }
  const entry = value as Record<string, unknown>;
  const [problem] = findSchemaProblems('agent', entry);
  if (problem) throw new AgentSpacesError('CONFIG_INVALID', `${where}: ${problem.message}`, { file: where, key: problem.path || 'default' });
  const id = entry.id ?? defaultId;
  const withDefaults = { ...entry, id, name: entry.name ?? id };
  try {
    return parseServerConfig({ spaces: [withDefaults] }, where).spaces[0]!;
  } catch (error) {
    if (!isAgentSpacesError(error) || error.code !== 'CONFIG_INVALID') throw error;
    const key = String((error.data as { key?: unknown } | undefined)?.key ?? 'default').replace(/^spaces\[0\]\.?/, '') || 'default';
    throw new AgentSpacesError('CONFIG_INVALID', error.message.replace(': spaces[0].', ': '), { file: where, key });
  }
}

/**
 * The agent files directly in `dir` (absolute, inside `projectDir`), in name order: at most {@link MAX_AGENT_FILES};
 * a file that does not parse, or a symbolic link out of the project, is a problem and the others are still read.
 * A folder that does not exist holds none.
 */
export function scanAgentFiles(projectDir: string, dir: string): AgentFileScan {
  const scan: AgentFileScan = { agents: [], problems: [] };
  const root = realOrSelf(projectDir);
  const realDir = realOrSelf(dir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => EXTENSIONS.includes(extname(n).toLowerCase())).sort();
  } catch {
    return scan;
  }
  for (const [i, name] of names.entries()) {
    const path = join(realDir, name);
    const file = projectRelative(projectDir, path);
    if (i >= MAX_AGENT_FILES) {
      scan.problems.push({ file, error: new AgentSpacesError('CONFIG_INVALID', `${file}: ignored, past ${MAX_AGENT_FILES} agent files in one folder`, { file, key: 'default' }) });
      continue;
    }
    try {
      if (lstatSync(path).isSymbolicLink() && !inside(root, realOrSelf(path))) {
        throw new AgentSpacesError('CONFIG_INVALID', `${file}: default is a symbolic link that leads outside the project`, { file, key: 'default' });
      }
      scan.agents.push({ file, path, definition: readAgentFile(path, file) });
    } catch (error) {
      if (!isAgentSpacesError(error)) throw error;
      scan.problems.push({ file, error });
    }
  }
  return scan;
}

/**
 * The spaces served: `configSpaces`, then each agent file's space that fits beside them (a file whose id, tool names or
 * prompt names another space already has is a problem, and is not served).
 */
export function mergeAgentSpaces(configSpaces: readonly SpaceDefinition[], scan: AgentFileScan): { spaces: SpaceDefinition[]; served: AgentFile[]; problems: AgentFileProblem[] } {
  const spaces = [...configSpaces];
  const served: AgentFile[] = [];
  const problems = [...scan.problems];
  for (const agent of scan.agents) {
    try {
      parseServerConfig({ spaces: [...spaces, agent.definition] }, agent.file);
      spaces.push(agent.definition);
      served.push(agent);
    } catch (error) {
      if (!isAgentSpacesError(error)) throw error;
      const reason = error.message.replace(/^[^:]*: spaces\[\d+\]\./, '');
      problems.push({ file: agent.file, error: new AgentSpacesError('CONFIG_INVALID', `${agent.file}: ${reason}`, { file: agent.file, key: 'id' }) });
    }
  }
  return { spaces, served, problems };
}

/**
 * A definition that is not one of the served spaces (an inline `invoke_with_config` definition, an agent file outside
 * the agents folder) under an id of its own: `<id>-<hash of the definition>`, so that two different definitions never
 * share a space (spaces are kept by id).
 */
export function adHocDefinition(definition: SpaceDefinition): SpaceDefinition {
  const hash = createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 12);
  return { ...definition, id: `${definition.id.slice(0, 48)}-${hash}` };
}

/** How often the agents folder is looked at for added, changed or removed files. */
const AGENTS_POLL_MS = 500;

/** Calls `onChange` whenever the agent files of `dir` change (polled); returns the function that stops watching. */
export function watchAgentFiles(dir: string, onChange: () => void): () => void {
  let signature = agentFilesSignature(dir);
  const timer = setInterval(() => {
    const next = agentFilesSignature(dir);
    if (next === signature) return;
    signature = next;
    onChange();
  }, AGENTS_POLL_MS);
  timer.unref();
  return () => clearInterval(timer);
}

/** A signature of the agent files of `dir` (names, sizes, change times): it changes when one is added, edited or removed. */
function agentFilesSignature(dir: string): string {
  try {
    return readdirSync(dir)
      .filter((n) => EXTENSIONS.includes(extname(n).toLowerCase()))
      .sort()
      .map((n) => {
        const s = statOrUndefined(join(dir, n));
        return `${n}:${s?.size ?? -1}:${s?.mtimeMs ?? -1}`;
      })
      .join('\n');
  } catch {
    return '';
  }
}

/** `path` (absolute, symbolic links resolved) relative to the project, with `/`: how agent files are named. */
export function projectRelative(projectDir: string, path: string): string {
  return relative(realOrSelf(projectDir), path).split(sep).join('/');
}

function inside(root: string, path: string): boolean {
  const rel = relative(root, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** `path` with its symbolic links resolved, as far as it exists (a missing tail is kept as written). */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    const parent = resolve(path, '..');
    return parent === path ? path : join(realOrSelf(parent), basename(path));
  }
}

/** ` (line L, column C)` of a YAML parse error, when it says where. */
function yamlWhere(error: unknown): string {
  const at = (error as { linePos?: { line: number; col: number }[] }).linePos?.[0];
  return at ? ` (line ${at.line}, column ${at.col})` : '';
}

function statOrUndefined(path: string): ReturnType<typeof statSync> | undefined {
  try {
    return statSync(path);
  } catch {
    return undefined;
  }
}

/** The `yaml` package, loaded the first time a YAML agent file is read. */
function loadYaml(): typeof import('yaml') {
  return createRequire(import.meta.url)('yaml') as typeof import('yaml');
}
