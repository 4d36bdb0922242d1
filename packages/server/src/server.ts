import { resolve } from 'node:path';
import { AgentSpacesError, toWireError } from '@agent-spaces/capabilities';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { ArgumentsValidator } from './args.js';
import { parseServerConfig, type HeadlessMode, type SpaceDefinition } from './config.js';
import { Connection, type HostState, type SharedSpaceOptions } from './connection.js';
import { firstCapabilityEntries } from './catalog.js';
import { codeInstructions } from './inject.js';
import { getPrompt, listPrompts } from './prompts.js';
import { toolError } from './results.js';
import { SessionStore } from './sessions.js';
import { codeTools } from './tools/code.js';
import { sessionTools } from './tools/sessions.js';
import { spaceTools } from './tools/spaces.js';
import type { ToolContext, ToolSpec } from './tools/types.js';
import { userToolSpec } from './tools/user.js';

/** Version reported in `serverInfo` when the space has none. */
export const SERVER_VERSION = '0.1.0';

/** Options of {@link createCodeModeHost} and {@link createCodeModeServer}. */
export interface CodeModeServerOptions {
  /** The spaces offered (at least one); the first is the default of every `spaceId` argument. */
  spaces: SpaceDefinition[];
  /** Default: the space's `name` / `version` when there is one space, else `agent-spaces`. */
  serverInfo?: { name: string; version: string };
  /** Idle timeout of sessions in seconds (default 3600). */
  timeoutSeconds?: number;
  /** Most sessions alive at once across all clients; one more evicts the least recently used (default 32). */
  maxSessions?: number;
  /** What approvals do when the client cannot be asked through elicitation (default `deny`). */
  headlessMode?: HeadlessMode;
  /** How long an elicitation waits for the person, in seconds (default 600). */
  approvalTimeoutSeconds?: number;
  /** `createSpace()` options of every space: `rootDir`, `outDir`, `handlers`, `limits`, `policy`, … */
  space?: SharedSpaceOptions;
}

/** Counts of what a code-mode server holds open; the body of the HTTP `/health` endpoint besides `status`. */
export interface ServerStats {
  /** MCP client connections. */
  connections: number;
  /** Sessions of every client. */
  sessions: number;
  /** Spaces created and not closed (one per client and space used, on first use); each holds a sandbox. */
  sandboxes: number;
}

/** One code-mode server's shared state (spaces, sessions) that hands out one MCP `Server` per client connection. */
export interface CodeModeHost {
  /** A new MCP server for one client connection; closing it ends that client's sessions and spaces. */
  createServer(): Server;
  /** How many client connections, sessions and sandboxes are open now. */
  stats(): ServerStats;
  /** Closes every connection's server, session and space. */
  close(): Promise<void>;
}

/**
 * Creates the shared state of a code-mode MCP server. Throws `CONFIG_INVALID` for invalid spaces or settings.
 * @example
 * const host = createCodeModeHost({ spaces: [{ id: 'trains', name: 'Trains' }] });
 * await host.createServer().connect(new StdioServerTransport());
 */
