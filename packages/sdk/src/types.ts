import type { AnyToolDefinition, CallOutcome, McpServers, PoliciesConfig, Principal, RunEvent, StdConfig, TypecheckBudget, UserSecrets } from '@agent-spaces/capabilities';
import type { Approvals, Approver, GateStores, PolicyHook, RunStore, RuntimeHandlers } from '@agent-spaces/bridge';
import type { ProcessOptions, RunLimits, SandboxStats, SessionOptions } from '@agent-spaces/runtime';
import type { AgentRun, AskOptions } from './agent/agent-run.js';
import type { FunctionFilter } from './offer.js';
import type { Run, RunResult } from './run.js';
import type { TypecheckDiagnostic } from './typecheck.js';

/** Options of {@link createSpace}. */
export interface SpaceOptions {
  /** Name of the space (default `default`); names its workspace folder. */
  name?: string;
  /**
   * The capabilities the space may import: built ones by id (`'train-schedule'`), `'mcp:<server>'`, `'openapi:<name>'`
   * or the npm package they were built from (`'@company/internal-sdk'`; `'@agent-spaces/std'` is always offered), or
   * definitions given inline — a `defineTool()` value (its handlers run on the host) or a JSON definition object (its
   * calls go to `handlers`). Default: every built capability.
   */
  capabilities?: readonly (string | AnyToolDefinition | Record<string, unknown>)[];
  /** Host handlers for capabilities whose executor is `runtime`: `{ [capability]: { [function]: handler } }`. */
  handlers?: RuntimeHandlers;
  /** Limits of every run (per-run overrides via `run(code, { limits })`). */
  limits?: Partial<RunLimits>;
  /**
   * Where agent code runs (docs/runtime.md, "Isolation modes"). `'process'` (default): in supervised sandbox
   * processes, so that a V8 fatal error, an abort or a hang costs only the runs of that process (they end with
   * `SANDBOX_CRASHED` or their limit) and the host goes on. `'in-process'`: in isolates of this process, about
   * 3× cheaper per call, for code you trust not to crash V8; it needs node started with `--no-node-snapshot` (else
   * `createSpace` throws `SANDBOX_UNAVAILABLE`), which `'process'` does not.
   */
  isolation?: 'process' | 'in-process';
  /** Sandbox processes of `isolation: 'process'`: how many at most, their RSS ceiling, how long an idle one stays. */
  processes?: ProcessOptions;
  /**
   * Rules, headless mode (`toolPermission`), approval timeout, rate limits, secrets and audit log (docs/policies.md);
   * the CLI passes the config file's `policies`. Default: ask when a function requires approval, audit log on.
   */
  policies?: PoliciesConfig;
  /** Decides allow / deny / ask per call, instead of `policies.rules` and `policies.toolPermission`. */
  policy?: PolicyHook;
  /** Answers approval requests (`true`/`false` or `{ approved, reason, by }`); without it, calls that need approval are denied. */
  onApproval?: Approver;
  /** Keep approval requests pending for `space.approvals.resolve()` (until `policies.approvalTimeoutMs`) even without `onApproval`. */
  awaitApprovals?: boolean;
  /** Project folder holding `.agent-spaces/` (default: the current directory). */
  rootDir?: string;
  /** Build output folder (default `<rootDir>/.agent-spaces`). */
  outDir?: string;
  /**
   * What `@agent-spaces/std`'s `http` and `fs` may do, as the config file's `std` key (the CLI and `mcp serve` pass
   * it): `{ http: { allowHosts, methods }, fs: { root, write } }`, `fs.root` relative to `rootDir`. Default: no
   * network, and a read-only folder of the space's own, `<outDir>/workspaces/<name>`.
   */
  std?: StdConfig;
  /** Typecheck code before running it (default true). */
  typecheck?: boolean;
  /**
   * What one typecheck may cost: time, worker heap, source size (the config file's `typecheck` key; docs/security.md).
   * A check past it is stopped and its run refused with `TYPECHECK_LIMIT`. Default `DEFAULT_TYPECHECK_BUDGET`.
   */
  typecheckBudget?: Partial<TypecheckBudget>;
  /**
   * Functions of the capabilities the space leaves out (a headless agent run offers only those that need no approval):
   * they are not in its declarations, so code using them fails the typecheck, and the bridge refuses calls to them
   * (`FUNCTION_NOT_FOUND`). Default: none.
   */
  hideFunctions?: FunctionFilter;
  /**
   * Configs of the MCP servers that built `mcp-*` capabilities call, as in `mcpServers` of the config file (`${VAR}`
   * placeholders are expanded from the host environment and `<rootDir>/.env` when a server is started). Default:
   * read from the project config in `rootDir` (or its `.mcp.json`), only when such a capability is used. The space
   * starts each server on its first call, keeps it for later runs, and stops it in `close()`.
   */
  mcpServers?: McpServers;
  /**
   * Where `${user:NAME}` placeholders (MCP server `headers` / `env`, OpenAPI `auth` / `headers`, HTTP tool `headers`)
   * resolve for the principal of each call (`RunOptions.principal`, `local` without one): a JSON file path relative to
   * `rootDir` (`{ "<principal id>": { "NAME": "value" } }`, the config key `userSecrets`; docs/mcp.md, "Per-user
   * credentials"), or any {@link UserSecrets} store. Default: none, so such a call fails `CREDENTIAL_MISSING`.
   */
  userSecrets?: string | UserSecrets;
  /**
   * Record the shape of each result of an MCP tool without an output schema (field names and JSON types of its
   * data, never a value) into `<outDir>/observed/<id>.json`, so the next `capabilities build` types the tool's
   * result from them; the file is written about a second after a result, and by `close()`. Default true; `false`
   * records nothing.
   */
  recordResults?: boolean;
  /**
   * Where the space keeps its state instead of the embedded stores (the audit log file; approvals, rate-limit counts
   * and runs in memory): pass other implementations of the store interfaces (docs/sdk.md, "Stores").
   */
  stores?: SpaceStores;
  /** Size budget, in bytes, of a kept run's ledger (default 1 MiB): past it, the run cannot be resumed after a restart. */
  maxLedgerBytes?: number;
}

