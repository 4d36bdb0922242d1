import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parseEnv } from 'node:util';
import { AgentSpacesError, envValue, expandPlaceholders, expandUserPlaceholders, type PlaceholderEnv } from '@agent-spaces/capabilities';
import { MCP_PROJECT_FILES } from './client-config.js';
import { errorText, isStdioServer, type McpServerConfig } from './config.js';
import { inputVariable, terminalPrompter, withInputs } from './inputs.js';
import { normalizePlaceholders } from './placeholder-forms.js';

/** Variables `${VAR}` placeholders are expanded from. */
export type McpEnv = PlaceholderEnv;

/** Where placeholders are expanded from: `env` (default `process.env`) over `<projectRoot>/.env`. */
export interface McpEnvOptions {
  /** Folder holding the optional `.env` file. Without it, only `env` is used. */
  projectRoot?: string;
  /** The host environment (default `process.env`); wins over `.env`. */
  env?: McpEnv;
}

/** A server's config with every placeholder expanded, and the values that came from variables (to redact). */
export interface ExpandedServerConfig {
  config: McpServerConfig;
  /**
   * Non-empty values substituted from the environment or `.env`, by variable name, for `[REDACTED:VAR]` (defaults
   * written in the config are not secret).
   */
  variables: Map<string, string>;
}

const NAME = /^[A-Za-z_][A-Za-z0-9_.]*$/;
const INPUT = /\$\{input:([^}]+)\}/g;

/**
 * Parses `.env` text with Node's own parser (`util.parseEnv`): `KEY=value` lines, optional `export `, `#` comments,
 * quoted values, multi-line values in quotes (a PEM key). Throws `CONFIG_INVALID` naming `file` and the line of an
 * entry whose name is not a variable name (a line without `=` runs into the next one's name).
 */
export function parseDotEnv(text: string, file = '.env'): Record<string, string> {
  const vars = parseEnv(text) as Record<string, string>;
  for (const key of Object.keys(vars)) {
    if (NAME.test(key)) continue;
    const at = text.indexOf(key.trim());
    const line = at < 0 ? undefined : text.slice(0, at).split('\n').length;
    throw new AgentSpacesError('CONFIG_INVALID', `${file}${line ? `:${line}` : ''}: expected KEY=value, found "${key.split('\n')[0]}"`, { file, line });
  }
  return vars;
}

/** The variables placeholders are expanded from: `options.env` (default `process.env`) over the project's `.env`. */
export async function loadMcpEnv(options: McpEnvOptions = {}): Promise<McpEnv> {
  const host = options.env ?? process.env;
  if (options.projectRoot === undefined) return host;
  const file = join(options.projectRoot, MCP_PROJECT_FILES.env);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return host;
  }
  const fromFile = parseDotEnv(text, file);
  const merged: Record<string, string | undefined> = { ...fromFile };
  for (const [key, value] of Object.entries(host)) if (value !== undefined) merged[key] = value;
  return merged;
}

/**
 * Expands `${VAR}` and `${VAR:-default}` in every string of one server's config (a new object) and lists the
 * substituted values. A variable that is unset (and has no default) throws `CONFIG_INVALID` naming server and field.
 * `${input:id}` takes the variable `AGENT_SPACES_INPUT_<ID>` ({@link inputVariable}; `prepareServer` first asks for it
 * on a terminal) and `${env:VAR}` is `${VAR}`; any other `${...}` form throws `CONFIG_PLACEHOLDER`.
 * `${user:NAME}` takes `user.get(NAME)` (the calling principal's secret, listed as `user:NAME`); without `user` (the
 * build, which has no user) it takes the environment variable NAME, an operator credential, and throws
 * `CONFIG_INVALID` when that is unset.
 */