export function createCodeModeHost(options: CodeModeServerOptions): CodeModeHost {
  const where = 'createCodeModeServer options';
  const { spaces, server: settings } = parseServerConfig(
    {
      spaces: options.spaces,
      server: { timeoutSeconds: options.timeoutSeconds, maxSessions: options.maxSessions, headlessMode: options.headlessMode },
    },
    where,
  );
  if (spaces.length === 0) throw new AgentSpacesError('CONFIG_INVALID', `${where}: spaces must hold at least one space`, { key: 'spaces' });
  const state: HostState = {
    spaces,
    sessions: new SessionStore({ idleTimeoutMs: (settings.timeoutSeconds ?? 3600) * 1000, maxSessions: settings.maxSessions ?? 32 }),
    headlessMode: settings.headlessMode ?? 'deny',
    approvalTimeoutMs: (options.approvalTimeoutSeconds ?? 600) * 1000,
    spaceOptions: options.space ?? {},
    baseDir: resolve(options.space?.rootDir ?? process.cwd()),
    validator: new ArgumentsValidator(),
    catalogs: new Map(),
  };
  const ids = spaces.map((s) => s.id);
  const specs: ToolSpec[] = [
    ...codeTools(ids),
    ...sessionTools(ids),
    ...spaceTools(ids),
    ...spaces.flatMap((space) => (space.tools ?? []).map((tool) => userToolSpec(space, tool, state.baseDir))),
  ];
  const info = options.serverInfo ?? serverInfo(spaces);
  const instructions = serverInstructions(spaces, state.spaceOptions);
  const connections = new Set<Connection>();
  let closed = false;

  return {
    createServer() {
      if (closed) throw new AgentSpacesError('SPACE_CLOSED', 'The code-mode server is closed');
      const server = new Server(info, { capabilities: { tools: {}, prompts: {} }, instructions });
      const connection = new Connection(state, server);
      connections.add(connection);
      server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: specs.map(toolListing) }));
      server.setRequestHandler(CallToolRequestSchema, (request, extra) =>
        callTool(specs, request.params.name, request.params.arguments, { connection, signal: extra.signal }, extra.requestId),
      );
      server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: listPrompts(spaces) }));
      server.setRequestHandler(GetPromptRequestSchema, (request) => getPrompt(connection, request.params.name, request.params.arguments));
      server.onclose = () => {
        connections.delete(connection);
        void connection.close();
      };
      return server;
    },
    stats: () => ({
      connections: connections.size,
      sessions: state.sessions.size,
      sandboxes: [...connections].reduce((sum, c) => sum + c.sandboxes, 0),
    }),
    async close() {
      if (closed) return;
      closed = true;
      const open = [...connections];
      await Promise.all(open.map((c) => c.server.close().catch(() => undefined)));
      await Promise.all(open.map((c) => c.close()));
      await state.sessions.closeAll();
    },
  };
}

/**
 * A code-mode MCP server for one client connection (stdio, or a test's in-memory transport); closing it closes its
 * spaces and sessions. For several connections (HTTP) use {@link createCodeModeHost}.
 * @example
 * const server = createCodeModeServer({ spaces: [{ id: 'trains', name: 'Trains' }], space: { rootDir } });
 * await server.connect(new StdioServerTransport());
 */
export function createCodeModeServer(options: CodeModeServerOptions): Server {
  const host = createCodeModeHost(options);
  const server = host.createServer();
  const onclose = server.onclose;
  server.onclose = () => {
    onclose?.();
    void host.close();
  };
  return server;
}

async function callTool(specs: readonly ToolSpec[], name: string, args: unknown, context: ToolContext, requestId: string | number): Promise<CallToolResult> {
  const spec = specs.find((s) => s.name === name);
  if (!spec) {
    return toolError({ code: 'TOOL_NOT_FOUND', message: `No tool "${name}" (tools: ${specs.map((s) => s.name).join(', ')})`, data: { name } });
  }
  const { activeRequests } = context.connection;
  activeRequests.push(requestId);
  try {
    const valid = await context.connection.state.validator.check(name, spec.inputSchema, args);
    return await spec.handler(valid, context);
  } catch (error) {
    return toolError(toWireError(error));
  } finally {
    activeRequests.splice(activeRequests.indexOf(requestId), 1);
  }
}

function toolListing(spec: ToolSpec): Tool {
  return { name: spec.name, description: spec.description, inputSchema: spec.inputSchema as Tool['inputSchema'] };
}

function serverInfo(spaces: readonly SpaceDefinition[]): { name: string; version: string } {
  const only = spaces.length === 1 ? spaces[0] : undefined;
  return only ? { name: only.name, version: only.version ?? SERVER_VERSION } : { name: 'agent-spaces', version: SERVER_VERSION };
}

/**
 * Seed 000's mapping: the space's `instructions` (or description), then how to use the code-mode tools, with an import
 * example from the first (default) space's first built capability.
 */
function serverInstructions(spaces: readonly SpaceDefinition[], options: SharedSpaceOptions): string {
  const only = spaces.length === 1 ? spaces[0] : undefined;
  if (only?.instructions) return only.instructions;
  const intro = only
    ? [only.description ?? `Space "${only.name}".`]
    : ['Spaces (pass `spaceId`; the first is the default):', ...spaces.map((s) => `- ${s.id}: ${s.name}${s.description ? ` — ${s.description}` : ''}`)];
  return [...intro, '', codeInstructions(firstCapabilityEntries(spaces[0]!.capabilities, options))].join('\n');
}
