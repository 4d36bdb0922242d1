import { relative, resolve } from 'node:path';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import type { ApprovalService, RateLimitStore } from '@agent-spaces/bridge';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  CallToolRequestSchema,
  GetPromptRequestSchema,
  ListPromptsRequestSchema,
  ListToolsRequestSchema,
  SetLevelRequestSchema,
  type LoggingLevel,
} from '@modelcontextprotocol/sdk/types.js';
import type { Server as ModernServer } from '@modelcontextprotocol/server';
import { DEFAULT_AGENTS_DIR, confinedPath, mergeAgentSpaces, scanAgentFiles, watchAgentFiles, type AgentFileScan } from './agent-files.js';
import { ArgumentsValidator } from './args.js';
import type { ModelSettings } from '@agent-spaces/sdk';
import { isPromptTool, isToolListed, parseServerConfig, type HeadlessMode, type SessionProcesses, type SpaceDefinition, type ToolGroup } from './config.js';
import { Connection, type HostState } from './connection.js';
import { builtCatalogEntries, type CatalogOptions } from './catalog.js';
import { conformanceTools, installConformanceFixtures } from './conformance.js';
import { codeInstructions } from './inject.js';
import { DEFAULT_CLIENT_LOG_LEVEL, passes, serverEventAudience, serverEventMessage, type ClientLogMessage } from './client-log.js';
import { silentLog, teeLog, type LogEvent, type LogFields, type LogLevel, type ServerLog } from './log.js';
import { getPrompt, listPrompts } from './prompts.js';
import { LazySchemaValidator } from './schema-validator.js';
import { ServerSessions } from './sessions.js';
import { watchRecovery } from './durable/recovery.js';
import { durableState } from './durable/state.js';
import type { SharedEngines } from './replicas/engines.js';
import { SharedSpaces, type SharedSpaceOptions } from './shared-spaces.js';
import { SkillMirror } from './skills/mirror.js';
import { PostgresSkillRecords } from './skills/postgres.js';
import { ServerTasks, type TaskOptions } from './tasks/store.js';
import { PostgresTaskRecords } from './tasks/postgres.js';
import { startTask } from './tasks/run.js';
import { callTool, listTools, toolListing, type CallSettings } from './tools/call.js';
import type { ServedSurface } from './modern/server.js';
import { codeTools } from './tools/code.js';
import { directToolSpecs } from './tools/direct.js';
import { progressIntervalMs } from './tools/progress.js';
import { sessionTools } from './tools/sessions.js';
import { skillTools } from './tools/skills.js';
import { spaceTools } from './tools/spaces.js';
import type { ToolSpec } from './tools/types.js';
import { agentTools } from './tools/agents.js';
import { promptToolSpec } from './tools/prompt.js';
import { userToolSpec } from './tools/user.js';
import { agentSurface, type AgentSurface } from './modes/surface.js';
import type { ActionServerAssignments } from './assignments/service.js';
import { assignmentTools } from './assignments/tools.js';

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
  /**
   * Most sessions of all clients together (default 256). At the cap, only a session idle for 5 minutes may be closed to
   * make room; otherwise creating one fails `TOO_MANY_SESSIONS` (docs/mcp-server.md, "Sessions").
   */
  maxSessions?: number;
  /** Most sessions of one client (default 16); one more fails `TOO_MANY_SESSIONS`. */
  maxSessionsPerClient?: number;
  /** Whose sessions one sandbox process hosts: one client's (default) or one principal's. */
  sessionProcesses?: SessionProcesses;
  /** What approvals do when the client cannot be asked through elicitation (default `deny`). */
  headlessMode?: HeadlessMode;
  /** How long an elicitation waits for the person, in seconds (default 600). */
  approvalTimeoutSeconds?: number;
  /** `createSpace()` options of every space: `rootDir`, `outDir`, `handlers`, `limits`, `policy`, … */
  space?: SharedSpaceOptions;
  /** The config file `save_skill` and `delete_skill` rebuild the project from (default: the usual names in `space.rootDir`). */
  configFile?: string;
  /** Longest silence, in seconds, of a tool call that carries a `progressToken` before a heartbeat notification (default 10). */
  progressIntervalSeconds?: number;
  /** Where tool calls, sessions and clients are logged (default: nowhere; `createServerLog()` writes to stderr). */
  log?: ServerLog;
  /** Folder of agent files served beside `spaces`, relative to `space.rootDir` (default `agent-files`; docs/agents.md, "Agent files"). */
  agentsDir?: string;
  /** The model of agent runs (prompt tools) in spaces without their own, for clients without sampling (docs/agents.md). */
  model?: ModelSettings;
  /** The tasks' bounds, and which tasks of a process that ended to keep running at start (docs/mcp-server.md, "Tasks"). */
  tasks?: TaskOptions;
  /**
   * Shared stores, opened (docs/deployment.md): with PostgreSQL, the audit log, approvals, kept runs, session records
   * and tasks are kept there (replicas share them); with Redis, the rate limits are counted there. Default: embedded.
   */
  engines?: SharedEngines;
  /**
   * The groups of built-in tools listed (config `server.tools`; default: all): `code` is always listed, a hidden tool's
   * call is refused as unknown (docs/mcp-server.md, "Tool groups"). Throws `CONFIG_INVALID` for an unknown group.
   */
  tools?: ToolGroup[];
  /** Seed 003's agent configs: with it, the server lists the assignment tools (`get_action_servers`, …; docs/openapi.md). */
  assignments?: ActionServerAssignments;
  /**
   * Also serve the fixtures of the MCP conformance suite (its `test_*` tools, prompts and resources) — for conformance
   * testing only (`mcp serve --conformance-fixtures`; docs/mcp-server.md, "Conformance").
   */
  conformanceFixtures?: boolean;
}