export function expandServerConfig(server: string, config: McpServerConfig, env: McpEnv, user?: ReadonlyMap<string, string>): ExpandedServerConfig {
  const variables = new Map<string, string>();
  const unset = (field: string, variable: string, shown: string, where: string): never => {
    throw new AgentSpacesError('CONFIG_INVALID', `mcpServers.${server}.${field}: ${shown} is not set (${where})`, { server, field, variable });
  };
  const userValue = (name: string, field: string): string => {
    const value = user ? user.get(name) : envValue(env, name);
    if (value === undefined) {
      return unset(field, name, `\${user:${name}}`, user ? 'no per-user secret' : `the build has no user: set the environment variable ${name} to an operator credential`);
    }
    variables.set(user ? `user:${name}` : name, value);
    return value;
  };
  const expandSegment = (segment: string, field: string): string => {
    // A config given in code never went through parseMcpServers: its forms are read here, so none passes through.
    const inputs = new Map<string, string>();
    const read = normalizePlaceholders(segment, { file: 'mcpServers', anyInput: true }, server, field).replace(INPUT, (_, id: string) => {
      inputs.set(inputVariable(id), id);
      return `\${${inputVariable(id)}}`;
    });
    const missing = (name: string): never => {
      const input = inputs.get(name);
      if (input === undefined) return unset(field, name, `\${${name}}`, 'host environment or .env');
      return unset(field, name, `\${input:${input}}`, `no terminal to prompt on: set ${name} in the environment or in .env`);
    };
    return expandPlaceholders(read, env, missing, (name, found) => variables.set(name, found));
  };
  const expand = (value: string, field: string): string =>
    expandUserPlaceholders(value, (segment) => expandSegment(segment, field), (name) => userValue(name, field));
  const record = (values: Record<string, string> | undefined, field: string) =>
    values && Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expand(value, `${field}.${key}`)]));

  if (isStdioServer(config)) {
    const args = config.args?.map((arg, i) => expand(arg, `args[${i}]`));
    const env = record(config.env, 'env');
    const cwd = config.cwd === undefined ? undefined : expand(config.cwd, 'cwd');
    const envFile = config.envFile === undefined ? undefined : expand(config.envFile, 'envFile');
    const expanded: McpServerConfig = {
      ...(config.type ? { type: config.type } : {}),
      command: expand(config.command, 'command'),
      ...(args ? { args } : {}),
      ...(env ? { env } : {}),
      ...(envFile === undefined ? {} : { envFile }),
      ...(cwd === undefined ? {} : { cwd }),
    };
    return { config: expanded, variables };
  }
  const headers = record(config.headers, 'headers');
  const expanded: McpServerConfig = {
    ...(config.type ? { type: config.type } : {}),
    url: expand(config.url, 'url'),
    ...(headers ? { headers } : {}),
  };
  return { config: expanded, variables };
}

/**
 * One server's config ready to start: placeholders expanded ({@link expandServerConfig}) from `options.env` over the
 * project's `.env`, after asking on the terminal for each `${input:id}` neither holds (only when stdin and stderr are
 * a terminal: never under `mcp serve` over stdio); then the entries of its `envFile` (relative to the project) are
 * added to `env`, which wins, and listed as secrets. A missing `envFile` throws `CONFIG_INVALID` naming it.
 */
export async function prepareServer(
  server: string,
  config: McpServerConfig,
  options: McpEnvOptions = {},
  user?: ReadonlyMap<string, string>,
): Promise<ExpandedServerConfig> {
  const env = await withInputs(await loadMcpEnv(options), config, terminalPrompter());
  const prepared = expandServerConfig(server, config, env, user);
  const expanded = prepared.config;
  if (!isStdioServer(expanded) || expanded.envFile === undefined) return prepared;
  const { envFile, ...rest } = expanded;
  const file = resolve(options.projectRoot ?? process.cwd(), envFile);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new AgentSpacesError('CONFIG_INVALID', `mcpServers.${server}.envFile: cannot read ${file} (${errorText(error)})`, { server, field: 'envFile', file });
  }
  const fromFile = parseDotEnv(text, file);
  for (const [name, value] of Object.entries(fromFile)) if (value !== '' && rest.env?.[name] === undefined) prepared.variables.set(name, value);
  return { config: { ...rest, env: { ...fromFile, ...rest.env } }, variables: prepared.variables };
}
