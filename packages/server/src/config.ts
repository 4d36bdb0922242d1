import { AgentSpacesError, closestNames, type ObjectSchema } from '@agent-spaces/capabilities';
import { parseModel, type ModelSettings, type ToolPermission } from '@agent-spaces/sdk';
import { isSecureUrl } from './auth/discovery.js';
import { findSchemaProblems } from '@agent-spaces/compiler/file-schemas';
import { checkPrivacySettings, privacySettingsOf, type PrivacySettings } from './privacy/settings.js';

/** A skill of a space (seed 001): an injectable prompt fragment, switched on or off. */
export interface SkillDefinition {
  id: string;
  name: string;
  /** The instruction text injected when the skill is enabled. */
  description: string;
  enabled: boolean;
}

/**
 * A tool the config adds to the MCP server (seed 000's tools mode). `code` is either the path of a `.ts`/`.js` file
 * (one line, no spaces, relative to the config file's folder) or an inline script; it runs in the space's sandbox with
 * the validated arguments as the global `input`, and its `export default` / top-level `return` value is the result.
 */
export interface UserTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments; the root must be `type: 'object'`. */
  parameters: ObjectSchema;
  code: string;
}

/**
 * A tool answered by a headless agent (seed 000): the call's arguments fill `prompt` (`{param}` is an argument,
 * `{name}` the tool's name), and an agent run in the space answers it by writing code (docs/agents.md).
 */
export interface PromptTool {
  name: string;
  description: string;
  /** JSON Schema of the arguments; the root must be `type: 'object'`. */
  parameters: ObjectSchema;
  prompt: string;
  /** Most model turns of one call (default 10); past it the call fails with `MAX_TURNS`. */
  maxTurns?: number;
}


/** One argument of a {@link PromptTemplate}. */
export interface PromptArgumentDefinition {
  name: string;
  description?: string;
  required?: boolean;
}

/** An MCP prompt filled from a template: `{arg}` is replaced by the argument's value, `{name}` by the prompt's name. */
export interface PromptTemplate {
  name: string;
  description?: string;
  arguments?: PromptArgumentDefinition[];
  template: string;
}

/** One space the server offers: metadata (seed 000), injection parts (seed 001), capabilities, tools and prompts. */
export interface SpaceDefinition {
  /** Stable id used by `spaceId` arguments; letters, digits, `.`, `_`, `-`. */
  id: string;
  name: string;
  description?: string;
  version?: string;
  systemPrompt?: string;
  skills?: SkillDefinition[];
  /** Built capability ids agent code may import (default: every built capability). */
  capabilities?: string[];
  tools?: Array<UserTool | PromptTool>;
  prompts?: PromptTemplate[];
  /** The model of this space's agent runs (default: the config's top-level `model`). */
  model?: ModelSettings;
  /** Which capability functions a headless agent run may call (default `tool`). */
  toolPermission?: ToolPermission;
  /** MCP `instructions` sent at initialization (default: the description plus how to use the code-mode tools). */
  instructions?: string;
  /**
   * Personal data in what the model reads becomes stable tokens (`[EMAIL_1]`), restored on the host when the model
   * sends them back (docs/privacy.md): `true` for every built-in detector, or the detectors and patterns. Default off.
   */
  privacy?: boolean | PrivacySettings;
  /**
   * Capability functions also served as MCP tools of their own, beside code (docs/mcp-server.md, "Direct tools"):
   * `<capability>.<function>` patterns, `*` any run of characters (`notes.*`, `company-crm.searchCustomers`).
   */
  directTools?: string[];
}

/** What the server does with a call that needs approval when the MCP client cannot be asked (no elicitation). */
export type HeadlessMode = 'deny' | 'allow' | 'wait';

/**
 * Whose sessions one sandbox process may host: one MCP client's (`client`, the default: a crash its code causes ends
 * none of another client's sessions), or one principal's (`principal`: the clients of one user — `server.auth` — or of
 * one shared token, or every client of a server without either, share processes; a crash ends that principal's
 * sessions in the process, never another principal's). See docs/mcp-server.md, "Sessions".
 */