/** Counts of what a code-mode server holds open; the body of the HTTP `/health` endpoint besides `status`. */
export interface ServerStats {
  /** MCP client connections. */
  connections: number;
  /** Sessions of every client. */
  sessions: number;
  /** Spaces created and not closed: one per space definition in use (all clients share it), more while a reload drains. */
  spaces: number;
  /** Sandbox processes running agent code (0 with `isolation: 'in-process'`). */
  sandboxes: number;
}

/** What {@link CodeModeHost.reload} may replace. */
export interface ReloadOptions {
  spaces?: SpaceDefinition[];
  space?: SharedSpaceOptions;
}

/** One code-mode server's shared state (spaces, sessions) that hands out one MCP `Server` per client connection. */
export interface CodeModeHost {
  /** A new MCP server for one client connection; closing it ends that client's sessions. */
  createServer(): Server;
  /**
   * The MCP server (SDK v2) of one request of protocol revision 2026-07-28, acting for the principal that `authInfo`
   * proves ({@link Connection.ofPrincipal}): the same tools, prompts and instructions, without tasks. Loads the v2 SDK
   * the first time. Rejects `SPACE_CLOSED` once the host is closed.
   */
  createModernServer(authInfo: AuthInfo | undefined): Promise<ModernServer>;
  /** How many client connections, sessions, spaces and sandboxes are open now. */
  stats(): ServerStats;
  /**
   * Where the REPL session `sessionId` is held when another live replica of the service holds it (its URL: a request
   * for it is forwarded there); undefined when it is held here, nowhere, or by a replica that is gone (then it is
   * restored here by replay).
   */
  peerHolding(sessionId: string): Promise<{ id: string; url: string } | undefined>;
  /** The approval requests of its spaces, kept under `<outDir>/state/approvals/`: listed, shown and answered from anywhere. */
  readonly approvals: ApprovalService;
  /** What the chat endpoint, `agent-spaces chat` and the A2A server use of it (docs/agents.md, "Agent modes"). */
  readonly agents: AgentSurface;
  /**
   * The log of `options.log` that also tells each client, as `notifications/message` at its level, the events that
   * concern it (docs/mcp-server.md, "Logging"): log the server's own events (a reload) here so that clients hear them.
   */
  readonly log: ServerLog;
  /**
   * Serves new space definitions and/or space options (a changed config file); a new build is noticed by itself. New
   * runs, searches and sessions use them; running sessions keep their space. Clients hear
   * `notifications/tools/list_changed` / `notifications/prompts/list_changed` when those lists changed. Throws
   * `CONFIG_INVALID` for invalid spaces, and then serves what it served before.
   */
  reload(options: ReloadOptions): void;
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
  const clients: LegacyClients = { all: new Map(), byId: new Map() };
  const connections = clients.all;
  const state = hostState({ ...options, log: teeLog(options.log ?? silentLog, (...event) => tellClients(clients, ...event)) }, where);
  let configSpaces = state.spaces;
  const spaces = (state.spaces = serveAgentFiles(state, configSpaces));
  const { log } = state;
  const spaceOptions = options.space ?? {};
  const calls: CallSettings = { log, progressIntervalMs: progressIntervalMs(options.progressIntervalSeconds, where) };
  const fixtures = options.conformanceFixtures === true;
  // Checked as the config's `server.tools` is.
  const groups = parseServerConfig({ server: { tools: options.tools } }, where).server.tools;
  const listed = { assignments: options.assignments, fixtures, groups };
  let specs = toolSpecs(spaces, state.baseDir, listed, spaceOptions);
  const info = options.serverInfo ?? serverInfo(spaces);
  const instructions = serverInstructions(spaces, spaceOptions);
  const surface: ServedSurface = { state, info, instructions, calls, specs: () => specs, conformanceFixtures: fixtures };
  let closed = false;
  const recovery = new AbortController();
  watchRecovery(state, recovery.signal);
  // With a shared database, this replica's skills/ folder follows the skills saved through every replica.
  const database = options.engines?.database;
  const skills = database && new SkillMirror({ database, project: state.skillProject, onBuilt: () => state.shared.noticeBuild(), log });
  void skills?.start();

