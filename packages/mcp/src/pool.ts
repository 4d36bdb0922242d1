import { AgentSpacesError, isAgentSpacesError, type ProgressUpdate } from '@agent-spaces/capabilities';
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

/** Options of a {@link McpClientPool}: how servers are connected, and the default per-call timeout. */
export interface McpPoolOptions extends ConnectOptions {
  /** Per-call timeout when a call gives none (default 60 000 ms). */
  callTimeoutMs?: number;
}

/** Per-call options. */
export interface McpCallOptions {
  /** Aborting it cancels the request (the server gets `notifications/cancelled`) and rejects with `ABORTED`. */
  signal?: AbortSignal;
  /** Rejects with `TIMEOUT` (and cancels the request) after this many ms. */
  timeoutMs?: number;
  /** Receives the server's progress notifications for this call (and, for a task, its new status messages). */
  onProgress?: (progress: ProgressUpdate) => void;
  /**
   * Calls the tool as an MCP task (`tools/call` with `task`, polled with `tasks/get` until it ends, then `tasks/result`);
   * `timeoutMs` bounds the whole wait, and an abort or a timeout sends the task `tasks/cancel`. Only `callTool` reads it.
   */
  task?: boolean;
}

interface Entry {
  connection: McpConnection;
  tools: Map<string, McpTool>;
  toolsHash: string;
  /** Rejecters of the calls in flight, failed at once when the connection is lost. */
  inflight: Set<(error: unknown) => void>;
  /** Set when the connection is lost (the entry is being evicted). */
  lostError?: unknown;
}

const DEFAULT_CALL_TIMEOUT_MS = 60_000;

/**
 * One MCP client per server, connected lazily on first use and reused across runs. A server whose process
 * exits fails its in-flight calls with `MCP_UNAVAILABLE` (`data.reason: 'server_exited'`) and is started again
 * by the next call. Tool errors (`isError: true`) and JSON-RPC errors reject with `HANDLER_ERROR`.
 */
export class McpClientPool {
  private readonly entries = new Map<string, Promise<Entry>>();
  private readonly secretValues = new Set<string>();
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

  /** The tool `name` as the connected server lists it, or undefined. */
  async tool(server: string, name: string): Promise<McpTool | undefined> {
    return (await this.entry(server)).tools.get(name);
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
  async toolsHash(server: string): Promise<string> {
    return (await this.entry(server)).toolsHash;
  }

  /** Throws `CAPABILITY_STALE` (telling the user to rebuild) when the server's tools differ from the build's. */
  async checkStale(server: string, expectedHash: string): Promise<void> {
    const actualHash = await this.toolsHash(server);
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
    const entries = [...this.entries.values()];
    this.entries.clear();
    await Promise.all(entries.map((entry) => entry.then((e) => e.connection.close(), () => undefined).catch(() => undefined)));
  }

  /** Same as {@link close}, for `await using`. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  private entry(server: string): Promise<Entry> {
    if (this.closed) return Promise.reject(mcpUnavailable(server, 'pool_closed', 'the MCP client pool is closed'));
    const existing = this.entries.get(server);
    if (existing) return existing;
    const config = this.servers[server];
    if (!config) {
      return Promise.reject(new AgentSpacesError('CAPABILITY_NOT_FOUND', `no MCP server "${server}" in mcpServers`, { server }));
    }
    const pending = this.connect(server, config);
    this.entries.set(server, pending);
    pending.catch(() => {
      if (this.entries.get(server) === pending) this.entries.delete(server);
    });
    return pending;
  }

  private async connect(server: string, config: McpServers[string]): Promise<Entry> {
    const connection = await connectMcpServer(server, config, this.options);
    for (const secret of connection.secrets) this.secretValues.add(secret);
    let entry: Entry | undefined;
    connection.lost.catch((error: unknown) => {
      if (entry) {
        entry.lostError = error;
        for (const fail of entry.inflight) fail(error);
      }
      this.evict(server, connection);
    });
    try {
      const tools = await listAllTools(connection.client);
      entry = { connection, tools: toolMap(tools), toolsHash: hashTools(tools), inflight: new Set() };
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
    const entry = await this.entry(server);
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
      if (failure.code === 'MCP_UNAVAILABLE') this.evict(server, connection);
      throw failure;
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }

  /** Drops a dead connection so the next call connects again. */
  private evict(server: string, connection: McpConnection): void {
    void this.entries.get(server)?.then(
      (entry) => {
        if (entry.connection === connection) this.entries.delete(server);
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
