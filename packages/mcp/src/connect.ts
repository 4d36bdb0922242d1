import { ChildProcess } from 'node:child_process';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { SSEClientTransport, SseError } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport, type StdioServerParameters } from '@modelcontextprotocol/sdk/client/stdio.js';
import { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';
import { errorText, isStdioServer, type McpRemoteServerConfig, type McpServerConfig, type McpStdioServerConfig } from './config.js';
import { prepareServer, type McpEnvOptions } from './env.js';
import { describeExit, mcpUnavailable, redactError, type McpExit } from './errors.js';

/** Options for connecting to a server: where `${VAR}` come from, the handshake timeout and the client's name. */
export interface ConnectOptions extends McpEnvOptions {
  /** Time allowed for spawn/connect + `initialize` (default 10 000 ms). */
  handshakeTimeoutMs?: number;
  /** Name and version the client announces in `initialize` (default `agent-spaces`). */
  clientInfo?: { name: string; version: string };
  /**
   * Hears each line a stdio server writes to its stderr (unredacted: the caller redacts). Without it the lines are
   * only kept for failure messages; never are they written to this process's streams.
   */
  onStderr?: (server: string, line: string) => void;
}

/** A connected, initialized MCP client and its lifecycle. */
export interface McpConnection {
  readonly server: string;
  readonly client: Client;
  /** Values substituted from `${VAR}` placeholders when connecting (for redaction). */
  readonly secrets: readonly string[];
  /** Never resolves; rejects with `MCP_UNAVAILABLE` (`server_exited`) when the process exits or the connection closes. */
  readonly lost: Promise<never>;
  /** Closes the client and ends the server process. */
  close(): Promise<void>;
}

const STDERR_LINES = 20;
const STDERR_DRAIN_MS = 250;
const DEFAULT_HANDSHAKE_MS = 10_000;

/** A stdio transport that also reports how the process exited and keeps the tail of its stderr. */
class WatchedStdioTransport extends StdioClientTransport {
  /** Resolves once the process has exited and its stderr has drained (or after {@link STDERR_DRAIN_MS}). */
  readonly exited: Promise<McpExit>;
  private readonly lines: string[] = [];
  private partial = '';
  private stderrEnded = false;
  private child: ChildProcess | undefined;
  private resolveExit!: (exit: McpExit) => void;

  constructor(
    params: StdioServerParameters,
    private readonly onLine?: (line: string) => void,
  ) {
    super({ ...params, stderr: 'pipe' });
    this.exited = new Promise((resolve) => (this.resolveExit = resolve));
    this.stderr?.on('data', (chunk: Buffer) => this.collect(chunk.toString('utf8')));
    this.stderr?.on('end', () => (this.stderrEnded = true));
  }

  override async start(): Promise<void> {
    await super.start();
    // The SDK keeps the ChildProcess private; without it we still learn about the exit through `onclose`.
    const child: unknown = Reflect.get(this, '_process');
    if (!(child instanceof ChildProcess)) return;
    this.child = child;
    if (child.exitCode !== null || child.signalCode !== null) this.onExit(child.exitCode, child.signalCode);
    else child.once('exit', (code, signal) => this.onExit(code, signal));
  }

  /** The last lines the process wrote to stderr. */
  stderrTail(): string {
    return [...this.lines, this.partial].filter(Boolean).slice(-STDERR_LINES).join('\n');
  }

  /** Ends the process at once (used when the handshake failed). */
  kill(): void {
    if (this.child && this.child.exitCode === null && this.child.signalCode === null) this.child.kill('SIGKILL');
  }

  private collect(text: string): void {
    const parts = (this.partial + text).split(/\r?\n/);
    this.partial = parts.pop() ?? '';
    this.lines.push(...parts);
    if (this.onLine) for (const line of parts) this.onLine(line);
    if (this.lines.length > STDERR_LINES) this.lines.splice(0, this.lines.length - STDERR_LINES);
  }

  private onExit(exitCode: number | null, signal: NodeJS.Signals | null): void {
    const finish = () => this.resolveExit({ exitCode, signal, stderr: this.stderrTail() });
    if (this.stderrEnded) return finish();
    const timer = setTimeout(finish, STDERR_DRAIN_MS);
    this.stderr?.once('end', () => {
      clearTimeout(timer);
      finish();
    });
  }
}

/**
 * Expands the server's `${VAR}` placeholders (and `${user:NAME}` from `user`, the calling principal's secrets; see
 * `prepareServer`), starts or reaches it and completes the `initialize` handshake.
 * Failures throw `MCP_UNAVAILABLE` naming the server, with `data.reason` (see {@link McpFailureReason}).
 */
export async function connectMcpServer(
  server: string,
  config: McpServerConfig,
  options: ConnectOptions = {},
  user?: ReadonlyMap<string, string>,
): Promise<McpConnection> {
  const { config: expanded, variables } = await prepareServer(server, config, options, user);
  const secrets = [...new Set(variables.values())];
  const timeout = options.handshakeTimeoutMs ?? DEFAULT_HANDSHAKE_MS;
  const client = () => new Client(options.clientInfo ?? { name: 'agent-spaces', version: '0.1.0' }, { capabilities: {} });
  try {
    return await (isStdioServer(expanded)
      ? connectStdio(server, expanded, client(), timeout, secrets, options.onStderr)
      : connectRemote(server, expanded, client, timeout, secrets));
  } catch (error) {
    // Messages and stderr tails end up in build output and logs: never with the expanded secrets in them.
    throw error instanceof AgentSpacesError ? redactError(error, variables) : error;
  }
}

async function connectStdio(
  server: string,
  config: McpStdioServerConfig,
  client: Client,
  timeout: number,
  secrets: string[],
  onStderr: ConnectOptions['onStderr'],
): Promise<McpConnection> {
  const transport = new WatchedStdioTransport(
    {
      command: config.command,
      ...(config.args ? { args: config.args } : {}),
      ...(config.env ? { env: config.env } : {}),
      ...(config.cwd ? { cwd: config.cwd } : {}),
    },
    onStderr && ((line) => onStderr(server, line)),
  );
  const exitedEarly = transport.exited.then((exit): never => {
    throw mcpUnavailable(server, 'exited', `exited during the handshake: ${describeExit(exit)}`, { ...exit });
  });
  exitedEarly.catch(() => undefined);
  try {
    await Promise.race([client.connect(transport, { timeout }), exitedEarly]);
  } catch (error) {
    transport.kill();
    const failure = await stdioFailure(server, config.command, error, transport, timeout);
    await client.close().catch(() => undefined);
    throw failure;
  }
  const lost = new Promise<never>((_, reject) => {
    const exited = (exit: McpExit) => reject(mcpUnavailable(server, 'server_exited', `the server process ${describeExit(exit)}`, { ...exit }));
    transport.exited.then(exited);
    // stdout may close before the exit event: give the exit code a moment to arrive.
    client.onclose = () =>
      void Promise.race([transport.exited, delay(STDERR_DRAIN_MS * 2)]).then((exit) =>
        exit ? exited(exit) : reject(mcpUnavailable(server, 'server_exited', 'the connection to the server closed')),
      );
    // The SDK drops the connection when a message outgrows its read buffer: say that, not that the server went away.
    const onerror = transport.onerror;
    transport.onerror = (error) => {
      if (/ReadBuffer exceeded maximum size/.test(String(error))) reject(messageTooLarge(server));
      onerror?.(error);
    };
  });
  return connection(server, client, secrets, lost, () => client.close());
}

/** `PAYLOAD_TOO_LARGE`: the stdio server sent a message (a tool result) larger than the client reads. */
function messageTooLarge(server: string): AgentSpacesError {
  const limit = STDIO_DEFAULT_MAX_BUFFER_SIZE;
  const message = `MCP server "${server}" sent a message larger than ${limit} bytes, the most its stdio client reads; the connection was closed (the next call starts the server again)`;
  return new AgentSpacesError('PAYLOAD_TOO_LARGE', message, { server, limit, direction: 'result' });
}

async function stdioFailure(
  server: string,
  command: string,
  error: unknown,
  transport: WatchedStdioTransport,
  timeout: number,
): Promise<AgentSpacesError> {
  if (error instanceof AgentSpacesError) return error;
  // spawn errors carry a string errno code (`ENOENT`, `EACCES`); protocol errors carry numbers.
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    const data = { command, errno: error.code };
    return mcpUnavailable(server, 'spawn_failed', `cannot start "${command}": ${errorText(error)}`, data, error);
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return mcpUnavailable(server, 'handshake_timeout', `no answer to initialize within ${timeout} ms`, { timeoutMs: timeout }, error);
  }
  if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
    const exit = await Promise.race([transport.exited, delay(1000)]);
    if (exit) return mcpUnavailable(server, 'exited', `exited during the handshake: ${describeExit(exit)}`, { ...exit }, error);
  }
  return mcpUnavailable(server, 'connect_failed', errorText(error), {}, error);
}