  const host: CodeModeHost = {
    createServer() {
      if (closed) throw new AgentSpacesError('SPACE_CLOSED', 'The code-mode server is closed');
      return createLegacyServer(surface, clients, () => closed);
    },
    async createModernServer(authInfo) {
      if (closed) throw new AgentSpacesError('SPACE_CLOSED', 'The code-mode server is closed');
      const { createModernServer } = await import('./modern/server.js');
      return createModernServer(surface, authInfo);
    },
    approvals: state.durable.approvals,
    log,
    agents: agentSurface(state, () => specs, calls),
    async peerHolding(sessionId) {
      const replica = await state.sessions.heldElsewhere(sessionId);
      return replica === undefined ? undefined : options.engines?.replicas?.peer(replica);
    },
    stats: () => ({
      connections: connections.size,
      sessions: state.sessions.size,
      spaces: state.shared.size,
      sandboxes: state.shared.stats().processes,
    }),
    reload(next) {
      const nextConfig = next.spaces ? checkSpaces(next.spaces, 'reloaded spaces') : configSpaces;
      const nextSpaces = serveAgentFiles(state, nextConfig);
      configSpaces = nextConfig;
      const nextSpecs = toolSpecs(nextSpaces, state.baseDir, listed, { ...spaceOptions, ...next.space });
      const toolsChanged = JSON.stringify(nextSpecs.map(toolListing)) !== JSON.stringify(specs.map(toolListing));
      const promptsChanged = JSON.stringify(listPrompts(nextSpaces)) !== JSON.stringify(listPrompts(state.spaces));
      state.spaces = nextSpaces;
      specs = nextSpecs;
      state.shared.reload(next.space);
      for (const { server } of connections.values()) {
        if (toolsChanged) void server.sendToolListChanged().catch(() => undefined);
        if (promptsChanged) void server.sendPromptListChanged().catch(() => undefined);
      }
    },
    async close() {
      if (closed) return;
      closed = true;
      recovery.abort();
      stopWatchingAgents();
      await skills?.close();
      await state.tasks.close();
      // Sessions first, kept for a restarted server (a connection's close would end them for good).
      await state.sessions.closeAll();
      const open = [...connections];
      await Promise.all(open.map(([, { server }]) => server.close().catch(() => undefined)));
      await Promise.all(open.map(([connection]) => connection.close('closed')));
      await state.shared.close();
    },
  };
  const stopWatchingAgents = watchAgentFiles(state.agentFiles!.dir, () => reloadAgentFiles(host, log));
  return host;
}

