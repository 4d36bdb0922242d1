import type { Command, CommandOption } from './options.js';


const config: CommandOption = { type: 'string', description: 'Config file (default: agent-spaces.config.{ts,mjs,json})', valueName: 'file' };
const out: CommandOption = { type: 'string', description: 'Build output folder (default: .agent-spaces)', valueName: 'dir' };
const json: CommandOption = { type: 'boolean', description: 'Print machine-readable JSON' };

/** Every command of `agent-spaces`. */
export const commands: Command[] = [
  {
    path: ['init'],
    positionals: [],
    description: 'Start a project here: config, an example capability and agent script, editor tsconfig, .gitignore entry',
    options: { mcp: { type: 'string', description: 'Also write the MCP client snippet: claude, cursor or vscode', valueName: 'client' }, json },
    load: async () => (await import('./init.js')).init,
  },
  {
    path: ['capabilities', 'build'],
    positionals: [],
    description: 'Compile capability sources into typed modules under .agent-spaces/',
    options: { config, out: { type: 'string', description: 'Output folder (default: .agent-spaces)', valueName: 'dir' }, force: { type: 'boolean', description: 'Rebuild even unchanged sources' }, refresh: { type: 'boolean', description: 'Fetch remote OpenAPI specs again, ignoring the cache' }, watch: { type: 'boolean', short: 'w', description: 'Then rebuild on every change of a source, the config or a spec, one line per rebuild' }, json },
    load: async () => (await import('./build.js')).build,
  },
  {
    path: ['capabilities', 'list'],
    positionals: [],
    description: 'List built capabilities',
    options: { config, json },
    load: async () => (await import('./list.js')).list,
  },
  {
    path: ['capabilities', 'show'],
    positionals: ['name'],
    description: "Print a built capability's TypeScript declarations",
    options: { config, json },
    load: async () => (await import('./list.js')).show,
  },
  {
    path: ['skills', 'list'],
    positionals: [],
    description: 'List the typed skills of the project (skills/*.ts, imported from @capabilities/skills)',
    options: { config, json },
    load: async () => (await import('./skills.js')).list,
  },
  {
    path: ['skills', 'save'],
    positionals: ['file.ts'],
    description: 'Typecheck a function and save it as skills/<name>.ts, then rebuild so scripts can import it',
    options: {
      config,
      json,
      name: { type: 'string', description: "The skill's name (default: the file's name)", valueName: 'name' },
      description: { type: 'string', description: 'Its doc comment, when the code has none', valueName: 'text' },
      replace: { type: 'boolean', description: 'Overwrite a skill of the same name' },
    },
    load: async () => (await import('./skills.js')).save,
  },
  {
    path: ['skills', 'remove'],
    positionals: ['name'],
    description: 'Delete the skill skills/<name>.ts and rebuild',
    options: { config, json },
    load: async () => (await import('./skills.js')).remove,
  },
  {
    path: ['run'],
    positionals: ['file.ts'],
    description: 'Run an agent script in the sandbox, printing capability calls and logs live',
    options: {
      config,
      json,
      'no-check': { type: 'boolean', description: 'Skip the pre-run typecheck' },
      approve: { type: 'string', description: 'Answer approvals when stdin is not a terminal: all or none (default: none, denied)', valueName: 'all|none' },
    },
    load: async () => (await import('./run.js')).run,
  },
  {
    path: ['check'],
    positionals: ['file.ts'],
    description: 'Typecheck an agent script against the built capabilities',
    options: { config, json },
    load: async () => (await import('./run.js')).check,
  },
  {
    path: ['ask'],
    positionals: ['message'],
    description: "Ask a headless agent, which answers by writing code in the space; prints its steps live and its answer",
    options: {
      config,
      json,
      model: { type: 'string', description: "Model as [provider:]model (default: the config's model)", valueName: 'model' },
      'base-url': { type: 'string', description: "The provider's API root (default: the config's)", valueName: 'url' },
      'max-turns': { type: 'string', description: 'Most model turns (default: 10)', valueName: 'n' },
      'tool-permission': { type: 'string', description: 'What its code may call: never, tool (default: no gated functions) or always', valueName: 'never|tool|always' },
    },
    load: async () => (await import('./ask.js')).ask,
  },
  {
    path: ['chat'],
    positionals: [],
    description: "Chat with a space's headless agent on stdin/stdout (its model, else the config's); /exit ends it",
    options: {
      config,
      out,
      space: { type: 'string', description: 'The space to chat with (default: the first)', valueName: 'id' },
    },
    load: async () => (await import('@agent-spaces/server')).chat,
  },
  {
    path: ['mcp', 'serve'],
    positionals: [],
    description: 'Serve the spaces as a code-mode MCP server (execute, search, sessions, injection) over stdio or HTTP',
    options: {
      config,
      out,
      stdio: { type: 'boolean', description: 'Serve over stdio (the default without --port)' },
      port: { type: 'string', description: 'Serve Streamable HTTP on this port (0 picks a free one)', valueName: 'n' },
      host: { type: 'string', description: 'Address to bind for HTTP (default: 127.0.0.1)', valueName: 'addr' },
      timeout: { type: 'string', description: 'Idle timeout of sessions in seconds (default: 3600)', valueName: 's' },
      'max-sessions': { type: 'string', description: 'Most sessions of all clients; see docs/mcp-server.md for the cap (default: 256)', valueName: 'n' },
      'max-sessions-per-client': { type: 'string', description: 'Most sessions of one client (default: 16)', valueName: 'n' },
      'session-processes': { type: 'string', description: "Whose sessions a sandbox process hosts: one client's (default) or one principal's", valueName: 'client|principal' },
      'auth-token': { type: 'string', description: "Bearer token every HTTP request must carry (default: $AGENT_SPACES_MCP_TOKEN; not with the config's server.auth)", valueName: 'token' },
      headless: { type: 'string', description: 'Calls needing approval when the client cannot be asked: deny (default), allow, or wait for `agent-spaces approvals`', valueName: 'deny|allow|wait' },
      'log-format': { type: 'string', description: 'Log lines on stderr: text (default) or json (one object per line)', valueName: 'text|json' },
      'database-url': { type: 'string', description: 'PostgreSQL of the shared stores, for replicas (default: $DATABASE_URL; docs/deployment.md)', valueName: 'url' },
      'redis-url': { type: 'string', description: 'Redis of the shared rate-limit counters (default: $REDIS_URL)', valueName: 'url' },
      'advertise-url': { type: 'string', description: 'Where other replicas reach this one (default: http://127.0.0.1:<port>)', valueName: 'url' },
      'conformance-fixtures': { type: 'boolean', description: "Also serve the MCP conformance suite's test tools, prompts and resources (for conformance testing only)" },
    },
    load: async () => (await import('@agent-spaces/server')).serve,
  },
  {
    path: ['doctor'],
    positionals: [],
    description: "Check Node, isolated-vm, the config, the build's freshness, and each MCP server and OpenAPI spec",
    options: { config, out, json },
    load: async () => (await import('./doctor.js')).doctor,
  },
  {
    path: ['audit'],
    positionals: [],
    description: 'Print the audit log of capability calls (decision, who made it, outcome, duration)',
    options: {
      config,
      space: { type: 'string', description: 'Only this space (default: every space)', valueName: 'name' },
      since: { type: 'string', description: 'Only calls since an ISO time or a duration ago (30s, 10m, 2h, 7d)', valueName: 'time' },
      principal: { type: 'string', description: 'Only calls made for this principal id (user:alice, token:…, local)', valueName: 'id' },
      'database-url': { type: 'string', description: 'Read the shared database of mcp serve replicas (default: $DATABASE_URL)', valueName: 'url' },
      json,
    },
    load: async () => (await import('./audit.js')).audit,
  },
  ...approvalCommands(),
  {
    path: ['completion'],
    positionals: ['shell'],
    description: 'Print the shell completion script for bash, zsh or fish (e.g. `source <(agent-spaces completion bash)`)',
    options: {},
    load: async () => (await import('../completion.js')).completion,
  },
];

