import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { AgentSpacesError, type McpServers } from '@agent-spaces/capabilities';
import type { McpBinding } from '@agent-spaces/bridge';
import type { McpEnv, McpProgress } from '@agent-spaces/mcp';

/** A space's MCP client pool, and the routing of each call's progress notifications to its run. */
export interface SpaceMcp {
  /** What `loadCapabilities` binds the space's `mcp` capabilities to. */
  readonly binding: McpBinding;
  /** The server configs in use (placeholders unexpanded), e.g. to redact their `${VAR}` values. */
  readonly servers: McpServers;
  /** What their placeholders expand from: the host environment over `<rootDir>/.env`. */
  readonly env: McpEnv;
  /**
   * A signal of its own for one call (aborted with the run's), under which the call's progress goes to `report`:
   * the executor sees it as `context.signal`. Call `done()` when the call has finished.
   */
  track(signal: AbortSignal, report: (progress: McpProgress) => void): { signal: AbortSignal; done(): void };
  close(): Promise<void>;
}

/** Where {@link createSpaceMcp} takes server configs from. */
export interface SpaceMcpOptions {
  /** Project folder: its config file (and `.mcp.json`) when `mcpServers` is not given, and its `.env`. */
  rootDir: string;
  /** Server configs (placeholders unexpanded); default the project config's. */
  mcpServers?: McpServers;
}

/**
 * The MCP pool of a space whose built capabilities `ids` include `mcp` ones, else undefined (and the MCP SDK is
 * never loaded). Each server those capabilities call must be configured: `CONFIG_INVALID` names the one missing.
 */
export async function createSpaceMcp(capabilitiesDir: string, ids: readonly string[], options: SpaceMcpOptions): Promise<SpaceMcp | undefined> {
  const needed = new Map<string, string>();
  for (const id of ids) {
    const server = mcpServerOf(join(capabilitiesDir, id, 'meta.json'));
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
  const pool = new McpClientPool(servers, { projectRoot: options.rootDir });
  const env = await loadMcpEnv({ projectRoot: options.rootDir });
  const reports = new WeakMap<AbortSignal, (progress: McpProgress) => void>();
  return {
    binding: { pool, onProgress: (progress, context) => reports.get(context.signal)?.(progress) },
    servers,
    env,
    track(signal, report) {
      // A controller and a listener cost ~1 µs; AbortSignal.any() ~10 µs per call.
      const own = new AbortController();
      const abort = () => own.abort(signal.reason);
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
      reports.set(own.signal, report);
      return { signal: own.signal, done: () => signal.removeEventListener('abort', abort) };
    },
    close: () => pool.close(),
  };
}

/** The MCP server a built capability calls, from its `meta.json` (undefined for other executors). */
function mcpServerOf(metaFile: string): string | undefined {
  let meta: unknown;
  try {
    meta = JSON.parse(readFileSync(metaFile, 'utf8'));
  } catch {
    return undefined; // loadCapabilities reports the missing or corrupt file, naming it
  }
  const executor = (meta as { executor?: { kind?: unknown; server?: unknown } } | null)?.executor;
  return executor?.kind === 'mcp' && typeof executor.server === 'string' ? executor.server : undefined;
}

async function projectServers(rootDir: string): Promise<McpServers> {
  const { loadConfig } = await import('@agent-spaces/compiler');
  return (await loadConfig({ cwd: rootDir })).config.mcpServers;
}