/** Serves changed agent files (the host's `reload` re-reads them); a failure keeps what was served, logged. */
function reloadAgentFiles(host: CodeModeHost, log: ServerLog): void {
  try {
    host.reload({});
    log.event('agent_files.reloaded', {});
  } catch (error) {
    log.event('agent_files.reloaded', { ok: false, code: (error as { code?: string }).code }, 'warn');
  }
}

/**
 * The spaces served: `configSpaces`, then the agent files of `state.agentFiles` that parse and fit beside them (kept on
 * `state.agentFiles`); each that does not is logged as `agent_file.invalid` with the file and the error.
 */
function serveAgentFiles(state: HostState, configSpaces: readonly SpaceDefinition[]): SpaceDefinition[] {
  const files = state.agentFiles!;
  let scan: AgentFileScan;
  try {
    confinedPath(state.baseDir, relative(state.baseDir, files.dir) || '.', 'server.agentsDir');
    scan = scanAgentFiles(state.baseDir, files.dir);
  } catch (error) {
    const file = relative(state.baseDir, files.dir);
    scan = { agents: [], problems: [{ file, error: new AgentSpacesError('CONFIG_INVALID', `${file}: ${(error as Error).message}`, { file, key: 'server.agentsDir' }) }] };
  }
  const merged = mergeAgentSpaces(configSpaces, scan);
  files.served = merged.served;
  files.problems = merged.problems;
  for (const { file, error } of merged.problems) state.log.event('agent_file.invalid', { file, code: error.code, message: error.message }, 'warn');
  return merged.spaces;
}

/**
 * The MCP server (SDK 1.x, protocol 2025-11-25) of one client connection, with the tools, prompts and instructions of
 * `surface` and task-augmented `tools/call`; kept in `clients` until it closes, which ends the client's sessions.
 * `stopping` tells whether the host is closing (for the log).
 */
function createLegacyServer(surface: ServedSurface, clients: LegacyClients, stopping: () => boolean): Server {
  const { state, info, instructions, calls } = surface;
  // The task store acts for the connection's principal, known once the connection exists.
  const taskStore = state.tasks.view(() => connection.principal.id);
  const server = new Server(info, { capabilities: SERVER_CAPABILITIES, instructions, taskStore, jsonSchemaValidator: new LazySchemaValidator() });
  const connection = new Connection(state, server, () => server.transport?.sessionId);
  followCredentials(server, connection);
  const client: LegacyClient = { server, logLevel: DEFAULT_CLIENT_LOG_LEVEL };
  clients.all.set(connection, client);
  server.setRequestHandler(SetLevelRequestSchema, (request) => {
    client.logLevel = request.params.level;
    return {};
  });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools(surface.specs(), connection) }));
  server.setRequestHandler(CallToolRequestSchema, (request, extra) => {
    // The events of the call and of the sessions it makes name the client by its id: they find it by that id.
    clients.byId.set(connection.id, client);
    if (request.params.task) return startTask(surface.specs(), request.params, connection, extra.requestId, calls.log);
    // The run's log messages travel with the call (on its response stream over HTTP), at the client's level.
    const log = (message: ClientLogMessage) => tell(client, message, extra.sendNotification);
    const call = { id: extra.requestId, signal: extra.signal, progressToken: extra._meta?.progressToken, notify: extra.sendNotification, log };
    return callTool(surface.specs(), request.params, connection, call, calls);
  });
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: listPrompts(state.spaces) }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => getPrompt(connection, request.params.name, request.params.arguments));
  if (surface.conformanceFixtures) installConformanceFixtures(server, { list: () => listPrompts(state.spaces), get: (name, args) => getPrompt(connection, name, args) });
  // Logged under the id its tool calls are logged under (the MCP session id over HTTP), known once it initialized.
  let clientId: string | undefined;
  server.oninitialized = () => {
    clientId = connection.id;
    clients.byId.set(clientId, client);
    const { name, version } = server.getClientVersion() ?? {};
    calls.log.event('client.connected', { client: clientId, name, version });
  };
  server.onclose = () => {
    if (clientId !== undefined) calls.log.event('client.disconnected', { client: clientId, reason: stopping() ? 'server stopped' : 'client closed' });
    clients.all.delete(connection);
    if (clients.byId.get(connection.id) === client) clients.byId.delete(connection.id);
    void connection.close();
  };
  return server;
}