export type SessionProcesses = 'client' | 'principal';

/** A per-client request budget of the HTTP transport: at most `requests` per `windowSeconds`. */
export interface RateLimitSettings {
  requests: number;
  windowSeconds: number;
}

/** The `server` key of the config: defaults of `agent-spaces mcp serve` (command-line options win). */
export interface ServerSettings {
  /** Idle timeout of sessions, in seconds (default 3600). */
  timeoutSeconds?: number;
  /** Most sessions of all clients together (default 256); see docs/mcp-server.md for what happens at the cap. */
  maxSessions?: number;
  /** Most sessions of one client (default 16). */
  maxSessionsPerClient?: number;
  /**
   * Most sandbox processes hosting sessions, per space (default 128): a process hosts one client's sessions only, so
   * this is also how many clients can hold sessions at once (docs/runtime.md, "Isolation modes").
   */
  maxSessionProcesses?: number;
  /** Whose sessions a sandbox process hosts: one client's (default) or one principal's ({@link SessionProcesses}). */
  sessionProcesses?: SessionProcesses;
  /** Seconds an HTTP client whose standalone SSE stream closed keeps its sessions, waiting for it to reconnect (default 3). */
  disconnectGraceSeconds?: number;
  /** Seconds of silence after which an HTTP client that never opened a standalone SSE stream is closed (default 1800). */
  clientIdleSeconds?: number;
  /** Seconds an HTTP client may stay unused (no request with its session id) after `initialize` (default 30). */
  unusedClientSeconds?: number;
  /** Most unused HTTP clients of one address; one more frees its oldest (default 128). */
  maxUnusedClientsPerAddress?: number;
  /** Most unused HTTP clients of all addresses; one more frees the oldest (default 1024). */
  maxUnusedClients?: number;
  /** Seconds an HTTP request's headers and body may take to arrive (default 30; headers at most 10); 408 beyond. */
  requestTimeoutSeconds?: number;
  headlessMode?: HeadlessMode;
  host?: string;
  port?: number;
  allowedHosts?: string[];
  allowedOrigins?: string[];
  /** `false` turns the HTTP rate limit off. */
  rateLimit?: RateLimitSettings | false;
  /** PostgreSQL URL of the shared stores (docs/deployment.md); default: the environment's `DATABASE_URL`, else embedded stores. */
  databaseUrl?: string;
  /** Redis URL of the shared rate-limit counters; default: the environment's `REDIS_URL`, else counted in memory. */
  redisUrl?: string;
  /** Where the other replicas reach this one (an origin, `http://10.0.0.5:8080`); default `http://127.0.0.1:<port>`. */
  advertiseUrl?: string;
  /** Per-user identity: HTTP requests carry access tokens of this authorization server (docs/mcp-server.md); not with `--auth-token`. */
  auth?: AuthSettings;
  /** Folder of agent files (docs/agents.md, "Agent files"), relative to the project; default `agent-files`. */
  agentsDir?: string;
  /**
   * The groups of built-in tools `mcp serve` lists (default: every group); `code` is always listed. A hidden tool's
   * call is refused as unknown (docs/mcp-server.md, "Tool groups").
   */
  tools?: ToolGroup[];
  /** Who may assign action servers to agents (seed 003, docs/openapi.md "Agent configs"); default: nobody. */
  assignment?: AssignmentSettings;
  /** The A2A server of seed 000's Autonomous mode on `--port` (docs/agents.md, "Agent modes"); off by default. */
  a2a?: A2ASettings;
}

/** `server.a2a`: a space served as an A2A agent, its prompt tools as skills (docs/agents.md, "Autonomous (A2A)"). */
export interface A2ASettings {
  enabled: boolean;
  /** The space served (default: the first). */
  space?: string;
  /** The A2A endpoint's public URL named in the agent card (default: `http://<Host header>/a2a`). */
  url?: string;
  /** Largest A2A request body, in bytes (default 262144); 413 beyond. */
  maxMessageBytes?: number;
  /** Most tasks one principal may have running at once (default 4); one more is refused. */
  maxTasksPerPrincipal?: number;
}