/** The stores of a space: each one given replaces the embedded one. */
export interface SpaceStores extends GateStores {
  /**
   * Where runs are put on record (default: in memory, while they run). Given one, a session's runs are kept as they end
   * (so `restoreSession` can replay them) until the session is closed.
   */
  runs?: RunStore;
}

/** Options of one run. */
export interface RunOptions {
  /** Aborts the run (it ends with `ABORTED`). */
  signal?: AbortSignal;
  /** Called with every event as it happens. */
  onEvent?: (event: RunEvent) => void;
  /**
   * Answers this run's approval requests instead of the space's `onApproval` (e.g. the client that started the run).
   * Its `signal` aborts when a request is settled another way (timeout, `approvals.resolve()`, the run aborted).
   */
  onApproval?: Approver;
  /**
   * Who the run is for (e.g. an MCP client's id): the sandbox shares its processes fairly between owners, so one
   * owner's hung runs cannot take them all, and hosts a session only with sessions of its own owner; the typecheck
   * workers serve owners fairly too (docs/security.md).
   */
  owner?: string;
  /**
   * Who the run is for (over `mcp serve`, the client's proven identity): each of its calls carries it into the bridge,
   * where policy rules, approvals, rate limits and the audit log read it, and handlers get it as `context.principal`.
   */
  principal?: Principal;
  /** Limits for this run only. */
  limits?: Partial<RunLimits>;
  /** Overrides the space's `typecheck` for this run. */
  typecheck?: boolean;
  /** The script's name in type error messages (default `agent.ts`). */
  fileName?: string;
}

/** Options of {@link Space.call}: as a run's, for one call. */
export type DirectCallOptions = Pick<RunOptions, 'signal' | 'onApproval' | 'principal'>;

