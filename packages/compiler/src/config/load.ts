import { access, readFile } from 'node:fs/promises';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentSpacesError, DEFAULT_OUT_DIR, STD_MODULE, type AgentSpacesConfig, type CapabilityEntry, type McpServers, type OpenApiSourceConfig, type PoliciesConfig, type StdConfig, type TypecheckBudget } from '@agent-spaces/capabilities';
import { parseMcpServers, readProjectMcpServers } from '@agent-spaces/mcp/config';
import { ownServerUrls, readClientConfigFile } from '../sources/mcp-config.js';
import { formatBuildError, importCode } from '../bundle.js';
import { configBundle } from './bundle-cache.js';
import { CONFIG_KEYS, findConfigProblem } from './validate.js';
import { isPackageEntry, isPackageFolder, toNpmSource, type NpmSource } from '../sources/npm/config.js';

/** Config file names looked up in the working directory (then the folders above it), first match wins. */
export const CONFIG_FILE_NAMES = ['agent-spaces.config.ts', 'agent-spaces.config.mjs', 'agent-spaces.config.json'] as const;

/** The config with every default filled in; paths are absolute. */
export interface ResolvedConfig {
  /** Capability source files or globs, relative to `rootDir`. Default `['capabilities/*']`. */
  capabilities: string[];
  /** The npm packages `capabilities` names (`npm:<package>`, `{ package, … }`), `[]` when none. */
  packages: NpmSource[];
  /** Absolute build output folder. Default `<rootDir>/.agent-spaces`. */
  outDir: string;
  /** MCP servers (placeholders unexpanded): the config's `mcpServers`, else the MCP client files beside it (`MCP_CLIENT_FILES`), else `{}`. */
  mcpServers: McpServers;
  /** OpenAPI sources (docs/openapi.md), `[]` when absent; a relative `spec` path is relative to `rootDir`. */
  openapi: OpenApiSourceConfig[];
  /** The `policies` key as written (docs/policies.md), `{}` when absent. */
  policies: PoliciesConfig;
  /** The `std` key as written (`fs.root` relative to `rootDir`), `{}` when absent: no network, a read-only workspace. */
  std: StdConfig;
  /** Whether runs record the shapes of MCP results without an output schema (`recordResults`, default true). */
  recordResults: boolean;
  /** The per-user secrets file (`userSecrets`, made absolute), when the config names one. */
  userSecrets?: string;
  /** The `typecheck` budget as written (`{}` when absent: the defaults of `DEFAULT_TYPECHECK_BUDGET`). */
  typecheck: Partial<TypecheckBudget>;
  /** What reading the MCP client files left out (keys ignored, servers skipped or shadowed), one line each. */
  mcpNotes?: string[];
  /** The URLs this project's `mcp serve` answers at (from `server.port`, `server.host`, `server.advertiseUrl`): entries reaching them are skipped. */
  mcpSelfUrls?: string[];
}

/**
 * Where to look for the config: `configFile` (relative to `cwd`), else the first of {@link CONFIG_FILE_NAMES} in `cwd` or
 * the nearest folder above it, up to the project root (a folder holding `.git`, or the filesystem root).
 */
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

/**
 * Finds, imports and validates `agent-spaces.config.ts|mjs|json`. Throws `CONFIG_NOT_FOUND` (listing the
 * names tried) when there is none, and `CONFIG_INVALID` naming the file and key for anything malformed.
 */
export async function loadConfig(options: LoadConfigOptions): Promise<LoadedConfig> {
  const file = await findConfigFile(options);
  const shown = relative(options.cwd, file) || file;
  // An MCP client's own file given as --config (claude_desktop_config.json): its servers, in the working folder.
  const client = options.configFile ? await readClientConfigFile(file, shown, options.cwd, (key) => Object.hasOwn(CONFIG_KEYS, key)) : undefined;
  if (client) {
    const config = { ...resolveConfig({}, options.cwd), mcpServers: client.servers, mcpNotes: client.notes };
    return { config, raw: {}, file, rootDir: options.cwd };
  }
  const value = await readConfigValue(file, shown);
  const problem = findConfigProblem(value);
  if (problem) {
    throw new AgentSpacesError('CONFIG_INVALID', `${shown}: ${problem.message}`, { file, key: problem.key });
  }
  const rootDir = dirname(file);
  const config = resolveConfig(value as AgentSpacesConfig, rootDir);
  if (mcpServersOf(value as AgentSpacesConfig) === undefined) {
    const project = await readProjectMcpServers(rootDir);
    if (project) Object.assign(config, { mcpServers: project.servers, mcpNotes: project.notes });
  }
  return { config, raw: value as AgentSpacesConfig, file, rootDir };
}