/**
 * Who may change `agent_configs/*.json` through the assignment tools and routes: nobody unless `allow` is true; then,
 * when `groups` is given, only principals in one of them (required with `server.auth`).
 */
export interface AssignmentSettings {
  allow: boolean;
  groups?: string[];
}

/**
 * The OAuth 2.1 authorization server whose access tokens (JWTs) `mcp serve` accepts, as its resource server: every
 * HTTP request carries a token of `issuer` for `audience` with all of `scopes`.
 */
export interface AuthSettings {
  /** The issuer's identifier (`iss` of its tokens, the metadata's `issuer`): an https URL (http only on a loopback host). */
  issuer: string;
  /** This server's resource URL (RFC 8707/9728), which tokens must name in `aud`, e.g. `https://mcp.example.com/mcp`. */
  audience: string;
  /** Where the issuer's signing keys are; default: the `jwks_uri` of its metadata (RFC 8414, else OpenID discovery). */
  jwksUri?: string;
  /** Scopes every request's token must hold (default: none); a token lacking one is refused with 403 `insufficient_scope`. */
  scopes?: string[];
  /** The claim holding the user's groups: an array of strings or a space-separated string (default `groups`). */
  groupsClaim?: string;
}

/** The server's part of the config file: `{ server?, spaces?, model? }`. */
export interface ServerConfig {
  server: ServerSettings;
  spaces: SpaceDefinition[];
  model?: ModelSettings;
}

/** Names of the tools every code-mode server offers; user-defined tools may not take them. */
export const BUILTIN_TOOL_NAMES = [
  'execute',
  'search_capabilities',
  'describe_capabilities',
  'create_session',
  'send_code',
  'get_session_info',
  'list_sessions',
  'get_session_history',
  'close_session',
  'inject',
  'list_spaces',
  'get_space',
  'save_skill',
  'list_skills',
  'delete_skill',
  'list_agents',
] as const;

/**
 * Names of the agent tools (docs/agents.md), listed only to clients that can have a model (sampling, or a configured
 * `model`); user-defined tools may not take them either.
 */
export const AGENT_TOOL_NAMES: readonly string[] = ['invoke_agent', 'send_message', 'invoke_with_config', 'transfer_session'];

/** Names of the action-server assignment tools (seed 003), listed by `mcp serve`; user-defined tools may not take them either. */
const ASSIGNMENT_TOOL_NAMES: readonly string[] = ['get_action_servers', 'assign_action_server', 'remove_action_server'];

/**
 * The groups of built-in tools a server lists (`server.tools`), each with its tools. `code` is always listed; the
 * spaces' own tools, direct tools and the conformance fixtures are not in a group (their config lists them).
 */
export const TOOL_GROUPS = {
  code: ['execute', 'search_capabilities', 'describe_capabilities'],
  sessions: ['create_session', 'send_code', 'get_session_info', 'list_sessions', 'get_session_history', 'close_session'],
  spaces: ['list_spaces', 'get_space'],
  inject: ['inject'],
  skills: ['save_skill', 'list_skills', 'delete_skill'],
  agents: ['list_agents', ...AGENT_TOOL_NAMES],
  assignments: ASSIGNMENT_TOOL_NAMES,
} as const satisfies Record<string, readonly string[]>;

/** One group of built-in tools (`server.tools`). */
export type ToolGroup = keyof typeof TOOL_GROUPS;

/** True unless `name` is a built-in tool of a group that `groups` leaves out (undefined `groups`: every group). */
export function isToolListed(name: string, groups: readonly ToolGroup[] | undefined): boolean {
  if (groups === undefined) return true;
  const group = (Object.keys(TOOL_GROUPS) as ToolGroup[]).find((g) => (TOOL_GROUPS[g] as readonly string[]).includes(name));
  return group === undefined || group === 'code' || groups.includes(group);
}

