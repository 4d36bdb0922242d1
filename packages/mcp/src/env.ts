import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentSpacesError, expandPlaceholders, type PlaceholderEnv } from '@agent-spaces/capabilities';
import { isStdioServer, type McpServerConfig } from './config.js';

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
  /** Non-empty values substituted from the environment or `.env` (defaults written in the config are not secret). */
  secrets: string[];
  /** The same values by variable name, for `[REDACTED:VAR]`. */
  variables: Map<string, string>;
}

const LINE = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

/**
 * Parses `.env` text: `KEY=value` lines, optional `export `, `#` comments, `'literal'` and `"escaped\n"` values.
 * Throws `CONFIG_INVALID` naming `file` and the line of a malformed entry.
 */
export function parseDotEnv(text: string, file = '.env'): Record<string, string> {
  const vars: Record<string, string> = {};
  text.split(/\r?\n/).forEach((line, index) => {
    if (/^\s*(#|$)/.test(line)) return;
    const match = LINE.exec(line);
    if (!match) {
      throw new AgentSpacesError('CONFIG_INVALID', `${file}:${index + 1}: expected KEY=value`, { file, line: index + 1 });
    }
    vars[match[1]!] = unquote(match[2]!);
  });
  return vars;
}

function unquote(raw: string): string {
  const quote = raw[0];
  if ((quote === '"' || quote === "'") && raw.length > 1) {
    const end = raw.lastIndexOf(quote);
    if (end > 0) {
      const body = raw.slice(1, end);
      return quote === "'" ? body : body.replace(/\\([nrt"\\])/g, (_, c: string) => ESCAPES[c] ?? c);
    }
  }
  return raw.replace(/\s+#.*$/, '');
}

/** The variables placeholders are expanded from: `options.env` (default `process.env`) over the project's `.env`. */
export async function loadMcpEnv(options: McpEnvOptions = {}): Promise<McpEnv> {
  const host = options.env ?? process.env;
  if (options.projectRoot === undefined) return host;
  const file = join(options.projectRoot, '.env');
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
 */
export function expandServerConfig(server: string, config: McpServerConfig, env: McpEnv): ExpandedServerConfig {
  const variables = new Map<string, string>();
  const expand = (value: string, field: string): string =>
    expandPlaceholders(
      value,
      env,
      (name) => {
        throw new AgentSpacesError('CONFIG_INVALID', `mcpServers.${server}.${field}: \${${name}} is not set (host environment or .env)`, {
          server,
          field,
          variable: name,
        });
      },
      (name, found) => variables.set(name, found),
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
    return { config: expanded, secrets: [...new Set(variables.values())], variables };
  }
  const headers = record(config.headers, 'headers');
  const expanded: McpServerConfig = {
    ...(config.type ? { type: config.type } : {}),
    url: expand(config.url, 'url'),
    ...(headers ? { headers } : {}),
  };
  return { config: expanded, secrets: [...new Set(variables.values())], variables };
}