/**
 * Fills defaults into a new object (the input is never mutated) and makes `outDir` absolute. The registry shape of
 * `capabilities` (`{ global, mcpServers }`) resolves as its array form and the top-level `mcpServers`; its entries are
 * split into file globs and packages (by name, or folders holding a `package.json`); `@agent-spaces/std` is dropped
 * (every space offers it).
 */
export function resolveConfig(config: AgentSpacesConfig, rootDir: string): ResolvedConfig {
  const listed = Array.isArray(config.capabilities) ? config.capabilities : config.capabilities?.global;
  const entries = (listed ?? DEFAULT_CAPABILITIES).filter((entry) => entry !== STD_MODULE);
  const isPackage = (entry: CapabilityEntry) => isPackageEntry(entry) || (typeof entry === 'string' && isPackageFolder(entry, rootDir));
  const mcpServers = mcpServersOf(config);
  return {
    capabilities: entries.filter((entry): entry is string => !isPackage(entry)),
    packages: entries.filter(isPackage).map((entry) => toNpmSource(entry, rootDir)),
    outDir: resolve(rootDir, config.outDir ?? DEFAULT_OUT_DIR),
    mcpServers: mcpServers === undefined ? {} : parseMcpServers(mcpServers),
    openapi: structuredClone(config.openapi ?? []),
    policies: structuredClone(config.policies ?? {}),
    std: structuredClone(config.std ?? {}),
    recordResults: config.recordResults ?? true,
    typecheck: { ...config.typecheck },
    ...(config.userSecrets === undefined ? {} : { userSecrets: resolve(rootDir, config.userSecrets) }),
    ...selfUrls(config.server),
  };
}

/** `{ mcpSelfUrls }` when the config's `server` key tells the URLs of this project's `mcp serve`, else `{}`. */
function selfUrls(server: AgentSpacesConfig['server']): Pick<ResolvedConfig, 'mcpSelfUrls'> {
  const urls = ownServerUrls(server);
  return urls.length > 0 ? { mcpSelfUrls: urls } : {};
}

/** `mcpServers`, at the top level or in the registry shape of `capabilities` (the checks refuse both). */
function mcpServersOf(config: AgentSpacesConfig): McpServers | undefined {
  return config.mcpServers ?? (Array.isArray(config.capabilities) ? undefined : config.capabilities?.mcpServers);
}

/**
 * `configFile` (relative to `cwd`), else the first of {@link CONFIG_FILE_NAMES} in `cwd` or the nearest folder above
 * it that has one, looking no higher than the project root: the first folder holding `.git`, or the filesystem root.
 */
async function findConfigFile({ cwd, configFile }: LoadConfigOptions): Promise<string> {
  if (configFile) {
    if (await exists(resolve(cwd, configFile))) return resolve(cwd, configFile);
    throw new AgentSpacesError('CONFIG_NOT_FOUND', `No config file found in ${cwd} (tried ${configFile})`, { cwd, tried: [configFile] });
  }
  const searched: string[] = [];
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    searched.push(dir);
    for (const name of CONFIG_FILE_NAMES) if (await exists(join(dir, name))) return join(dir, name);
    if (dirname(dir) === dir || (await exists(join(dir, '.git')))) break;
  }
  const where = searched.length === 1 ? cwd : `${cwd} or a folder above it up to ${searched.at(-1)}`;
  throw new AgentSpacesError('CONFIG_NOT_FOUND', `No config file found in ${where} (tried ${CONFIG_FILE_NAMES.join(', ')})`, {
    cwd,
    tried: [...CONFIG_FILE_NAMES],
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

/**
 * `.mjs`/`.js` are imported as they are; TypeScript is bundled (or its bundle taken from the cache, {@link configBundle})
 * to a hidden `.mjs` next to the file, then imported; a cached bundle that fails is bundled anew and imported again.
 */
async function importConfigModule(file: string): Promise<Record<string, unknown>> {
  const ext = extname(file);
  if (ext === '.mjs' || ext === '.js') {
    const namespace: unknown = await import(/* @vite-ignore */ `${pathToFileURL(file).href}?t=${Date.now()}`);
    return namespace as Record<string, unknown>;
  }
  const bundle = await configBundle(file);
  const load = (code: string) => importCode(code, dirname(file), `.${basename(file)}`);
  return bundle.cached ? load(bundle.code).catch(async () => load((await configBundle(file, true)).code)) : load(bundle.code);
}

async function exists(file: string): Promise<boolean> {
  return access(file).then(
    () => true,
    () => false,
  );
}
