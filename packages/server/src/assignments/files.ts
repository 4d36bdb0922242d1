import { randomUUID } from 'node:crypto';
import { lstat, mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentSpacesError, isRecord } from '@agent-spaces/capabilities';

/** Seed 003's folder of agent configs, in the project folder: `agent_configs/<agent>.json`. */
export const AGENT_CONFIGS_DIR = 'agent_configs';
/** Largest agent config file read; a larger one is refused (`CONFIG_INVALID`). */
const MAX_CONFIG_BYTES = 64 * 1024;
/** Most agent config files read (in name order); the others are refused. */
const MAX_CONFIG_FILES = 1000;
/** Most action servers one file assigns. */
const MAX_SERVERS_PER_FILE = 64;
/** A file's name without `.json`: an agent (space) id, never starting with a dot (temporary files do). */
const STEM = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,63}$/;

/** One valid `agent_configs/<agent>.json`: `{ "agent_name": "<agent>", "action_server": "<server>" | ["<server>", …] }`. */
export interface AgentConfigFile {
  /** Its path relative to the project (`agent_configs/bob.json`). */
  file: string;
  agentName: string;
  actionServers: string[];
}

/** What {@link readAgentConfigFiles} found: the valid files, and one `CONFIG_INVALID` error per file refused. */
export interface AgentConfigFiles {
  configs: AgentConfigFile[];
  problems: AgentSpacesError[];
}

/**
 * Reads `<rootDir>/agent_configs/*.json` (no folder is no config). A file is refused — and the others still read — when
 * it is a symlink or not a regular file, its name is not `<agent id>.json`, it is over {@link MAX_CONFIG_BYTES}, past
 * the first {@link MAX_CONFIG_FILES}, not JSON, or not `{ agent_name, action_server }` with `agent_name` its own name.
 */
export async function readAgentConfigFiles(rootDir: string): Promise<AgentConfigFiles> {
  const dir = join(rootDir, AGENT_CONFIGS_DIR);
  const result: AgentConfigFiles = { configs: [], problems: [] };
  const folder = await lstat(dir).catch(() => undefined);
  if (!folder) return result;
  if (!folder.isDirectory()) return { ...result, problems: [invalid(AGENT_CONFIGS_DIR, 'folder', 'must be a folder (not a symlink)')] };
  const entries = (await readdir(dir, { withFileTypes: true })).filter((e) => e.name.endsWith('.json') && !e.name.startsWith('.'));
  entries.sort((a, b) => (a.name < b.name ? -1 : 1));
  for (const [i, entry] of entries.entries()) {
    const file = `${AGENT_CONFIGS_DIR}/${entry.name}`;
    try {
      if (i >= MAX_CONFIG_FILES) throw invalid(file, 'file', `is past the first ${MAX_CONFIG_FILES} agent configs and is not read`);
      if (!entry.isFile()) throw invalid(file, 'file', 'must be a regular file (not a symlink or a folder)');
      result.configs.push(await readOne(join(dir, entry.name), file, entry.name.slice(0, -'.json'.length)));
    } catch (error) {
      result.problems.push(error instanceof AgentSpacesError ? error : invalid(file, 'file', `cannot be read: ${(error as Error).message}`));
    }
  }
  return result;
}

/** One agent config file, checked; throws `CONFIG_INVALID` naming the file and the field. */
async function readOne(path: string, file: string, stem: string): Promise<AgentConfigFile> {
  if (!STEM.test(stem)) throw invalid(file, 'file', 'must be named <agent id>.json (letters, digits, ".", "_", "-"; at most 64)');
  if ((await lstat(path)).size > MAX_CONFIG_BYTES) throw invalid(file, 'file', `is over ${MAX_CONFIG_BYTES} bytes`);
  let value: unknown;
  try {
    value = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    // Not the parser's message, which quotes the text.
    throw invalid(file, 'file', 'is not JSON');
  }
  if (!isRecord(value)) throw invalid(file, 'file', 'must hold an object { "agent_name", "action_server" }');
  const unknownKey = Object.keys(value).find((key) => key !== 'agent_name' && key !== 'action_server');
  if (unknownKey !== undefined) throw invalid(file, unknownKey, 'is not a known key (known: agent_name, action_server)');
  if (typeof value.agent_name !== 'string' || value.agent_name === '') throw invalid(file, 'agent_name', 'must be a non-empty string');
  if (value.agent_name !== stem) throw invalid(file, 'agent_name', `must be the file's name, "${stem}"`);
  return { file, agentName: value.agent_name, actionServers: actionServersOf(value.action_server, file) };
}

/** `action_server`: one server name, or a list of at most {@link MAX_SERVERS_PER_FILE}. */
function actionServersOf(value: unknown, file: string): string[] {
  const list = Array.isArray(value) ? value : [value];
  if (list.length === 0 || list.length > MAX_SERVERS_PER_FILE) throw invalid(file, 'action_server', `must name 1 to ${MAX_SERVERS_PER_FILE} action servers`);
  list.forEach((name, i) => {
    if (typeof name !== 'string' || name === '' || name.length > 128) {
      throw invalid(file, Array.isArray(value) ? `action_server[${i}]` : 'action_server', 'must be a server name of action_servers.json (a string or a list of them)');
    }
  });
  return [...new Set(list as string[])];
}

/**
 * Writes `agent_configs/<agentId>.json` assigning `servers` (a string for one, a list for more), or deletes it when
 * `servers` is empty: atomically (a temporary file renamed over it). `agentId` must be a served space's id, checked by
 * the caller; it is checked again here so that no other path can be written.
 */
export async function writeAgentConfig(rootDir: string, agentId: string, servers: readonly string[]): Promise<void> {
  if (!STEM.test(agentId)) throw new AgentSpacesError('INVALID_ARGUMENTS', `"${agentId.slice(0, 80)}" cannot name an agent config file`, { field: 'agent_name' });
  const dir = join(rootDir, AGENT_CONFIGS_DIR);
  const target = join(dir, `${agentId}.json`);
  if (servers.length === 0) return rm(target, { force: true });
  await mkdir(dir, { recursive: true });
  const folder = await lstat(dir);
  if (!folder.isDirectory()) throw invalid(AGENT_CONFIGS_DIR, 'folder', 'must be a folder (not a symlink)');
  const temporary = join(dir, `.${agentId}.json.${randomUUID()}.tmp`);
  const body = { agent_name: agentId, action_server: servers.length === 1 ? servers[0] : servers };
  try {
    await writeFile(temporary, `${JSON.stringify(body, null, 2)}\n`, { flag: 'wx' });
    await rename(temporary, target);
  } finally {
    await rm(temporary, { force: true });
  }
}

function invalid(file: string, key: string, problem: string): AgentSpacesError {
  return new AgentSpacesError('CONFIG_INVALID', `${file}: ${key} ${problem}`, { file, key });
}
