import { unwatchFile, watchFile } from 'node:fs';
import { basename, resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { configSpaceOptions, warmSandboxProcesses } from '@agent-spaces/sdk';
import { parseServerConfig, type HeadlessMode, type ServerConfig, type ServerSettings, type SessionProcesses, type SpaceDefinition } from './config.js';
import type { ClientLifecycle } from './http-clients.js';
import { startHttpServer, type HttpServerHandle } from './http.js';
import { LOG_FORMATS, createServerLog, type LogFormat, type ServerLog } from './log.js';
import { createCodeModeHost, type CodeModeHost, type CodeModeServerOptions } from './server.js';
import type { SharedSpaceOptions } from './shared-spaces.js';
import { startTraceExport } from './tracing.js';
import { SharedEngines } from './replicas/engines.js';
import { replicaRouting } from './replicas/route.js';
import { ActionServerAssignments } from './assignments/service.js';
import { agentModesEndpoint } from './modes/http.js';

/** Signals that stop the server gracefully (sessions closed, logs flushed): a terminal's ^C, a supervisor, a hang-up. */
const STOP_SIGNALS: readonly NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];

/** How often the config file is looked at for changes. */
const CONFIG_POLL_MS = 500;

/** What `serve` receives: the same shape as the CLI's `CommandContext` (packages/cli/src/commands/index.ts). */
export interface ServeContext {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
  output: { out(text: string): void; err(text: string): void; readonly interactive: boolean };
}

/** Environment variable read for the bearer token when `--auth-token` is not given. */
export const AUTH_TOKEN_ENV = 'AGENT_SPACES_MCP_TOKEN';

/**
 * `agent-spaces mcp serve [--stdio | --port 8080 --host 127.0.0.1] [--timeout 3600] [--max-sessions N]
 * [--max-sessions-per-client N] [--session-processes client|principal] [--auth-token T] [--headless deny|allow|wait]
 * [--log-format text|json] [--config F] [--out DIR] [--conformance-fixtures]`: serves the config's spaces (or one
 * `default` space of every built capability) over stdio (the default) or Streamable HTTP until stdin ends or a
 * {@link STOP_SIGNALS} signal. Everything it prints goes to stderr (stdout is the stdio transport): with
 * `--log-format json` only log lines, one JSON object each; with `text` (the default) human messages and one text line
 * per log event. Returns 0, or 2 for a bad option value.
 */
export async function serve(context: ServeContext): Promise<number> {
  const { values, output } = context;
  let flags: Flags;
  try {
    flags = readFlags(values);
  } catch (error) {
    output.err(`agent-spaces mcp serve: ${(error as Error).message}`);
    return 2;
  }
  const log = createServerLog({ format: flags.logFormat ?? 'text' });
  /** A message for people: left out of JSON logs, so that every line there parses. */
  const say = (text: string) => {
    if (flags.logFormat !== 'json') output.err(`agent-spaces mcp serve: ${text}`);
  };
  const traces = await startTraceExport().catch((error: unknown) => {
    say(`traces not exported: ${(error as Error).message}`);
    return undefined;
  });
  if (traces) say(`exporting traces to ${traces.endpoint}`);
  // A sandbox process is warm before the first client asks (it forks while the config loads).
  warmSandboxProcesses();
  const load = await configLoader(values);
  const first = await load();
  const engines = await openEngines(flags, first.settings, say);
  if (engines === false) return 1;
  const codeHost = createCodeModeHost({ ...hostOptions(flags, first, log), ...(engines ? { engines } : {}) });
  const serving: Serving = { codeHost, log: codeHost.log, say, names: first.spaces.map((s) => s.id).join(', '), assignments: first.assignments };
  first.assignmentProblems.forEach((problem) => say(`agent config not applied: ${problem}`));
  const unwatch = watchConfig(first.file, load, serving);
  const port = flags.port ?? (flags.stdio ? undefined : first.settings.port);
  let http: HttpServerHandle | undefined;
  let reason: string;
  if (port === undefined) {
    reason = await serveStdio(serving);
  } else {
    http = await serveHttp(serving, flags, first.settings, port, engines);
    reason = await new Promise<string>((done) => {
      const signals = onSignals((signal) => {
        signals.dispose();
        done(signal);
      });
    });
  }
  // The host first, so its clients are logged as disconnected because the server stopped.
  unwatch();
  await codeHost.close();
  await http?.close();
  await engines?.close();
  await traces?.close();
  log.event('server.stopped', { transport: http ? 'http' : 'stdio', reason });
  return 0;
}