/** `mcp run`: seed 004's name of `mcp serve` (the same command, listed in the help beside it). */
const mcpServe = commands.find((c) => c.path.join(' ') === 'mcp serve')!;
commands.splice(commands.indexOf(mcpServe) + 1, 0, { ...mcpServe, path: ['mcp', 'run'], description: 'Same as mcp serve (seed 004\'s name for it)' });

/** `approvals list|show|approve|deny`: against the project's store, or a running `mcp serve` with `--server`. */
function approvalCommands(): Command[] {
  const where: Record<string, CommandOption> = {
    config,
    out,
    server: { type: 'string', description: 'Use the /approvals API of a running mcp serve at this URL instead of the project\'s store', valueName: 'url' },
    token: { type: 'string', description: 'Bearer token of --server (default: $AGENT_SPACES_TOKEN, then $AGENT_SPACES_MCP_TOKEN)', valueName: 'token' },
    'database-url': { type: 'string', description: 'The shared database of mcp serve replicas (default: $DATABASE_URL)', valueName: 'url' },
    json,
  };
  const answer: Record<string, CommandOption> = {
    ...where,
    by: { type: 'string', description: 'Who answers, for the audit log (default: your user name)', valueName: 'name' },
    reason: { type: 'string', description: 'Why, for the audit log and the denied call\'s error', valueName: 'text' },
  };
  const load = (name: 'list' | 'show' | 'approve' | 'deny') => async () => (await import('./approvals.js'))[name];
  return [
    { path: ['approvals', 'list'], positionals: [], description: 'List the pending approval requests (of mcp serve and its runs)', options: where, load: load('list') },
    { path: ['approvals', 'show'], positionals: ['id'], description: 'Show an approval request: the call, its params (redacted) and the code', options: where, load: load('show') },
    { path: ['approvals', 'approve'], positionals: ['id'], description: 'Approve a pending request; the waiting run goes on', options: answer, load: load('approve') },
    { path: ['approvals', 'deny'], positionals: ['id'], description: 'Deny a pending request; the call fails with APPROVAL_DENIED', options: answer, load: load('deny') },
  ];
}
