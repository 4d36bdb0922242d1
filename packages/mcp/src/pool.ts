import { createHash } from 'node:crypto';
import {
  AgentSpacesError,
  LOCAL_PRINCIPAL,
  UserCredentials,
  isAgentSpacesError,
  userPlaceholderNames,
  type Principal,
  type ProgressUpdate,
} from '@agent-spaces/capabilities';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
  ErrorCode,
  McpError,
  ToolListChangedNotificationSchema,
  type CallToolResult,
  type GetPromptResult,
  type ReadResourceResult,
} from '@modelcontextprotocol/sdk/types.js';
import { errorText, type McpServers } from './config.js';
import { connectMcpServer, type ConnectOptions, type McpConnection } from './connect.js';
import { hashTools, listAllResources, listAllTools, type McpResource, type McpTool } from './discover.js';
import { mcpUnavailable } from './errors.js';
import { toToolResult } from './result.js';
import { callToolTask, type TaskRequestOptions } from './task.js';

/**
 * Options of a {@link McpClientPool}: how servers are connected, the default per-call timeout, and the per-user
 * connections of servers whose config holds `${user:NAME}`.
 */
export interface McpPoolOptions extends ConnectOptions {
  /** Per-call timeout when a call gives none (default 60 000 ms). */
  callTimeoutMs?: number;
  /** Where `${user:NAME}` values come from (default: nowhere, every call of such a server fails `CREDENTIAL_MISSING`). */
  userSecrets?: UserCredentials;
  /** A per-user connection unused this long is closed (default 300 000 ms: 5 minutes). */
  userIdleTimeoutMs?: number;
  /** At most this many per-user connections are open at once, all servers together (default 64). */
  maxUserConnections?: number;
}

/** Per-call options. */
export interface McpCallOptions {
  /** Aborting it cancels the request (the server gets `notifications/cancelled`) and rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Rejects with `TIMEOUT` (and cancels the request) after this many ms. */
  timeoutMs?: number;
  /** Receives the server's progress notifications for this call (and, for a task, its new status messages). */
  onProgress?: (progress: ProgressUpdate) => void;
  /** Who the call is for: a server whose config holds `${user:NAME}` is reached with this principal's own secrets. */
  principal?: Principal | undefined;
  /**
   * Calls the tool as an MCP task (`tools/call` with `task`, polled with `tasks/get` until it ends, then `tasks/result`);
   * `timeoutMs` bounds the whole wait, and an abort or a timeout sends the task `tasks/cancel`. Only `callTool` reads it.
   */
  task?: boolean;
}

interface Entry {
  /** Its key in the pool: the server's name, or the server's name and the principal's id for a per-user connection. */
  key: string;
  connection: McpConnection;
  tools: Map<string, McpTool>;
  toolsHash: string;
  /** Rejecters of the calls in flight, failed at once when the connection is lost. */
  inflight: Set<(error: unknown) => void>;
  /** Set when the connection is lost (the entry is being evicted). */
  lostError?: unknown;
}

/** One connection of the pool, being made or made. */
interface Slot {
  pending: Promise<Entry>;
  /** Set once connected. */
  entry?: Entry;
  /** Hash of the per-user secrets it was made with; undefined for a server's one shared connection. */
  fingerprint?: string;
  lastUsed: number;
}

const DEFAULT_CALL_TIMEOUT_MS = 60_000;
const DEFAULT_USER_IDLE_MS = 300_000;
const DEFAULT_MAX_USER_CONNECTIONS = 64;

/**
 * One MCP client per server, connected lazily on first use and reused across runs. A server whose process
 * exits fails its in-flight calls with `MCP_UNAVAILABLE` (`data.reason: 'server_exited'`) and is started again
 * by the next call. Tool errors (`isError: true`) and JSON-RPC errors reject with `HANDLER_ERROR`.
 *
 * A server whose config holds `${user:NAME}` gets one client per principal instead (`options.principal` of each call),
 * made with that principal's secrets on its first call: a principal without them fails `CREDENTIAL_MISSING` before
 * anything is sent. Secrets are resolved again on every call; when they changed, the principal's connection is closed
 * (calls in flight on it fail) and made again. Per-user connections idle for `userIdleTimeoutMs` are closed; past
 * `maxUserConnections` the least recently used idle one is, and with none idle the call fails `MCP_UNAVAILABLE`
 * (`data.reason: 'connection_limit'`).
 */
