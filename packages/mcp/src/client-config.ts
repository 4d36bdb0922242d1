import { readFile, stat } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { AgentSpacesError, isRecord, type McpServers } from '@agent-spaces/capabilities';
import type { ParseError } from 'jsonc-parser';
import { errorText, parseMcpServers } from './config.js';
import { readInputs } from './inputs.js';

/**
 * The MCP client files of a project, read in this order when the config has no `mcpServers` (paths relative to the
 * project folder): Claude Code's `.mcp.json`, a plain `mcp.json`, Cursor's `.cursor/mcp.json`, VS Code's
 * `.vscode/mcp.json`. All that exist are read and merged; a server name given by two files is taken from the first.
 */
export const MCP_CLIENT_FILES = ['.mcp.json', 'mcp.json', '.cursor/mcp.json', '.vscode/mcp.json'] as const;

/**
 * The files of a project's folder that MCP servers are configured by: `mcpJson`, the client files read when the config
 * has no `mcpServers` ({@link readProjectMcpServers}), and `env`, the `.env` placeholders are expanded from (`loadMcpEnv`).
 */
export const MCP_PROJECT_FILES = { mcpJson: MCP_CLIENT_FILES, env: '.env' } as const;

/** The servers of one or more MCP client files, and what reading them left out (one line each). */
export interface McpClientServers {
  servers: McpServers;
  /** Keys ignored, servers skipped or shadowed: `.vscode/mcp.json: "gallery" of servers.github ignored (…)`. */
  notes: string[];
  /** The files read (absolute). */
  files: string[];
}

/** Largest MCP client file read: such files hold a few servers, never megabytes. */
const MAX_CLIENT_FILE_BYTES = 1024 * 1024;

// Keys some clients write in a server entry that change nothing about reaching it.
const IGNORED_SERVER_KEYS = new Set(['dev', 'gallery', 'version', 'sandbox', 'sandboxEnabled', 'autoApprove', 'alwaysAllow', 'timeout', 'description']);

/**
 * Reads one MCP client file as its client writes it: JSON with `//` and `/* *\/` comments and trailing commas;
 * servers under `mcpServers` (Claude Desktop, Claude Code, Cursor) or `servers` (VS Code) with VS Code's `inputs`;
 * every other top-level key (Claude Desktop's `globalShortcut`, …) is ignored with a note, and so is a server with
 * `"disabled": true`. `${workspaceFolder}` is `workspaceFolder` (default: the folder above `.cursor/` or `.vscode/`,
 * else the file's folder), and a relative `envFile` is resolved from it. `shown` is how messages name the file.
 * Throws `CONFIG_NOT_FOUND` (unreadable), `INVALID_JSON` (with line and column), `CONFIG_INVALID` or
 * `CONFIG_PLACEHOLDER`, each naming the file.
 */
export async function readMcpClientFile(file: string, shown = file, workspaceFolder = defaultWorkspace(file)): Promise<McpClientServers> {
  const json = await readJsonc(file, shown);
  if (!isRecord(json) || (json.mcpServers === undefined && json.servers === undefined)) {
    throw new AgentSpacesError('CONFIG_INVALID', `${shown}: expected { "mcpServers": { ... } } (or VS Code's { "servers": { ... } })`, { file, field: 'mcpServers' });
  }
  if (json.mcpServers !== undefined && json.servers !== undefined) {
    throw new AgentSpacesError('CONFIG_INVALID', `${shown}: has both "mcpServers" and "servers": keep one`, { file, field: 'servers' });
  }
  const key = json.mcpServers === undefined ? 'servers' : 'mcpServers';
  const notes = Object.keys(json)
    .filter((name) => name !== key && name !== 'inputs' && name !== '$schema')
    .map((name) => `${shown}: "${name}" ignored (not an MCP server setting)`);
  const inputs = readInputs(json.inputs, shown);
  const entries = json[key];
  if (!isRecord(entries)) return { servers: parseMcpServers(entries, shown), notes, files: [file] };
  const kept: Record<string, unknown> = {};
  for (const [name, entry] of Object.entries(entries)) {
    if (isRecord(entry) && entry.disabled === true) {
      notes.push(`${shown}: ${key}.${name} skipped ("disabled": true)`);
      continue;
    }
    if (!isRecord(entry)) {
      kept[name] = entry;
      continue;
    }
    const rest: Record<string, unknown> = { ...entry };
    delete rest.disabled;
    for (const ignored of Object.keys(rest).filter((field) => IGNORED_SERVER_KEYS.has(field))) {
      notes.push(`${shown}: "${ignored}" of ${key}.${name} ignored (a client setting)`);
      delete rest[ignored];
    }
    kept[name] = rest;
  }
  const servers = parseMcpServers(kept, shown, { file: shown, workspaceFolder, inputs: new Set(inputs.keys()) });
  for (const server of Object.values(servers)) {
    if ('envFile' in server && server.envFile !== undefined) server.envFile = resolve(workspaceFolder, server.envFile);
  }
  return { servers, notes, files: [file] };
}

