import { AgentSpacesError, type ObjectSchema } from '@agent-spaces/capabilities';
import { TOOL_PERMISSIONS, parseModel, type ModelSettings, type ToolPermission } from '@agent-spaces/sdk';
import { isSecureUrl } from './auth/discovery.js';

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
}

/** What the server does with a call that needs approval when the MCP client cannot be asked (no elicitation). */
export type HeadlessMode = 'deny' | 'allow' | 'wait';

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

/** Name of the MCP prompt offering a space's compiled prompt. */
export function spacePromptName(spaceId: string): string {
  return `inject-${spaceId}`;
}

const ID = /^[A-Za-z0-9_.-]{1,64}$/;
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * Validates the server part of a config object (`{ server?, spaces? }`; other keys are ignored) and returns it typed.
 * Throws `CONFIG_INVALID` whose message names `file` and the field (`spaces[0].tools[1].parameters`); `data.key` holds
 * the field path.
 */
export function parseServerConfig(value: unknown, file: string): ServerConfig {
  const check = new Checker(file);
  const root = check.object(value, 'default');
  const server = root.server === undefined ? {} : parseSettings(check, root.server);
  const spaces = root.spaces === undefined ? [] : check.array(root.spaces, 'spaces').map((item, i) => parseSpace(check, item, `spaces[${i}]`));
  checkUnique(check, spaces);
  return root.model === undefined ? { server, spaces } : { server, spaces, model: parseModel(root.model, 'model', file) };
}

function parseSettings(check: Checker, value: unknown): ServerSettings {
  const o = check.object(value, 'server', [
    'timeoutSeconds',
    'maxSessions',
    'maxSessionsPerClient',
    'disconnectGraceSeconds',
    'clientIdleSeconds',
    'unusedClientSeconds',
    'maxUnusedClientsPerAddress',
    'maxUnusedClients',
    'maxSessionProcesses',
    'requestTimeoutSeconds',
    'headlessMode',
    'host',
    'port',
    'allowedHosts',
    'allowedOrigins',
    'rateLimit',
    'databaseUrl',
    'redisUrl',
    'advertiseUrl',
    'auth',
    'agentsDir',
    'assignment',
    'a2a',
  ]);
  const settings: ServerSettings = {};
  if (o.timeoutSeconds !== undefined) settings.timeoutSeconds = check.positive(o.timeoutSeconds, 'server.timeoutSeconds');
  if (o.maxSessions !== undefined) settings.maxSessions = check.integer(o.maxSessions, 'server.maxSessions', 1);
  if (o.maxSessionsPerClient !== undefined) settings.maxSessionsPerClient = check.integer(o.maxSessionsPerClient, 'server.maxSessionsPerClient', 1);
  if (o.disconnectGraceSeconds !== undefined) settings.disconnectGraceSeconds = check.positive(o.disconnectGraceSeconds, 'server.disconnectGraceSeconds');
  if (o.clientIdleSeconds !== undefined) settings.clientIdleSeconds = check.positive(o.clientIdleSeconds, 'server.clientIdleSeconds');
  if (o.unusedClientSeconds !== undefined) settings.unusedClientSeconds = check.positive(o.unusedClientSeconds, 'server.unusedClientSeconds');
  if (o.maxUnusedClientsPerAddress !== undefined) {
    settings.maxUnusedClientsPerAddress = check.integer(o.maxUnusedClientsPerAddress, 'server.maxUnusedClientsPerAddress', 1);
  }
  if (o.maxUnusedClients !== undefined) settings.maxUnusedClients = check.integer(o.maxUnusedClients, 'server.maxUnusedClients', 1);
  if (o.maxSessionProcesses !== undefined) settings.maxSessionProcesses = check.integer(o.maxSessionProcesses, 'server.maxSessionProcesses', 1);
  if (o.requestTimeoutSeconds !== undefined) settings.requestTimeoutSeconds = check.positive(o.requestTimeoutSeconds, 'server.requestTimeoutSeconds');
  if (o.headlessMode !== undefined) {
    if (o.headlessMode !== 'deny' && o.headlessMode !== 'allow' && o.headlessMode !== 'wait') check.fail('server.headlessMode', 'must be "deny", "allow" or "wait"');
    settings.headlessMode = o.headlessMode;
  }
  if (o.host !== undefined) settings.host = check.string(o.host, 'server.host');
  if (o.port !== undefined) settings.port = check.integer(o.port, 'server.port', 0, 65535);
  if (o.allowedHosts !== undefined) settings.allowedHosts = check.strings(o.allowedHosts, 'server.allowedHosts');
  if (o.allowedOrigins !== undefined) settings.allowedOrigins = check.strings(o.allowedOrigins, 'server.allowedOrigins');
  if (o.databaseUrl !== undefined) settings.databaseUrl = engineUrl(check, o.databaseUrl, 'server.databaseUrl', ['postgres:', 'postgresql:']);
  if (o.redisUrl !== undefined) settings.redisUrl = engineUrl(check, o.redisUrl, 'server.redisUrl', ['redis:', 'rediss:', 'valkey:']);
  if (o.advertiseUrl !== undefined) settings.advertiseUrl = engineUrl(check, o.advertiseUrl, 'server.advertiseUrl', ['http:', 'https:']);
  if (o.auth !== undefined) settings.auth = parseAuth(check, o.auth);
  if (o.agentsDir !== undefined) settings.agentsDir = projectFolder(check, o.agentsDir, 'server.agentsDir');
  if (o.assignment !== undefined) settings.assignment = parseAssignment(check, o.assignment, settings.auth !== undefined);
  if (o.a2a !== undefined) settings.a2a = parseA2A(check, o.a2a);
  if (o.rateLimit === false) settings.rateLimit = false;
  else if (o.rateLimit !== undefined) {
    const r = check.object(o.rateLimit, 'server.rateLimit', ['requests', 'windowSeconds']);
    settings.rateLimit = {
      requests: check.integer(r.requests, 'server.rateLimit.requests', 1),
      windowSeconds: check.positive(r.windowSeconds, 'server.rateLimit.windowSeconds'),
    };
  }
  return settings;
}