export class McpClientPool {
  private readonly entries = new Map<string, Slot>();
  private readonly secretValues = new Set<string>();
  private readonly userNames = new Map<string, string[]>();
  private sweeper: NodeJS.Timeout | undefined;
  private closed = false;

  constructor(
    private readonly servers: McpServers,
    private readonly options: McpPoolOptions = {},
  ) {}

  /** Calls a tool; resolves to the server's result (`content`, optional `structuredContent`). */
  async callTool(server: string, tool: string, args: Record<string, unknown> = {}, options: McpCallOptions = {}): Promise<CallToolResult> {
    const result = await this.request(server, tool, options, (client, requestOptions) =>
      options.task
        ? callToolTask(client, { server, tool, args }, requestOptions)
        : client.callTool({ name: tool, arguments: args }, undefined, requestOptions),
    );
    if (!('content' in result)) {
      throw new AgentSpacesError('HANDLER_ERROR', `MCP tool "${tool}" of "${server}" returned no content`, { server, tool });
    }
    const toolResult = result as CallToolResult;
    if (toolResult.isError) {
      const { text } = toToolResult(toolResult);
      throw new AgentSpacesError('HANDLER_ERROR', `MCP tool "${tool}" of "${server}" failed: ${text || 'no message'}`, {
        server,
        tool,
        content: toolResult.content,
      });
    }
    return toolResult;
  }

  /** The tool `name` as the connected server lists it (to `principal`, for a per-user server), or undefined. */
  async tool(server: string, name: string, principal?: Principal): Promise<McpTool | undefined> {
    return (await this.entry(server, principal)).tools.get(name);
  }

  /** Every resource of the server (all pages). */
  async listResources(server: string, options: McpCallOptions = {}): Promise<McpResource[]> {
    return this.request(server, 'resources/list', options, (client, requestOptions) => listAllResources(client, requestOptions));
  }

  /** Reads one resource; resolves to its contents (`{ uri, mimeType?, text | blob }[]`). */
  async readResource(server: string, uri: string, options: McpCallOptions = {}): Promise<ReadResourceResult['contents']> {
    const result = await this.request(server, 'resources/read', options, (client, requestOptions) =>
      client.readResource({ uri }, requestOptions),
    );
    return result.contents;
  }

  /** Gets prompt `name` filled with `args`; resolves to `{ description?, messages }`. */
  async getPrompt(server: string, name: string, args: Record<string, string> = {}, options: McpCallOptions = {}): Promise<GetPromptResult> {
    return this.request(server, `prompts/get ${name}`, options, (client, requestOptions) =>
      client.getPrompt({ name, arguments: args }, requestOptions),
    );
  }

  /** Hash of the server's current tool list (kept up to date on `tools/list_changed`), as recorded at build. */
  async toolsHash(server: string, principal?: Principal): Promise<string> {
    return (await this.entry(server, principal)).toolsHash;
  }

  /** Throws `CAPABILITY_STALE` (telling the user to rebuild) when the server's tools differ from the build's. */
  async checkStale(server: string, expectedHash: string, principal?: Principal): Promise<void> {
    const actualHash = await this.toolsHash(server, principal);
    if (actualHash !== expectedHash) {
      throw new AgentSpacesError(
        'CAPABILITY_STALE',
        `MCP server "${server}" changed its tools since its capability was built: run \`agent-spaces capabilities build\``,
        { server, expectedHash, actualHash },
      );
    }
  }

  /** Values substituted from `${VAR}` placeholders by every connection so far, for redaction. */
  secrets(): string[] {
    return [...this.secretValues];
  }