/** A space: capabilities, a warm sandbox and the host bridge, ready to run agent code. */
export interface Space {
  readonly name: string;
  /** Ids of the capabilities agent code may import as `@capabilities/<id>`. */
  readonly capabilities: readonly string[];
  /** The functions each capability offers, by capability id: all of them unless `hideFunctions` left some out. */
  readonly functions: ReadonlyMap<string, readonly string[]>;
  /** Runs agent code in a fresh context. Await the returned {@link Run} for the result; iterate it for live events. */
  run(code: string, options?: RunOptions): Run;
  /**
   * Calls capability function `fn` of `capability` with `params`, without agent code: through the same bridge as the
   * calls of runs (lookup, validation, policy, approval, rate limit, redaction, audit log). Never rejects: a failure is
   * `{ ok: false, error }`. `mcp serve`'s direct tools use it (docs/mcp-server.md, "Direct tools").
   */
  call(capability: string, fn: string, params: unknown, options?: DirectCallOptions): Promise<CallOutcome>;
  /**
   * A headless agent run on `message` that answers by writing code in the space (docs/agents.md): await the returned
   * {@link AgentRun} for `{ text, turns, usage }`; iterate it for `agentMessage`, `codeRun` and the runs' own events.
   */
  ask(message: string, options?: AskOptions): AgentRun;
  /** Approval requests waiting now; `resolve(id, { approved, reason })` answers one (ids come in `approvalRequired` events). */
  readonly approvals: Approvals;
  /** The audit log file (`<outDir>/audit/<name>.jsonl`), unless `policies.audit` is false. */
  readonly auditFile: string | undefined;
  /** Typechecks agent code against the space's capabilities; returns diagnostics (empty when fine). */
  check(code: string): Promise<TypecheckDiagnostic[]>;
  /** A session keeps one context: top-level declarations of a run are visible to the next. `owner` as in {@link RunOptions}. */
  createSession(options?: SessionOptions): Session;
  /**
   * Resumes a paused run kept in the run store (after a restart) once its approvals are answered: it is replayed
   * against its ledger, no completed call runs again (docs/runtime.md, "Durable runs"). Rejects `REPLAY_UNAVAILABLE`.
   */
  resume(runId: string, options?: RunOptions): Promise<Run>;
  /**
   * Restores a session from its kept runs (after a restart): its runs replay against their ledgers, so its variables
   * are back with no side effect repeated; a last paused run is resumed. Rejects `REPLAY_UNAVAILABLE` / `REPLAY_DIVERGED`.
   */
  restoreSession(sessionId: string, options?: RestoreOptions): Promise<RestoredSession>;
  /** The `.d.ts` text of every module agent code may import, by file name. */
  declarations(): ReadonlyMap<string, string>;
  /** How many sandbox processes (0 in-process) and sessions the space holds now. */
  stats(): SandboxStats;
  /**
   * After a rebuild: later calls of built `defineTool()` and JSON `module` capabilities run the host code as rebuilt
   * (with the files it imports); calls executing finish on the code they started with. Functions, types and other
   * capabilities stay as the space loaded them (a new space sees those; docs/sdk-and-cli.md, "Reloading").
   */
  reload(): void;
  /** Ends every session, frees the sandbox and writes the results recorded but not yet written. */
  close(): Promise<void>;
}

/** Options of `space.restoreSession`: those of its runs' replays, and whose sessions may share its process. */
export type RestoreOptions = RunOptions & Pick<SessionOptions, 'processGroup'>;

/** What `space.restoreSession` gives: the session, and the result of its paused run resumed (when it had one). */
export interface RestoredSession {
  session: Session;
  resumed?: RunResult;
}

/** A REPL-like series of runs sharing one context. */
export interface Session {
  readonly id: string;
  run(code: string, options?: RunOptions): Run;
  /**
   * Ends the session and forgets its kept runs; with `keepRuns`, ends it in this process only, its kept runs left for
   * a later `restoreSession`.
   */
  close(options?: { keepRuns?: boolean }): Promise<void>;
}
