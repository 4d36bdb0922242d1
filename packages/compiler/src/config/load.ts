import { access, readFile } from 'node:fs/promises';
import { basename, dirname, extname, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentSpacesError, type AgentSpacesConfig, type McpServers, type OpenApiSourceConfig, type PoliciesConfig } from '@agent-spaces/capabilities';
import { findMcpJson, parseMcpServers, readMcpJson } from '@agent-spaces/mcp/config';
import { bundleModule, formatBuildError, importCode } from '../bundle.js';
import { findConfigProblem } from './validate.js';

/** Config file names looked up in the working directory, first match wins. */
export const CONFIG_FILE_NAMES = ['agent-spaces.config.ts', 'agent-spaces.config.mjs', 'agent-spaces.config.json'] as const;

/** The config with every default filled in; paths are absolute. */
export interface ResolvedConfig {
  /** Capability source files or globs, relative to `rootDir`. Default `['capabilities/*']`. */
  capabilities: string[];
  /** Absolute build output folder. Default `<rootDir>/.agent-spaces`. */
  outDir: string;
  /** MCP servers (placeholders unexpanded): the config's `mcpServers`, else `.mcp.json`/`mcp.json` beside it, else `{}`. */
  mcpServers: McpServers;
  /** OpenAPI sources (docs/openapi.md), `[]` when absent; a relative `spec` path is relative to `rootDir`. */
  openapi: OpenApiSourceConfig[];
  /** The `policies` key as written (docs/policies.md), `{}` when absent. */
  policies: PoliciesConfig;
}

/** Where to look for the config: `configFile` (relative to `cwd`) or the first of {@link CONFIG_FILE_NAMES} in `cwd`. */
export interface LoadConfigOptions {
  cwd: string;
  configFile?: string;
}

/** A loaded config, the file it came from (absolute) and the folder paths in it are relative to. */
export interface LoadedConfig {
  config: ResolvedConfig;
  /** The file's default export as written (checked shallowly; the server checks its own keys in depth). */
  raw: AgentSpacesConfig;
  file: string;
  rootDir: string;
}

const DEFAULT_CAPABILITIES = ['capabilities/*'];
const DEFAULT_OUT_DIR = '.agent-spaces';

/**
 * Finds, imports and validates `agent-spaces.config.ts|mjs|json`. Throws `CONFIG_NOT_FOUND` (listing the
 * names tried) when there is none, and `CONFIG_INVALID` naming the file and key for anything malformed.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const file = await findConfigFile(options);
  const shown = relative(options.cwd, file) || file;
  const value = await readConfigValue(file, shown);
  const problem = findConfigProblem(value);
  if (problem) {
    throw new AgentSpacesError('CONFIG_INVALID', `${shown}: ${problem.message}`, { file, key: problem.key });
  }
  const rootDir = dirname(file);
  const config = resolveConfig(value as AgentSpacesConfig, rootDir);
  if ((value as AgentSpacesConfig).mcpServers === undefined) {
    const mcpJson = await findMcpJson(rootDir);
    if (mcpJson) config.mcpServers = await readMcpJson(mcpJson);
  }
  return { config, raw: value as AgentSpacesConfig, file, rootDir };
}

/** Fills defaults into a new object (the input is never mutated) and makes `outDir` absolute. */
export function resolveConfig(config: AgentSpacesConfig, rootDir: string): ResolvedConfig {
  return {
    capabilities: [...(config.capabilities ?? DEFAULT_CAPABILITIES)],
    outDir: resolve(rootDir, config.outDir ?? DEFAULT_OUT_DIR),
    mcpServers: config.mcpServers === undefined ? {} : parseMcpServers(config.mcpServers),
    openapi: structuredClone(config.openapi ?? []),
    policies: structuredClone(config.policies ?? {}),
  };
}

async function findConfigFile({ cwd, configFile }: LoadConfigOptions): Promise<string> {
  const candidates = configFile ? [resolve(cwd, configFile)] : CONFIG_FILE_NAMES.map((name) => resolve(cwd, name));
  for (const candidate of candidates) {
    if (await exists(candidate)) return candidate;
  }
  const tried = configFile ? [configFile] : [...CONFIG_FILE_NAMES];
  throw new AgentSpacesError('CONFIG_NOT_FOUND', `No config file found in ${cwd} (tried ${tried.join(', ')})`, {
    cwd,
    tried,
  });
}

async function readConfigValue(file: string, shown: string): Promise<unknown> {
  const invalid = (message: string, cause: unknown) =>
    new AgentSpacesError('CONFIG_INVALID', `${shown}: ${message}`, { file, key: 'default' }, { cause });
  switch (extname(file)) {
    case '.json': {
      let text: string;
      try {
        text = await readFile(file, 'utf8');
      } catch (error) {
        throw invalid(`cannot read: ${(error as Error).message}`, error);
      }
      try {
        return JSON.parse(text) as unknown;
      } catch (error) {
        throw invalid(`invalid JSON: ${(error as Error).message}`, error);
      }
    }
    case '.ts':
    case '.mts':
    case '.mjs':
    case '.js': {
      let namespace: Record<string, unknown>;
      try {
        namespace = await importConfigModule(file);
      } catch (error) {
        throw invalid(`cannot load: ${formatBuildError(error)}`, error);
      }
      if (!('default' in namespace)) throw invalid('has no default export', undefined);
      return namespace.default;
    }
    default:
      throw new AgentSpacesError('CONFIG_INVALID', `${shown}: unsupported config file type (use .ts, .mjs or .json)`, {
        file,
        key: 'default',
      });
  }
}

/** `.mjs`/`.js` are imported as they are; TypeScript is bundled to a hidden `.mjs` next to the file, then imported. */
async function importConfigModule(file: string): Promise<Record<string, unknown>> {
  const ext = extname(file);
  if (ext === '.mjs' || ext === '.js') {
    const namespace: unknown = await import(/* @vite-ignore */ `${pathToFileURL(file).href}?t=${Date.now()}`);
    return namespace as Record<string, unknown>;
  }
  const { code } = await bundleModule(file);
  return importCode(code, dirname(file), `.${basename(file)}`);
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