  /** Closes every client and ends every server process. Later calls reject with `pool_closed`. */
  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.sweeper);
    const slots = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(slots.map((slot) => slot.pending.then((e) => e.connection.close(), () => undefined).catch(() => undefined)));
  }

  /** Same as {@link close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private async entry(server: string, principal: Principal | undefined): Promise<Entry> {
    if (this.closed) throw mcpUnavailable(server, 'pool_closed', 'the MCP client pool is closed');
    const config = this.servers[server];
    if (!config) throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `no MCP server "${server}" in mcpServers`, { server });
    const names = this.userNamesOf(server, config);
    if (names.length === 0) return this.slot(server, server, config).pending;
    const credentials = this.options.userSecrets ?? new UserCredentials(undefined);
    const who = principal ?? LOCAL_PRINCIPAL;
    const values = await credentials.resolve(who, names, `MCP server "${server}"`);
    if (this.closed) throw mcpUnavailable(server, 'pool_closed', 'the MCP client pool is closed');
    const key = `${server}\u0000${who.id}`;
    const fingerprint = createHash('sha256').update(JSON.stringify([...values])).digest('hex');
    const existing = this.entries.get(key);
    if (existing && existing.fingerprint !== fingerprint) this.drop(key, existing);
    else if (!existing) this.makeRoom(server);
    return this.slot(key, server, config, values, fingerprint).pending;
  }

  /** The slot of `key`, made (and its connection started) when there is none. */
  private slot(key: string, server: string, config: McpServers[string], user?: ReadonlyMap<string, string>, fingerprint?: string): Slot {
    const existing = this.entries.get(key);
    if (existing) {
      existing.lastUsed = Date.now();
      return existing;
    }
    const pending = this.connect(key, server, config, user);
    const slot: Slot = { pending, lastUsed: Date.now(), ...(fingerprint === undefined ? {} : { fingerprint }) };
    this.entries.set(key, slot);
    pending.then(
      (entry) => (slot.entry = entry),
      () => {
        if (this.entries.get(key) === slot) this.entries.delete(key);
      },
    );
    if (fingerprint !== undefined) this.startSweeper();
    return slot;
  }

  /** The `${user:NAME}` names of a server's config (none: one shared connection). */
  private userNamesOf(server: string, config: McpServers[string]): string[] {
    let names = this.userNames.get(server);
    if (!names) this.userNames.set(server, (names = userPlaceholderNames(config)));
    return names;
  }

  /** Closes the least recently used idle per-user connection when `maxUserConnections` are open. */
  private makeRoom(server: string): void {
    const max = this.options.maxUserConnections ?? DEFAULT_MAX_USER_CONNECTIONS;
    const perUser = [...this.entries].filter(([, slot]) => slot.fingerprint !== undefined);
    if (perUser.length < max) return;
    const idle = perUser.filter(([, slot]) => slot.entry?.inflight.size === 0).sort(([, a], [, b]) => a.lastUsed - b.lastUsed)[0];
    if (!idle) {
      throw mcpUnavailable(server, 'connection_limit', `all ${max} per-user connections are busy (maxUserConnections)`, { max });
    }
    this.drop(...idle);
  }

  /** Every so often, closes the per-user connections idle for longer than `userIdleTimeoutMs`. */
  private startSweeper(): void {
    if (this.sweeper) return;
    const idleMs = this.options.userIdleTimeoutMs ?? DEFAULT_USER_IDLE_MS;
    this.sweeper = setInterval(() => {
      for (const [key, slot] of this.entries) {
        if (slot.fingerprint !== undefined && slot.entry?.inflight.size === 0 && Date.now() - slot.lastUsed > idleMs) this.drop(key, slot);
      }
    }, Math.max(10, Math.min(idleMs / 2, 30_000)));
    this.sweeper.unref();
  }

  /** Removes a slot and closes its connection (once made). */
  private drop(key: string, slot: Slot): void {
    if (this.entries.get(key) === slot) this.entries.delete(key);
    slot.pending.then((entry) => entry.connection.close(), () => undefined).catch(() => undefined);
  }

  private async connect(key: string, server: string, config: McpServers[string], user?: ReadonlyMap<string, string>): Promise<Entry> {
    const connection = await connectMcpServer(server, config, this.options, user);
    for (const secret of connection.secrets) this.secretValues.add(secret);
    let entry: Entry | undefined;
    connection.lost.catch((error: unknown) => {
      if (entry) {
        entry.lostError = error;
        for (const fail of entry.inflight) fail(error);
      }
      this.evict(key, connection);
    });
    try {
      const tools = await listAllTools(connection.client);
      entry = { key, connection, tools: toolMap(tools), toolsHash: hashTools(tools), inflight: new Set() };
      const current = entry;
      connection.client.setNotificationHandler(ToolListChangedNotificationSchema, async () => {
        const fresh = await listAllTools(connection.client);
        current.tools = toolMap(fresh);
        current.toolsHash = hashTools(fresh);
      });
      return entry;
    } catch (error) {
      await connection.close().catch(() => undefined);
      throw isAgentSpacesError(error) ? error : mcpUnavailable(server, 'connect_failed', `tools/list failed: ${errorText(error)}`, {}, error);
    }
  }

  private async request<T>(
    server: string,
    what: string,
    options: McpCallOptions,
    send: (client: Client, requestOptions: TaskRequestOptions) => Promise<T>,
  ): Promise<T> {
    const entry = await this.entry(server, options.principal);
    const { connection } = entry;
    const timeoutMs = options.timeoutMs ?? this.options.callTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS;
    const { signal, onProgress } = options;
    // The SDK never removes its abort listener, and one run's signal serves many calls: give it a signal per call.
    const perCall = signal ? new AbortController() : undefined;
    const forward = () => perCall?.abort(signal?.reason);
    if (signal?.aborted) forward();
    else signal?.addEventListener('abort', forward, { once: true });
    const requestOptions: TaskRequestOptions = {
      timeout: timeoutMs,
      ...(perCall ? { signal: perCall.signal } : {}),
      ...(onProgress ? { onprogress: (p: ProgressUpdate) => onProgress({ ...p }) } : {}),
    };
    try {
      // Not Promise.race with `connection.lost`: every race would leave a reaction (holding its result) on a promise
      // that never settles while the server lives.
      return await new Promise<T>((resolve, reject) => {
        if (entry.lostError !== undefined) return reject(entry.lostError);
        entry.inflight.add(reject);
        send(connection.client, requestOptions).then(resolve, reject).finally(() => entry.inflight.delete(reject));
      });
    } catch (error) {
      const failure = callFailure(server, what, error, signal, timeoutMs);
      if (failure.code === 'MCP_UNAVAILABLE') this.evict(entry.key, connection);
      throw failure;
    } finally {
      signal?.removeEventListener('abort', forward);
      const slot = this.entries.get(entry.key);
      if (slot) slot.lastUsed = Date.now();
    }
  }

  /** Drops a dead connection so the next call connects again. */
  private evict(key: string, connection: McpConnection): void {
    const slot = this.entries.get(key);
    void slot?.pending.then(
      (entry) => {
        if (entry.connection === connection && this.entries.get(key) === slot) this.entries.delete(key);
      },
      () => undefined,
    );
    connection.close().catch(() => undefined);
  }
}

