import { AgentSpacesError, type McpServers, type UserCredentials } from '@agent-spaces/capabilities';
import { readBuiltMeta } from '@agent-spaces/bridge/output';
import type { McpClientPool, McpEnv } from '@agent-spaces/mcp';

/** A space's MCP client pool and where its servers' configs and `${VAR}` values come from. */
export interface SpaceMcp {
  /** What `loadCapabilities` binds the space's `mcp` capabilities to. */
  readonly pool: McpClientPool;
  /** The server configs in use (placeholders unexpanded), e.g. to redact their `${VAR}` values. */
  readonly servers: McpServers;
  /** What their placeholders expand from: the host environment over `<rootDir>/.env`. */
  readonly env: McpEnv;
  close(): Promise<void>;
}

/** Where {@link createSpaceMcp} takes server configs from. */
export interface SpaceMcpOptions {
  /** Project folder: its config file (and `.mcp.json`) when `mcpServers` is not given, and its `.env`. */
  rootDir: string;
  /** Server configs (placeholders unexpanded); default the project config's. */
  mcpServers?: McpServers;
  /** Hears each line a server writes to stderr, with the id of the capability calling it and `mcp server <name>`. */
  onOutput?: (capability: string, source: string, line: string) => void;
  /** Where `${user:NAME}` of the servers' configs resolve: each principal gets its own connection of such a server. */
  userSecrets?: UserCredentials;
}

/**
 * The MCP pool of a space whose built capabilities `ids` include `mcp` ones, else undefined (and the MCP SDK is
 * never loaded). Each server those capabilities call must be configured: `CONFIG_INVALID` names the one missing.
 */
export async function createSpaceMcp(capabilitiesDir: string, ids: readonly string[], options: SpaceMcpOptions): Promise<SpaceMcp | undefined> {
  const needed = new Map<string, string>();
  for (const id of ids) {
    const server = mcpServerOf(capabilitiesDir, id);
    if (server !== undefined) needed.set(server, id);
  }
  if (needed.size === 0) return undefined;

  const servers = options.mcpServers ?? (await projectServers(options.rootDir));
  for (const [server, id] of needed) {
    if (!Object.hasOwn(servers, server)) {
      const where = options.mcpServers ? 'the mcpServers option of createSpace' : `the project config in ${options.rootDir}`;
      throw new AgentSpacesError('CONFIG_INVALID', `Capability '${id}' calls MCP server "${server}", which is not in ${where}`, {
        id,
        server,
      });
    }
  }
  const { McpClientPool, loadMcpEnv } = await import('@agent-spaces/mcp');
  const { onOutput } = options;
  const pool = new McpClientPool(servers, {
    projectRoot: options.rootDir,
    ...(options.userSecrets ? { userSecrets: options.userSecrets } : {}),
    ...(onOutput ? { onStderr: (server: string, line: string) => onOutput(needed.get(server) ?? server, `mcp server ${server}`, line) } : {}),
  });
  const env = await loadMcpEnv({ projectRoot: options.rootDir });
  return {
    pool,
    servers,
    env,
    close: () => pool.close(),
  };
}

/** The MCP server a built capability calls, from its `meta.json` (undefined for other executors). */
function mcpServerOf(capabilitiesDir: string, id: string): string | undefined {
  let executor;
  try {
    ({ executor } = readBuiltMeta(capabilitiesDir, id));
  } catch {
    return undefined; // loadCapabilities reports the missing or corrupt file, naming it
  }
  return executor.kind === 'mcp' ? executor.server : undefined;
}

async function projectServers(rootDir: string): Promise<McpServers> {
  const { loadConfig } = await import('@agent-spaces/compiler');
  return (await loadConfig({ cwd: rootDir })).config.mcpServers;
}
