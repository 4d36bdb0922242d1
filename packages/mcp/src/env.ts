import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseEnv } from 'node:util';
import { AgentSpacesError, envValue, expandPlaceholders, expandUserPlaceholders, type PlaceholderEnv } from '@agent-spaces/capabilities';
import { MCP_PROJECT_FILES, isStdioServer, type McpServerConfig } from './config.js';

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
  const expand = (value: string, field: string): string =>
    expandUserPlaceholders(
      value,
      (segment) =>
        expandPlaceholders(
          segment,
          env,
          (name) => unset(field, name, `\${${name}}`, 'host environment or .env'),
          (name, found) => variables.set(name, found),
        ),
      (name) => userValue(name, field),
    );
  const record = (values: Record<string, string> | undefined, field: string) =>
    values && Object.fromEntries(Object.entries(values).map(([key, value]) => [key, expand(value, `${field}.${key}`)]));

  if (isStdioServer(config)) {
    const args = config.args?.map((arg, i) => expand(arg, `args[${i}]`));
    const env = record(config.env, 'env');
    const cwd = config.cwd === undefined ? undefined : expand(config.cwd, 'cwd');
    const expanded: McpServerConfig = {
      ...(config.type ? { type: config.type } : {}),
      command: expand(config.command, 'command'),
      ...(args ? { args } : {}),
      ...(env ? { env } : {}),
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