function toolMap(tools: McpTool[]): Map<string, McpTool> {
  return new Map(tools.map((tool) => [tool.name, tool]));
}

function callFailure(server: string, what: string, error: unknown, signal: AbortSignal | undefined, timeoutMs: number): AgentSpacesError {
  const data = { server, call: what };
  if (isAgentSpacesError(error)) return new AgentSpacesError(error.code, error.message, { ...error.data, ...data }, { cause: error });
  if (signal?.aborted) return new AgentSpacesError('ABORTED', `MCP call ${what} of "${server}" was aborted`, data, { cause: error });
  if (error instanceof McpError) {
    if (error.code === ErrorCode.RequestTimeout) {
      return new AgentSpacesError('TIMEOUT', `MCP call ${what} of "${server}" timed out after ${timeoutMs} ms`, { ...data, timeoutMs }, { cause: error });
    }
    if (error.code === ErrorCode.ConnectionClosed) {
      return mcpUnavailable(server, 'server_exited', `the connection closed during ${what}`, { call: what }, error);
    }
    return new AgentSpacesError('HANDLER_ERROR', `MCP call ${what} of "${server}" failed: ${error.message}`, { ...data, mcpCode: error.code }, { cause: error });
  }
  if (error instanceof TypeError) {
    // fetch failures of remote servers: the server is gone (the next call reconnects).
    return mcpUnavailable(server, 'connect_failed', `${what}: ${errorText(error)}`, { call: what }, error);
  }
  return new AgentSpacesError('HANDLER_ERROR', `MCP call ${what} of "${server}" failed: ${errorText(error)}`, data, { cause: error });
}
