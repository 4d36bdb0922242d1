import { createHash } from 'node:crypto';
import { AgentSpacesError, isAgentSpacesError, isRecord } from '@agent-spaces/capabilities';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { Implementation, Prompt, Resource, Tool } from '@modelcontextprotocol/sdk/types.js';
import { errorText, type McpServerConfig, type McpServers } from './config.js';
import { connectMcpServer, type ConnectOptions } from './connect.js';
import { mcpUnavailable } from './errors.js';

/** A tool as the server lists it (`name`, `inputSchema`, optional `outputSchema`, `annotations`, …). */
export type McpTool = Tool;
/** A resource as the server lists it (`uri`, `name`, optional `mimeType`, …). */
export type McpResource = Resource;
/** A prompt as the server lists it (`name`, optional `arguments`). */
export type McpPrompt = Prompt;

/** What a server offers, as found at build time. Holds no config values (the config's secrets never get here). */
export interface McpDiscovery {
  /** The server's name in `mcpServers`. */
  server: string;
  /** `serverInfo` from `initialize`. */
  serverInfo: Implementation;
  instructions?: string;
  /** Every tool, all `tools/list` pages, in the server's order. */
  tools: McpTool[];
  /** Every resource, when the server advertises the resources capability. */
  resources?: McpResource[];
  /** Every prompt, when the server advertises the prompts capability. */
  prompts?: McpPrompt[];
  /** {@link hashTools} of `tools`: the build records it, a run compares it to detect a changed server. */
  toolsHash: string;
}

/** The outcome of discovering one server of {@link discoverAll}. */
export type McpDiscoveryOutcome =
  | { server: string; ok: true; discovery: McpDiscovery }
  | { server: string; ok: false; error: AgentSpacesError };

const MAX_PAGES = 1000;

/**
 * Connects to one server, completes `initialize`, pages through `tools/list` (and resources and prompts when
 * advertised) and disconnects. Throws `MCP_UNAVAILABLE` naming the server, with `data.reason`.
 */
export async function discover(server: string, config: McpServerConfig, options: ConnectOptions = {}): Promise<McpDiscovery> {
  const connection = await connectMcpServer(server, config, options);
  try {
    const { client } = connection;
    const capabilities = client.getServerCapabilities() ?? {};
    const tools = await listAllTools(client);
    const resources = capabilities.resources ? await listAllResources(client) : undefined;
    const prompts = capabilities.prompts
      ? await listAll(async (params) => {
          const page = await client.listPrompts(params);
          return { items: page.prompts, nextCursor: page.nextCursor };
        })
      : undefined;
    const instructions = client.getInstructions();
    return {
      server,
      serverInfo: client.getServerVersion() ?? { name: server, version: '0.0.0' },
      ...(instructions ? { instructions } : {}),
      tools,
      ...(resources ? { resources } : {}),
      ...(prompts ? { prompts } : {}),
      toolsHash: hashTools(tools),
    };
  } catch (error) {
    if (isAgentSpacesError(error)) throw error;
    throw mcpUnavailable(server, 'connect_failed', `listing failed: ${errorText(error)}`, {}, error);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/**
 * Discovers every server in parallel; one failing never stops the others. Returns one outcome per server, in
 * the order of `servers`.
 */
export async function discoverAll(servers: McpServers, options: ConnectOptions = {}): Promise<McpDiscoveryOutcome[]> {
  return Promise.all(
    Object.entries(servers).map(async ([server, config]): Promise<McpDiscoveryOutcome> => {
      try {
        return { server, ok: true, discovery: await discover(server, config, options) };
      } catch (error) {
        const failure = error instanceof AgentSpacesError ? error : mcpUnavailable(server, 'connect_failed', errorText(error), {}, error);
        return { server, ok: false, error: failure };
      }
    }),
  );
}

/** Every tool of a connected client, following `nextCursor` to the last page. */
export function listAllTools(client: Client): Promise<McpTool[]> {
  return listAll(async (params) => {
    const page = await client.listTools(params);
    return { items: page.tools, nextCursor: page.nextCursor };
  });
}

/** Every resource of a connected client, following `nextCursor` to the last page. */
export function listAllResources(client: Client, options?: RequestOptions): Promise<McpResource[]> {
  return listAll(async (params) => {
    const page = await client.listResources(params, options);
    return { items: page.resources, nextCursor: page.nextCursor };
  });
}

async function listAll<T>(list: (params: { cursor: string } | undefined) => Promise<{ items: T[]; nextCursor?: string | undefined }>): Promise<T[]> {
  const items: T[] = [];
  const seen = new Set<string>();
  let cursor: string | undefined;
  for (let page = 0; page < MAX_PAGES; page++) {
    const result = await list(cursor === undefined ? undefined : { cursor });
    items.push(...result.items);
    cursor = result.nextCursor;
    if (cursor === undefined || seen.has(cursor)) break;
    seen.add(cursor);
  }
  return items;
}

/** sha256 (hex) of the canonical JSON (sorted keys, tools sorted by name) of a tool list. */
export function hashTools(tools: readonly McpTool[]): string {
  const sorted = [...tools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return createHash('sha256').update(canonicalJson(sorted)).digest('hex');
}

/** JSON with object keys sorted at every level, so equal values always give the same text. */
function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map((item) => canonicalJson(item ?? null)).join(',')}]`;
  if (isRecord(value)) {
    const entries = Object.keys(value)
      .filter((key) => value[key] !== undefined)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key])}`);
    return `{${entries.join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