async function connectRemote(
  server: string,
  config: McpRemoteServerConfig,
  newClient: () => Client,
  timeout: number,
  secrets: string[],
): Promise<McpConnection> {
  const url = URL.canParse(config.url) ? new URL(config.url) : undefined;
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
    throw new AgentSpacesError('CONFIG_INVALID', `mcpServers.${server}.url must be an http(s) URL`, { server, field: 'url' });
  }
  const requestInit = config.headers ? { headers: config.headers } : undefined;
  const attempt = async (transport: Transport): Promise<McpConnection> => {
    const client = newClient();
    try {
      await client.connect(transport, { timeout });
    } catch (error) {
      await client.close().catch(() => undefined);
      throw error;
    }
    const lost = new Promise<never>((_, reject) => {
      client.onclose = () => reject(mcpUnavailable(server, 'server_exited', 'the connection to the server closed'));
    });
    return connection(server, client, secrets, lost, () => client.close());
  };
  if (config.type === 'sse') {
    return attempt(new SSEClientTransport(url, { requestInit })).catch((error: unknown) => {
      throw remoteFailure(server, error, timeout);
    });
  }
  try {
    return await attempt(new StreamableHTTPClientTransport(url, { requestInit }));
  } catch (error) {
    // Old servers answer a Streamable HTTP POST with 4xx; the spec's fallback is the HTTP+SSE transport.
    if (config.type === 'http' || httpStatus(error) === undefined || isAuthRefusal(error)) throw remoteFailure(server, error, timeout);
    return attempt(new SSEClientTransport(url, { requestInit })).catch((sseError: unknown) => {
      throw remoteFailure(server, sseError, timeout, error);
    });
  }
}