/** `server.tools`: each entry a known group, else `CONFIG_INVALID` with the closest group as a "did you mean". */
function checkToolGroups(check: Checker, server: unknown): void {
  const groups = (server as { tools?: unknown } | undefined)?.tools;
  if (!Array.isArray(groups)) return;
  const known = Object.keys(TOOL_GROUPS);
  groups.forEach((group, i) => {
    if (typeof group !== 'string' || known.includes(group)) return;
    const closest = closestNames(group, known, 1)[0];
    check.fail(`server.tools[${i}]`, `"${group.slice(0, 60)}" is not a tool group — ${closest ? `did you mean "${closest}"?` : `groups: ${known.join(', ')}`}`);
  });
}

/** Name of the MCP prompt offering a space's compiled prompt. */
export function spacePromptName(spaceId: string): string {
  return `inject-${spaceId}`;
}

/**
 * Validates the server part of a config object (`{ server?, spaces?, model? }`; other keys are ignored) and returns it
 * typed: its shape against `config.schema.json` (unknown keys with a "did you mean"), then what a schema cannot say
 * (URLs, folders, unique names, fields that exclude each other). Throws `CONFIG_INVALID` whose message names `file` and
 * the field (`spaces[0].tools[1].parameters.type`); `data.key` holds the field path.
 */
export function parseServerConfig(value: unknown, file: string): ServerConfig {
  const check = new Checker(file);
  const root = check.object(value, 'default');
  const part = Object.fromEntries(['server', 'spaces', 'model'].filter((key) => root[key] !== undefined).map((key) => [key, root[key]]));
  // Before the schema, whose enum message has no "did you mean".
  checkToolGroups(check, root.server);
  const [problem] = findSchemaProblems('config', part);
  if (problem) throw new AgentSpacesError('CONFIG_INVALID', `${file}: ${problem.message}`, { file, key: problem.path || 'default' });
  const server = root.server === undefined ? {} : parseSettings(check, root.server as ServerSettings);
  const spaces = ((root.spaces ?? []) as Record<string, unknown>[]).map((item, i) => parseSpace(check, item, `spaces[${i}]`));
  checkUnique(check, spaces);
  return root.model === undefined ? { server, spaces } : { server, spaces, model: parseModel(root.model, 'model', file) };
}

/** `server` (well-shaped) with its URLs and folders checked, as a new object. */
function parseSettings(check: Checker, value: ServerSettings): ServerSettings {
  const settings = structuredClone(value);
  if (settings.databaseUrl !== undefined) engineUrl(check, settings.databaseUrl, 'server.databaseUrl', ['postgres:', 'postgresql:']);
  if (settings.redisUrl !== undefined) engineUrl(check, settings.redisUrl, 'server.redisUrl', ['redis:', 'rediss:', 'valkey:']);
  if (settings.advertiseUrl !== undefined) engineUrl(check, settings.advertiseUrl, 'server.advertiseUrl', ['http:', 'https:']);
  if (settings.auth !== undefined) {
    secureUrl(check, settings.auth.issuer, 'server.auth.issuer');
    engineUrl(check, settings.auth.audience, 'server.auth.audience', ['http:', 'https:']);
    if (settings.auth.jwksUri !== undefined) secureUrl(check, settings.auth.jwksUri, 'server.auth.jwksUri');
  }
  if (settings.agentsDir !== undefined) projectFolder(check, settings.agentsDir, 'server.agentsDir');
  if (settings.assignment?.allow && settings.auth !== undefined && !settings.assignment.groups?.length) {
    check.fail('server.assignment.groups', 'must name the groups that may assign (required with server.auth)');
  }
  if (settings.a2a?.url !== undefined) engineUrl(check, settings.a2a.url, 'server.a2a.url', ['http:', 'https:']);
  return settings;
}

/** `text`, a folder relative to the project that must stay inside it (no absolute path, `~` or `..`). */
function projectFolder(check: Checker, text: string, key: string): void {
  if (/^([/\\~]|[A-Za-z]:)/.test(text) || text.split(/[/\\]/).includes('..')) check.fail(key, 'must be a folder relative to the project, inside it');
}