/** One client connection of protocol 2025-11-25: its MCP server, and the least level of log message it wants. */
interface LegacyClient {
  server: Server;
  /** Set by `logging/setLevel`; {@link DEFAULT_CLIENT_LOG_LEVEL} until then. */
  logLevel: LoggingLevel;
}

/** Sends `message` to `client` as `notifications/message` when its level lets it through (by `send`: with a call, on its stream). */
function tell(client: LegacyClient, message: ClientLogMessage, send: Server['notification'] = (notification) => client.server.notification(notification)): void {
  if (!passes(message.level, client.logLevel)) return;
  // A client that went away misses the message; that changes nothing for the server.
  send({ method: 'notifications/message', params: message }).catch(() => undefined);
}

/** The host's client connections of protocol 2025-11-25, each with its MCP server and log level. */
interface LegacyClients {
  /** Every connection: to tell it of changes and to close it. */
  readonly all: Map<Connection, LegacyClient>;
  /** The connections by client id ({@link Connection.id}), from its first tool call or `initialized` until it closes. */
  readonly byId: Map<string, LegacyClient>;
}

/**
 * Tells the connected clients a server log event that concerns them ({@link serverEventAudience}): an event of one
 * client's own goes to that client only, found by its id, so it costs the same with one client connected or hundreds.
 */
function tellClients(clients: LegacyClients, event: LogEvent, fields: LogFields, level: LogLevel): void {
  const audience = serverEventAudience(event);
  if (audience === undefined) return;
  const own = typeof fields.client === 'string' ? clients.byId.get(fields.client) : undefined;
  const targets = audience === 'all' ? clients.all.values() : own ? [own] : [];
  for (const client of targets) {
    if (client.server.transport === undefined) continue;
    const message = serverEventMessage(client.logLevel, event, fields, level);
    if (message) tell(client, message);
  }
}

/** The state every connection of a host shares, from `options` checked (`where` names them in errors). */
function hostState(options: CodeModeServerOptions, where: string): HostState {
  const { server: settings, model } = parseServerConfig(
    {
      spaces: [],
      model: options.model,
      server: {
        timeoutSeconds: options.timeoutSeconds,
        maxSessions: options.maxSessions,
        maxSessionsPerClient: options.maxSessionsPerClient,
        sessionProcesses: options.sessionProcesses,
        headlessMode: options.headlessMode,
      },
    },
    where,
  );
  const spaces = checkSpaces(options.spaces, where);
  const log = options.log ?? silentLog;
  const given = options.space ?? {};
  const baseDir = resolve(given.rootDir ?? process.cwd());
  const durable = durableState(baseDir, given.outDir, options.engines?.database);
  const spaceOptions: SharedSpaceOptions = { ...given, stores: { ...durable.spaceStores, ...sharedCounters(options.engines), ...given.stores } };
  return {
    spaces,
    durable,
    shared: new SharedSpaces(spaceOptions),
    sessions: new ServerSessions({
      idleTimeoutMs: (settings.timeoutSeconds ?? 3600) * 1000,
      maxSessions: settings.maxSessions ?? 256,
      maxSessionsPerClient: settings.maxSessionsPerClient ?? 16,
      log,
      records: durable.sessions,
      replica: () => options.engines?.replicas,
    }),
    headlessMode: settings.headlessMode ?? 'deny',
    sessionProcesses: settings.sessionProcesses ?? 'client',
    approvalTimeoutMs: (options.approvalTimeoutSeconds ?? 600) * 1000,
    baseDir,
    skillProject: {
      rootDir: baseDir,
      ...(options.configFile ? { configFile: resolve(options.configFile) } : {}),
      ...(spaceOptions.outDir ? { outDir: resolve(baseDir, spaceOptions.outDir) } : {}),
      ...(options.engines?.database ? { records: new PostgresSkillRecords(options.engines.database) } : {}),
    },
    validator: new ArgumentsValidator(),
    // Tasks a stopped process left are settled by recoverRuns (those whose run paused are resumed).
    tasks: new ServerTasks(durable.outDir, { keepRunning: () => true, ...sharedTasks(options.engines), ...options.tasks }),
    ...(options.engines?.replicas ? { replicas: options.engines.replicas } : {}),
    agentFiles: { dir: resolve(baseDir, options.agentsDir ?? DEFAULT_AGENTS_DIR), served: [], problems: [] },
    log,
    ...(model ? { model } : {}),
  };
}