function remoteFailure(server: string, error: unknown, timeout: number, first?: unknown): AgentSpacesError {
  const status = httpStatus(error);
  if (isAuthRefusal(error)) {
    return mcpUnavailable(server, 'auth_refused', `authorization refused (HTTP ${status ?? 401})`, { status: status ?? 401 }, error);
  }
  if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
    return mcpUnavailable(server, 'handshake_timeout', `no answer to initialize within ${timeout} ms`, { timeoutMs: timeout }, error);
  }
  const detail = first === undefined ? errorText(error) : `Streamable HTTP: ${errorText(first)}; SSE: ${errorText(error)}`;
  return mcpUnavailable(server, 'connect_failed', detail, status === undefined ? {} : { status }, error);
}

/** The 4xx status of a failed HTTP transport start/post, else undefined. */
function httpStatus(error: unknown): number | undefined {
  if (error instanceof StreamableHTTPError || error instanceof SseError) {
    const code = error.code;
    if (typeof code === 'number' && code >= 400 && code < 500) return code;
  }
  return undefined;
}

function isAuthRefusal(error: unknown): boolean {
  const status = httpStatus(error);
  return error instanceof UnauthorizedError || status === 401 || status === 403;
}

function connection(
  server: string,
  client: Client,
  secrets: string[],
  lost: Promise<never>,
  close: () => Promise<void>,
): McpConnection {
  lost.catch(() => undefined);
  return { server, client, secrets, lost, close };
}

function delay(ms: number): Promise<undefined> {
  return new Promise((resolve) => setTimeout(() => resolve(undefined), ms).unref());
}