/** `text` as an https URL, or an http one of a loopback host (`127.0.0.1`, `localhost`, `[::1]`: tests, a local issuer). */
function secureUrl(check: Checker, text: string, key: string): void {
  engineUrl(check, text, key, ['http:', 'https:']);
  if (!isSecureUrl(text)) check.fail(key, 'must be an https URL (http only for 127.0.0.1, localhost or [::1])');
  const url = new URL(text);
  if (url.hash !== '' || url.search !== '') check.fail(key, 'may not have a query or a fragment');
}

/** `text` must be a URL of one of `protocols`; never echoed in the error (it may hold a password). */
function engineUrl(check: Checker, text: string, key: string, protocols: readonly string[]): void {
  const protocol = URL.canParse(text) ? new URL(text).protocol : undefined;
  if (protocol === undefined) check.fail(key, `must be a URL (${protocols.map((p) => `${p}//…`).join(', ')})`);
  if (!protocols.includes(protocol)) check.fail(key, `must be a ${protocols.join(' or ')} URL, not ${protocol}`);
}

/** One space (well-shaped) as a new object without `$schema`; its model is read by the SDK, its tools checked. */
function parseSpace(check: Checker, value: Record<string, unknown>, at: string): SpaceDefinition {
  const space = structuredClone(Object.fromEntries(Object.entries(value).filter(([key]) => key !== '$schema'))) as unknown as SpaceDefinition;
  if (space.model !== undefined) space.model = parseModel(space.model, `${at}.model`, check.file);
  space.tools?.forEach((tool, i) => checkTool(check, tool as unknown as Record<string, unknown>, `${at}.tools[${i}]`));
  const privacy = privacySettingsOf(space.privacy);
  if (privacy) checkPrivacySettings(privacy, `${at}.privacy`, (key, problem) => check.fail(key, problem));
  return space;
}

/** A tool has exactly one of `code` and `prompt`, and `maxTurns` only with `prompt`. */
function checkTool(check: Checker, tool: Record<string, unknown>, at: string): void {
  if ((tool.code === undefined) === (tool.prompt === undefined)) check.fail(at, 'must have exactly one of "code" and "prompt"');
  if (tool.code !== undefined && tool.maxTurns !== undefined) check.fail(`${at}.maxTurns`, 'applies only to a tool with "prompt"');
}

/** True for a tool answered by a headless agent rather than a script. */
export function isPromptTool(tool: UserTool | PromptTool): tool is PromptTool {
  return 'prompt' in tool;
}

/** Space ids, tool names and prompt names must be unique across the whole server. */
function checkUnique(check: Checker, spaces: SpaceDefinition[]): void {
  const ids = new Set<string>();
  const tools = new Set<string>([...BUILTIN_TOOL_NAMES, ...AGENT_TOOL_NAMES, ...ASSIGNMENT_TOOL_NAMES]);
  const prompts = new Set(spaces.map((s) => spacePromptName(s.id)));
  spaces.forEach((space, i) => {
    if (ids.has(space.id)) check.fail(`spaces[${i}].id`, `duplicates the space id "${space.id}"`);
    ids.add(space.id);
    space.tools?.forEach((tool, j) => {
      if (tools.has(tool.name)) check.fail(`spaces[${i}].tools[${j}].name`, `"${tool.name}" is already a tool of this server`);
      tools.add(tool.name);
    });
    space.prompts?.forEach((prompt, j) => {
      if (prompts.has(prompt.name)) check.fail(`spaces[${i}].prompts[${j}].name`, `"${prompt.name}" is already a prompt of this server`);
      prompts.add(prompt.name);
    });
  });
}

/** Throws `CONFIG_INVALID` naming the file and the field. */
class Checker {
  constructor(readonly file: string) {}

  fail(key: string, problem: string): never {
    throw new AgentSpacesError('CONFIG_INVALID', `${this.file}: ${key} ${problem}`, { file: this.file, key });
  }

  object(value: unknown, key: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(key, 'must be an object');
    return value as Record<string, unknown>;
  }
}