/** Where tasks are kept when the server has a database, and this replica as their runner. */
function sharedTasks(engines: SharedEngines | undefined): Pick<TaskOptions, 'records' | 'owner'> {
  const { database, replicas } = engines ?? {};
  if (!database || !replicas) return {};
  return { records: new PostgresTaskRecords(database), owner: { replica: replicas.id, alive: (replica) => replicas.alive(replica) } };
}

/** The rate-limit store of every space when the server counts in Redis (one limit across replicas). */
function sharedCounters(engines: SharedEngines | undefined): { rateLimits?: RateLimitStore } {
  return engines?.counters ? { rateLimits: engines.counters.rateLimits() } : {};
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

/** `spaces` checked as the config's `spaces` key is; throws `CONFIG_INVALID` for none or an invalid one. */
function checkSpaces(spaces: readonly SpaceDefinition[], where: string): SpaceDefinition[] {
  const parsed = parseServerConfig({ spaces }, where).spaces;
  if (parsed.length === 0) throw new AgentSpacesError('CONFIG_INVALID', `${where}: spaces must hold at least one space`, { key: 'spaces' });
  return parsed;
}

/** Which tools beside the spaces' own a server lists. */
interface ListedTools {
  /** Seed 003's agent configs: with them, the assignment tools. */
  assignments: ActionServerAssignments | undefined;
  /** The conformance suite's fixtures. */
  fixtures: boolean;
  /** The groups of built-in tools listed (`server.tools`; undefined: all). */
  groups: readonly ToolGroup[] | undefined;
}

/**
 * The server's tools: the built-in tools of the groups `listed` names (with the assignment tools when given), then
 * every space's user-defined tools, then the conformance suite's fixtures when asked for, then the direct tools of the
 * spaces' `directTools`, read from the build in `built`.
 */
function toolSpecs(spaces: readonly SpaceDefinition[], baseDir: string, listed: ListedTools, built: CatalogOptions): ToolSpec[] {
  const ids = spaces.map((s) => s.id);
  const { assignments, fixtures, groups } = listed;
  const builtIn = [...codeTools(ids), ...sessionTools(ids), ...spaceTools(ids), ...agentTools(ids), ...skillTools(), ...(assignments ? assignmentTools(assignments) : [])];
  const specs = [
    ...builtIn.filter((spec) => isToolListed(spec.name, groups)),
    ...spaces.flatMap((space) => (space.tools ?? []).map((tool) => (isPromptTool(tool) ? promptToolSpec(space, tool) : userToolSpec(space, tool, baseDir)))),
    ...(fixtures ? conformanceTools() : []),
  ];
  return [...specs, ...directToolSpecs(spaces, built, new Set(specs.map((spec) => spec.name)))];
}

/** Tools and prompts whose lists change on reload, log messages, and tasks: listed, cancelled, and made by `tools/call`. */
const SERVER_CAPABILITIES = {
  tools: { listChanged: true },
  prompts: { listChanged: true },
  logging: {},
  tasks: { list: {}, cancel: {}, requests: { tools: { call: {} } } },
};

/**
 * Keeps on `connection` the credentials that the client's messages carried (`authInfo`: what the HTTP front door
 * proved of its bearer token), which decide its principal; the SDK gives them to request handlers only.
 */
function followCredentials(server: Server, connection: Connection): void {
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      if (extra?.authInfo) connection.authInfo = extra.authInfo;
      deliver?.(message, extra);
    };
  };
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
  return [...intro, '', codeInstructions(builtCatalogEntries(spaces[0]!.capabilities, options))].join('\n');
}