function parseAssignment(check: Checker, value: unknown, oauth: boolean): AssignmentSettings {
  const o = check.object(value, 'server.assignment', ['allow', 'groups']);
  if (typeof o.allow !== 'boolean') check.fail('server.assignment.allow', 'must be a boolean');
  const assignment: AssignmentSettings = { allow: o.allow };
  if (o.groups !== undefined) assignment.groups = check.strings(o.groups, 'server.assignment.groups');
  if (oauth && assignment.allow && !assignment.groups?.length) check.fail('server.assignment.groups', 'must name the groups that may assign (required with server.auth)');
  return assignment;
}

/** `value` as a folder relative to the project that stays inside it (no absolute path, `~` or `..`). */
function projectFolder(check: Checker, value: unknown, key: string): string {
  const text = check.string(value, key);
  if (/^([/\\~]|[A-Za-z]:)/.test(text) || text.split(/[/\\]/).includes('..')) check.fail(key, 'must be a folder relative to the project, inside it');
  return text;
}

function parseA2A(check: Checker, value: unknown): A2ASettings {
  const o = check.object(value, 'server.a2a', ['enabled', 'space', 'url', 'maxMessageBytes', 'maxTasksPerPrincipal']);
  if (typeof o.enabled !== 'boolean') check.fail('server.a2a.enabled', 'must be a boolean');
  const a2a: A2ASettings = { enabled: o.enabled };
  if (o.space !== undefined) a2a.space = check.string(o.space, 'server.a2a.space');
  if (o.url !== undefined) a2a.url = engineUrl(check, o.url, 'server.a2a.url', ['http:', 'https:']);
  if (o.maxMessageBytes !== undefined) a2a.maxMessageBytes = check.integer(o.maxMessageBytes, 'server.a2a.maxMessageBytes', 1024, 4 * 1024 * 1024);
  if (o.maxTasksPerPrincipal !== undefined) a2a.maxTasksPerPrincipal = check.integer(o.maxTasksPerPrincipal, 'server.a2a.maxTasksPerPrincipal', 1, 1000);
  return a2a;
}

const CLAIM_NAME = /^[A-Za-z0-9_.:/-]{1,128}$/;