/**
 * Reads every file of {@link MCP_CLIENT_FILES} that exists in `projectRoot` and merges them: a server named in two
 * files is taken from the first (a note names the other). Resolves to undefined when there is none.
 */
export async function readProjectMcpServers(projectRoot: string): Promise<McpClientServers | undefined> {
  const merged: McpClientServers = { servers: {}, notes: [], files: [] };
  const from = new Map<string, string>();
  for (const name of MCP_CLIENT_FILES) {
    const file = join(projectRoot, name);
    if (!(await isFile(file))) continue;
    const read = await readMcpClientFile(file, name, projectRoot);
    merged.files.push(file);
    merged.notes.push(...read.notes);
    for (const [server, config] of Object.entries(read.servers)) {
      const first = from.get(server);
      if (first !== undefined) {
        merged.notes.push(`${name}: server "${server}" ignored (${first} defines it first)`);
        continue;
      }
      from.set(server, name);
      merged.servers[server] = config;
    }
  }
  return merged.files.length === 0 ? undefined : merged;
}

/**
 * The folder `${workspaceFolder}` stands for in `file`: the folder holding `.cursor/` or `.vscode/` for the files
 * inside them, else the file's own folder.
 */
function defaultWorkspace(file: string): string {
  const folder = dirname(resolve(file));
  return /[\\/]\.(?:cursor|vscode)$/.test(folder) ? dirname(folder) : folder;
}

/**
 * Parses JSONC text with Microsoft's `jsonc-parser` (the parser VS Code uses): comments and trailing commas are
 * accepted. Throws `INVALID_JSON` naming `shown`, line and column of the first error.
 */
export async function parseJsonc(text: string, shown: string, file = shown): Promise<unknown> {
  const { parse, printParseErrorCode } = await import('jsonc-parser');
  const errors: ParseError[] = [];
  const value: unknown = parse(text, errors, { allowTrailingComma: true, disallowComments: false, allowEmptyContent: false });
  const first = errors[0];
  if (first === undefined) return value;
  const before = text.slice(0, first.offset).split('\n');
  const line = before.length;
  const column = before.at(-1)!.length + 1;
  throw new AgentSpacesError('INVALID_JSON', `${shown}:${line}:${column}: ${printParseErrorCode(first.error)}`, {
    file,
    line,
    column,
  });
}

async function readJsonc(file: string, shown: string): Promise<unknown> {
  let text: string;
  try {
    const size = (await stat(file)).size;
    if (size > MAX_CLIENT_FILE_BYTES) {
      throw new AgentSpacesError('CONFIG_INVALID', `${shown}: ${size} bytes is more than an MCP config holds (at most ${MAX_CLIENT_FILE_BYTES})`, { file, size });
    }
    text = await readFile(file, 'utf8');
  } catch (error) {
    if (error instanceof AgentSpacesError) throw error;
    throw new AgentSpacesError('CONFIG_NOT_FOUND', `${shown}: cannot read MCP config (${errorText(error)})`, { file });
  }
  return parseJsonc(text, shown, file);
}

async function isFile(file: string): Promise<boolean> {
  return stat(file).then(
    (info) => info.isFile(),
    () => false,
  );
}

/**
 * `text`, an MCP client file (JSONC; '' for a new one), with server `name` added under `key` — comments, order and
 * layout kept (jsonc-parser's `modify`, 2-space indent) — or undefined when `key` already has a server of that name.
 * Throws `INVALID_JSON` naming `shown`, line and column, and `CONFIG_INVALID` when `key` is not an object.
 */
export async function addClientServer(text: string, shown: string, key: 'mcpServers' | 'servers', name: string, server: unknown): Promise<string | undefined> {
  if (text.trim() === '') return `${JSON.stringify({ [key]: { [name]: server } }, null, 2)}\n`;
  const json = await parseJsonc(text, shown);
  const servers = isRecord(json) ? json[key] : undefined;
  if (servers !== undefined && !isRecord(servers)) {
    throw new AgentSpacesError('CONFIG_INVALID', `${shown}: "${key}" must be an object of servers`, { file: shown, field: key });
  }
  if (servers && Object.hasOwn(servers, name)) return undefined;
  const { applyEdits, modify } = await import('jsonc-parser');
  const edits = modify(text, [key, name], server, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } });
  return applyEdits(text, edits);
}