/**
 * Opens the shared stores the flags, the config's `server` keys or the environment (`DATABASE_URL`, `REDIS_URL`) name,
 * in that order: undefined when none is named (the embedded stores), false (said why) when one cannot be opened.
 */
async function openEngines(flags: Flags, settings: ServerSettings, say: (text: string) => void): Promise<SharedEngines | undefined | false> {
  const databaseUrl = flags.databaseUrl ?? settings.databaseUrl ?? nonEmpty(process.env.DATABASE_URL);
  const redisUrl = flags.redisUrl ?? settings.redisUrl ?? nonEmpty(process.env.REDIS_URL);
  const server = { ...(databaseUrl ? { databaseUrl } : {}), ...(redisUrl ? { redisUrl } : {}), ...(flags.advertiseUrl ? { advertiseUrl: flags.advertiseUrl } : {}) };
  try {
    parseServerConfig({ server }, 'the shared stores (--database-url, --redis-url, --advertise-url, DATABASE_URL, REDIS_URL)');
    if (databaseUrl === undefined && redisUrl === undefined) return undefined;
    const engines = await SharedEngines.open(server);
    say(`shared stores: ${[databaseUrl && 'PostgreSQL', redisUrl && 'Redis'].filter(Boolean).join(' and ')}`);
    return engines;
  } catch (error) {
    say(`cannot open the shared stores: ${(error as Error).message}`);
    return false;
  }
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** What the config gives `serve`: its file, the server settings, the spaces and their options, the agent model. */
export interface ServedConfig {
  file: string;
  settings: ServerSettings;
  spaces: SpaceDefinition[];
  space: SharedSpaceOptions;
  model: ServerConfig['model'];
  /** Seed 003's agent configs of the project (the same object on every load), already applied to `spaces`. */
  assignments: ActionServerAssignments;
  /** Agent config files (or entries) not applied, and why. */
  assignmentProblems: string[];
}

/** Loads the config `--config` names (or the one found from the working folder), served from `--out` when given. */
export async function configLoader(values: ServeContext['values']): Promise<() => Promise<ServedConfig>> {
  const { loadConfig } = await import('@agent-spaces/compiler');
  const configFile = typeof values.config === 'string' ? values.config : undefined;
  const outDir = typeof values.out === 'string' ? resolve(values.out) : undefined;
  let assignments: ActionServerAssignments | undefined;
  return async () => {
    const loaded = await loadConfig({ cwd: process.cwd(), ...(configFile ? { configFile } : {}) });
    const config: ServerConfig = parseServerConfig(loaded.raw, loaded.file);
    const spaces: SpaceDefinition[] = config.spaces.length > 0 ? config.spaces : [{ id: 'default', name: basename(loaded.rootDir) || 'default' }];
    const maxSessionProcesses = config.server.maxSessionProcesses;
    const space: SharedSpaceOptions = {
      ...configSpaceOptions(loaded.rootDir, loaded.config),
      ...(outDir ? { outDir } : {}),
      ...(maxSessionProcesses !== undefined ? { processes: { maxSessionProcesses } } : {}),
    };
    const settings = config.server.assignment;
    assignments ??= new ActionServerAssignments({ rootDir: loaded.rootDir, ...(space.outDir ? { outDir: space.outDir } : {}), ...(settings ? { settings } : {}) });
    const assigned = await assignments.apply(spaces);
    const assignmentProblems = assigned.problems.map((problem) => problem.message);
    return { file: loaded.file, settings: config.server, spaces: assigned.spaces, space, model: config.model, assignments, assignmentProblems };
  };
}

/** The host's options: the flags over the config's server settings. */
function hostOptions(flags: Flags, config: ServedConfig, log: ServerLog): CodeModeServerOptions {
  const { settings, spaces, space, model, file } = config;
  const options: CodeModeServerOptions = {
    spaces,
    timeoutSeconds: flags.timeout ?? settings.timeoutSeconds ?? 3600,
    headlessMode: flags.headless ?? settings.headlessMode ?? 'deny',
    log,
    space,
    configFile: file,
    assignments: config.assignments,
    ...(model ? { model } : {}),
    ...(settings.agentsDir ? { agentsDir: settings.agentsDir } : {}),
    ...(settings.tools ? { tools: settings.tools } : {}),
    ...(flags.conformanceFixtures ? { conformanceFixtures: true } : {}),
  };
  const maxSessions = flags.maxSessions ?? settings.maxSessions;
  if (maxSessions !== undefined) options.maxSessions = maxSessions;
  const maxSessionsPerClient = flags.maxSessionsPerClient ?? settings.maxSessionsPerClient;
  if (maxSessionsPerClient !== undefined) options.maxSessionsPerClient = maxSessionsPerClient;
  const sessionProcesses = flags.sessionProcesses ?? settings.sessionProcesses;
  if (sessionProcesses !== undefined) options.sessionProcesses = sessionProcesses;
  return options;
}

/** What a transport serves and reports to: the host, the log, messages for people, and the spaces' ids. */
interface Serving {
  codeHost: CodeModeHost;
  log: ServerLog;
  say: (text: string) => void;
  names: string;
  assignments: ActionServerAssignments;
}

/**
 * Serves a changed config `file` without a restart (a new build is noticed by the host itself); one that does not
 * load leaves the previous one served. The server settings (port, caps) and the top-level `model` are read at start
 * only. Returns the function that stops watching.
 */
function watchConfig(file: string, load: () => Promise<ServedConfig>, serving: Serving): () => void {
  const { codeHost, log, say, assignments } = serving;
  const onConfigChange = () =>
    load().then(
      (next) => {
        codeHost.reload({ spaces: next.spaces, space: next.space });
        say(`reloaded ${next.file}`);
        next.assignmentProblems.forEach((problem) => say(`agent config not applied: ${problem}`));
        log.event('server.reloaded', { file: next.file, spaces: next.spaces.map((s) => s.id).join(', ') });
      },
      (error: unknown) => {
        const message = error instanceof Error ? error.message : String(error);
        say(`config not reloaded, still serving the previous one: ${message}`);
        log.event('server.reloaded', { file, ok: false, code: (error as { code?: string }).code }, 'warn');
      },
    );
  watchFile(file, { interval: CONFIG_POLL_MS, persistent: false }, onConfigChange);
  // Seed 003's agent configs: a change (a file edited, or written by the assignment API) is served the same way.
  assignments.onChange(onConfigChange);
  const unwatchAssignments = assignments.watch(() => void onConfigChange());
  return () => {
    unwatchFile(file, onConfigChange);
    unwatchAssignments();
  };
}

/** Serves one client over stdio until it closes, stdin ends or a {@link STOP_SIGNALS} signal; resolves to why it stopped. */
async function serveStdio({ codeHost, log, say, names }: Serving): Promise<string> {
  const server = codeHost.createServer();
  const closed = new Promise<void>((done) => {
    const onclose = server.onclose;
    server.onclose = () => {
      onclose?.();
      done();
    };
  });
  let reason = 'client closed';
  const stop = (why: string) => {
    reason = why;
    void server.close();
  };
  const onEnd = () => stop('stdin ended');
  process.stdin.once('end', onEnd);
  const signals = onSignals(stop);
  await server.connect(new StdioServerTransport());
  say(`serving ${names} over stdio`);
  log.event('server.started', { transport: 'stdio', spaces: names });
  await closed;
  signals.dispose();
  process.stdin.off('end', onEnd);
  return reason;
}

/**
 * Starts serving over Streamable HTTP on `port`, saying (and logging) where — and where the protected resource metadata
 * is, with `server.auth` — and warning when anyone could run code. Rejects `CONFIG_INVALID` for `server.auth` with a
 * shared token (`--auth-token` or `$AGENT_SPACES_MCP_TOKEN`), or an issuer whose metadata cannot be read.
 */
async function serveHttp(
  { codeHost, log, say, names, assignments }: Serving,
  flags: Flags,
  settings: ServerSettings,
  port: number,
  engines: SharedEngines | undefined,
): Promise<HttpServerHandle> {
  const host = flags.host ?? settings.host ?? '127.0.0.1';
  const authToken = flags.authToken ?? process.env[AUTH_TOKEN_ENV];
  const http = await startHttpServer({
    createServer: () => codeHost.createServer(),
    createModernServer: (authInfo) => codeHost.createModernServer(authInfo),
    stats: () => codeHost.stats(),
    host,
    port,
    ...(authToken ? { authToken } : {}),
    ...(settings.auth ? { auth: settings.auth } : {}),
    ...(settings.allowedHosts ? { allowedHosts: settings.allowedHosts } : {}),
    ...(settings.allowedOrigins ? { allowedOrigins: settings.allowedOrigins } : {}),
    ...(settings.rateLimit !== undefined ? { rateLimit: settings.rateLimit } : {}),
    ...(settings.requestTimeoutSeconds !== undefined ? { requestTimeoutMs: settings.requestTimeoutSeconds * 1000 } : {}),
    lifecycle: lifecycleOf(settings),
    log,
    approvals: codeHost.approvals,
    assignments,
    agentModes: agentModesEndpoint(codeHost.agents, settings.a2a),
    ...(engines?.counters ? { counters: engines.counters } : {}),
    ...(engines?.replicas ? { replicas: replicaRouting(engines.replicas, (id) => codeHost.peerHolding(id)) } : {}),
  });
  if (engines?.database) {
    const reachable = host === '0.0.0.0' || host === '::' ? '127.0.0.1' : host;
    await engines.join(flags.advertiseUrl ?? settings.advertiseUrl ?? `http://${reachable.includes(':') ? `[${reachable}]` : reachable}:${http.port}`);
    say(`replica ${engines.replicas!.id} of the service, reached at ${engines.replicas!.url}`);
  }
  say(`serving ${names} on ${http.url}${authToken ? ' (bearer token required)' : settings.auth ? ` (access tokens of ${settings.auth.issuer} required)` : ''}`);
  if (http.resourceMetadataUrl) say(`protected resource metadata served at ${http.resourceMetadataUrl}`);
  const secured = authToken !== undefined || settings.auth !== undefined;
  const exposed = !secured && !['127.0.0.1', 'localhost', '::1'].includes(host);
  if (exposed) say(`warning: listening on ${host} without --auth-token; anyone who can reach it can run code`);
  const warning = exposed ? 'no auth token on a non-local address' : undefined;
  log.event('server.started', { transport: 'http', url: http.url, spaces: names, auth: settings.auth ? 'oauth' : authToken !== undefined, warning }, exposed ? 'warn' : 'info');
  return http;
}

/** The HTTP client lifecycle the `server` settings set (the rest keeps its defaults). */
function lifecycleOf(settings: ServerSettings): Partial<ClientLifecycle> {
  const ms = (seconds: number | undefined) => (seconds === undefined ? undefined : seconds * 1000);
  const lifecycle = {
    disconnectGraceMs: ms(settings.disconnectGraceSeconds),
    idleMs: ms(settings.clientIdleSeconds),
    unusedMs: ms(settings.unusedClientSeconds),
    maxUnusedPerAddress: settings.maxUnusedClientsPerAddress,
    maxUnused: settings.maxUnusedClients,
  };
  return Object.fromEntries(Object.entries(lifecycle).filter(([, value]) => value !== undefined));
}

interface Flags {
  stdio: boolean;
  port?: number;
  host?: string;
  timeout?: number;
  maxSessions?: number;
  maxSessionsPerClient?: number;
  sessionProcesses?: SessionProcesses;
  authToken?: string;
  headless?: HeadlessMode;
  logFormat?: LogFormat;
  databaseUrl?: string;
  redisUrl?: string;
  advertiseUrl?: string;
  /** `--conformance-fixtures`: serve the MCP conformance suite's fixtures too (tests only). */
  conformanceFixtures?: boolean;
}

function readFlags(values: ServeContext['values']): Flags {
  const text = (name: string): string | undefined => {
    const value = values[name];
    if (value === undefined || value === false) return undefined;
    if (typeof value !== 'string') throw new Error(`--${name} needs a value`);
    return value;
  };
  const integer = (name: string, min: number, max: number): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}, got "${value}"`);
    return n;
  };
  const flags: Flags = { stdio: values.stdio === true, ...(values['conformance-fixtures'] === true ? { conformanceFixtures: true } : {}) };
  const port = integer('port', 0, 65535);
  if (port !== undefined && flags.stdio) throw new Error('use either --stdio or --port, not both');
  if (port !== undefined) flags.port = port;
  const host = text('host');
  if (host !== undefined) flags.host = host;
  const timeout = integer('timeout', 1, 31 * 24 * 3600);
  if (timeout !== undefined) flags.timeout = timeout;
  const maxSessions = integer('max-sessions', 1, 100_000);
  if (maxSessions !== undefined) flags.maxSessions = maxSessions;
  const maxSessionsPerClient = integer('max-sessions-per-client', 1, 100_000);
  if (maxSessionsPerClient !== undefined) flags.maxSessionsPerClient = maxSessionsPerClient;
  const sessionProcesses = text('session-processes');
  if (sessionProcesses !== undefined && sessionProcesses !== 'client' && sessionProcesses !== 'principal') {
    throw new Error(`--session-processes must be "client" or "principal", got "${sessionProcesses}"`);
  }
  if (sessionProcesses !== undefined) flags.sessionProcesses = sessionProcesses;
  const authToken = text('auth-token');
  if (authToken !== undefined) flags.authToken = authToken;
  const headless = text('headless');
  if (headless !== undefined && headless !== 'deny' && headless !== 'allow' && headless !== 'wait') {
    throw new Error(`--headless must be "deny", "allow" or "wait", got "${headless}"`);
  }
  if (headless !== undefined) flags.headless = headless;
  const logFormat = text('log-format');
  if (logFormat !== undefined && !LOG_FORMATS.includes(logFormat as LogFormat)) throw new Error(`--log-format must be "json" or "text", got "${logFormat}"`);
  if (logFormat !== undefined) flags.logFormat = logFormat as LogFormat;
  for (const [flag, key] of [['database-url', 'databaseUrl'], ['redis-url', 'redisUrl'], ['advertise-url', 'advertiseUrl']] as const) {
    const value = text(flag);
    if (value !== undefined) flags[key] = value;
  }
  return flags;
}

/** Calls `handler` with the signal's name on the first of {@link STOP_SIGNALS}. */
function onSignals(handler: (signal: NodeJS.Signals) => void): { dispose(): void } {
  for (const signal of STOP_SIGNALS) process.once(signal, handler);
  return {
    dispose() {
      for (const signal of STOP_SIGNALS) process.off(signal, handler);
    },
  };
}