function parseAuth(check: Checker, value: unknown): AuthSettings {
  const o = check.object(value, 'server.auth', ['issuer', 'audience', 'jwksUri', 'scopes', 'groupsClaim']);
  const auth: AuthSettings = {
    issuer: secureUrl(check, o.issuer, 'server.auth.issuer'),
    audience: engineUrl(check, o.audience, 'server.auth.audience', ['http:', 'https:']),
  };
  if (o.jwksUri !== undefined) auth.jwksUri = secureUrl(check, o.jwksUri, 'server.auth.jwksUri');
  if (o.scopes !== undefined) {
    auth.scopes = check.strings(o.scopes, 'server.auth.scopes');
    auth.scopes.forEach((scope, i) => {
      if (/\s|"|\\/.test(scope)) check.fail(`server.auth.scopes[${i}]`, 'may not hold spaces, quotes or backslashes');
    });
  }
  if (o.groupsClaim !== undefined) {
    auth.groupsClaim = check.string(o.groupsClaim, 'server.auth.groupsClaim');
    if (!CLAIM_NAME.test(auth.groupsClaim)) check.fail('server.auth.groupsClaim', 'must be a claim name (letters, digits, "_", ".", ":", "/", "-"; at most 128)');
  }
  return auth;
}

/** `value` as an https URL, or an http one of a loopback host (`127.0.0.1`, `localhost`, `[::1]`: tests, a local issuer). */
function secureUrl(check: Checker, value: unknown, key: string): string {
  const text = engineUrl(check, value, key, ['http:', 'https:']);
  if (!isSecureUrl(text)) check.fail(key, 'must be an https URL (http only for 127.0.0.1, localhost or [::1])');
  const url = new URL(text);
  if (url.hash !== '' || url.search !== '') check.fail(key, 'may not have a query or a fragment');
  return text;
}

const SPACE_KEYS = [
  'id',
  'name',
  'description',
  'version',
  'systemPrompt',
  'skills',
  'capabilities',
  'tools',
  'prompts',
  'instructions',
  'model',
  'toolPermission',
];

/** `value` as a URL of one of `protocols`; never echoed in the error (it may hold a password). */
function engineUrl(check: Checker, value: unknown, key: string, protocols: readonly string[]): string {
  const text = check.string(value, key);
  let protocol: string | undefined;
  try {
    protocol = new URL(text).protocol;
  } catch {
    check.fail(key, `must be a URL (${protocols.map((p) => `${p}//…`).join(', ')})`);
  }
  if (!protocols.includes(protocol)) check.fail(key, `must be a ${protocols.join(' or ')} URL, not ${protocol}`);
  return text;
}

function parseSpace(check: Checker, value: unknown, at: string): SpaceDefinition {
  const o = check.object(value, at, SPACE_KEYS);
  const id = check.string(o.id, `${at}.id`);
  if (!ID.test(id)) check.fail(`${at}.id`, 'may hold only letters, digits, ".", "_" and "-" (at most 64)');
  const space: SpaceDefinition = { id, name: check.string(o.name, `${at}.name`) };
  for (const key of ['description', 'version', 'systemPrompt', 'instructions'] as const) {
    if (o[key] !== undefined) space[key] = check.string(o[key], `${at}.${key}`, true);
  }
  if (o.capabilities !== undefined) space.capabilities = check.strings(o.capabilities, `${at}.capabilities`);
  if (o.skills !== undefined) {
    space.skills = check.array(o.skills, `${at}.skills`).map((item, i) => {
      const where = `${at}.skills[${i}]`;
      const s = check.object(item, where, ['id', 'name', 'description', 'enabled']);
      if (typeof s.enabled !== 'boolean') check.fail(`${where}.enabled`, 'must be a boolean');
      return {
        id: check.string(s.id, `${where}.id`),
        name: check.string(s.name, `${where}.name`),
        description: check.string(s.description, `${where}.description`, true),
        enabled: s.enabled,
      };
    });
  }
  if (o.tools !== undefined) space.tools = check.array(o.tools, `${at}.tools`).map((item, i) => parseTool(check, item, `${at}.tools[${i}]`));
  if (o.prompts !== undefined) {
    space.prompts = check.array(o.prompts, `${at}.prompts`).map((item, i) => parsePrompt(check, item, `${at}.prompts[${i}]`));
  }
  if (o.model !== undefined) space.model = parseModel(o.model, `${at}.model`, check.file);
  if (o.toolPermission !== undefined) {
    if (!TOOL_PERMISSIONS.includes(o.toolPermission as ToolPermission)) check.fail(`${at}.toolPermission`, `must be one of ${TOOL_PERMISSIONS.map((p) => `"${p}"`).join(', ')}`);
    space.toolPermission = o.toolPermission as ToolPermission;
  }
  return space;
}

function parseTool(check: Checker, value: unknown, at: string): UserTool | PromptTool {
  const o = check.object(value, at, ['name', 'description', 'parameters', 'code', 'prompt', 'maxTurns']);
  const name = check.string(o.name, `${at}.name`);
  if (!TOOL_NAME.test(name)) check.fail(`${at}.name`, 'may hold only letters, digits, "_" and "-" (at most 64)');
  const parameters = check.object(o.parameters, `${at}.parameters`);
  if (parameters.type !== 'object') check.fail(`${at}.parameters.type`, 'must be "object" (a tool takes one arguments object)');
  if (parameters.properties !== undefined) check.object(parameters.properties, `${at}.parameters.properties`);
  const common = { name, description: check.string(o.description, `${at}.description`), parameters: parameters as unknown as ObjectSchema };
  if ((o.code === undefined) === (o.prompt === undefined)) check.fail(at, 'must have exactly one of "code" and "prompt"');
  if (o.code !== undefined) {
    if (o.maxTurns !== undefined) check.fail(`${at}.maxTurns`, 'applies only to a tool with "prompt"');
    return { ...common, code: check.string(o.code, `${at}.code`) };
  }
  const tool: PromptTool = { ...common, prompt: check.string(o.prompt, `${at}.prompt`) };
  if (o.maxTurns !== undefined) tool.maxTurns = check.integer(o.maxTurns, `${at}.maxTurns`, 1, 100);
  return tool;
}

/** True for a tool answered by a headless agent rather than a script. */
export function isPromptTool(tool: UserTool | PromptTool): tool is PromptTool {
  return 'prompt' in tool;
}

function parsePrompt(check: Checker, value: unknown, at: string): PromptTemplate {
  const o = check.object(value, at, ['name', 'description', 'arguments', 'template']);
  const name = check.string(o.name, `${at}.name`);
  if (!TOOL_NAME.test(name)) check.fail(`${at}.name`, 'may hold only letters, digits, "_" and "-" (at most 64)');
  const prompt: PromptTemplate = { name, template: check.string(o.template, `${at}.template`) };
  if (o.description !== undefined) prompt.description = check.string(o.description, `${at}.description`, true);
  if (o.arguments !== undefined) {
    prompt.arguments = check.array(o.arguments, `${at}.arguments`).map((item, i) => {
      const where = `${at}.arguments[${i}]`;
      const a = check.object(item, where, ['name', 'description', 'required']);
      const argument: PromptArgumentDefinition = { name: check.string(a.name, `${where}.name`) };
      if (a.description !== undefined) argument.description = check.string(a.description, `${where}.description`, true);
      if (a.required !== undefined) {
        if (typeof a.required !== 'boolean') check.fail(`${where}.required`, 'must be a boolean');
        argument.required = a.required;
      }
      return argument;
    });
  }
  return prompt;
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

/** Small typed readers that throw `CONFIG_INVALID` naming the file and the field. */
class Checker {
  constructor(readonly file: string) {}

  fail(key: string, problem: string): never {
    throw new AgentSpacesError('CONFIG_INVALID', `${this.file}: ${key} ${problem}`, { file: this.file, key });
  }

  object(value: unknown, key: string, known?: readonly string[]): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(key, 'must be an object');
    const record = value as Record<string, unknown>;
    if (known) {
      const unknownKey = Object.keys(record).find((k) => !known.includes(k));
      if (unknownKey !== undefined) this.fail(`${key}.${unknownKey}`, `is not a known key (known: ${known.join(', ')})`);
    }
    return record;
  }

  array(value: unknown, key: string): unknown[] {
    if (!Array.isArray(value)) this.fail(key, 'must be an array');
    return value;
  }

  string(value: unknown, key: string, allowEmpty = false): string {
    if (typeof value !== 'string' || (!allowEmpty && value.length === 0)) this.fail(key, allowEmpty ? 'must be a string' : 'must be a non-empty string');
    return value;
  }

  strings(value: unknown, key: string): string[] {
    return this.array(value, key).map((item, i) => this.string(item, `${key}[${i}]`));
  }

  integer(value: unknown, key: string, min: number, max = Number.MAX_SAFE_INTEGER): number {
    if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
      this.fail(key, `must be an integer from ${min}${max === Number.MAX_SAFE_INTEGER ? '' : ` to ${max}`}`);
    }
    return value;
  }

  positive(value: unknown, key: string): number {
    if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) this.fail(key, 'must be a positive number');
    return value;
  }
}
