import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  AgentSpacesError,
  CAPABILITY_FILES,
  CAPABILITY_PREFIX,
  ResultRecorder,
  resolveCapabilityNames,
  listBuiltCapabilities,
  readBuiltFile,
  STD_MODULE,
  findStdConfigProblem,
  findTypecheckBudgetProblem,
  oversizedSource,
  resolveTypecheckBudget,
  toWireError,
  type AnyToolDefinition,
  type McpServers,
  type PoliciesConfig,
  type HostPort,
  type StdConfig,
  type RunEvent,
  type RunEventInput,
  type TypecheckBudget,
  type WireError,
} from '@agent-spaces/capabilities';
import {
  createBridge,
  loadCapabilities,
  type Approvals,
  type Approver,
  type Bridge,
  type CallEvent,
  type CallOrigin,
  type PolicyHook,
  type RuntimeHandlers,
} from '@agent-spaces/bridge';
import {
  ProcessSandbox,
  Sandbox,
  type ProcessOptions,
  type RunLimits,
  type RunOutcome,
  type SandboxHost,
  type SandboxStats,
  type SandboxSessionHandle,
  type SessionOptions,
} from '@agent-spaces/runtime';
import type { ResolvedConfig } from '@agent-spaces/compiler';
import { STD_MODULE_SOURCE, createStdCapability } from '@agent-spaces/std';
import { SANDBOX_DECLARATIONS } from './declarations.js';
import { createSpaceMcp } from './mcp.js';
import { AgentViews, ask, type AgentRun, type AskOptions } from './agent/ask.js';
import { hideDeclarations, withoutHidden, type FunctionFilter } from './offer.js';
import { paramsBudget } from './budget.js';
import { endRunSpan, startRunSpan } from './tracing.js';
import { createGate } from './policies.js';
import { Run, type RunLog, type RunResult } from './run.js';
import { Typecheck, type TypecheckDiagnostic } from './typecheck.js';

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
   * 3× cheaper per call, for code you trust not to crash V8.
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
   * Record the shape of each result of an MCP tool without an output schema (field names and JSON types of its
   * data, never a value) into `<outDir>/observed/<id>.json`, so the next `capabilities build` types the tool's
   * result from them; the file is written about a second after a result, and by `close()`. Default true; `false`
   * records nothing.
   */
  recordResults?: boolean;
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
  /** Limits for this run only. */
  limits?: Partial<RunLimits>;
  /** Overrides the space's `typecheck` for this run. */
  typecheck?: boolean;
  /** The script's name in type error messages (default `agent.ts`). */
  fileName?: string;
}

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
  /** The `.d.ts` text of every module agent code may import, by file name. */
  declarations(): ReadonlyMap<string, string>;
  /** How many sandbox processes (0 in-process) and sessions the space holds now. */
  stats(): SandboxStats;
  /** Ends every session, frees the sandbox and writes the results recorded but not yet written. */
  close(): Promise<void>;
}

/** A REPL-like series of runs sharing one context. */
export interface Session {
  readonly id: string;
  run(code: string, options?: RunOptions): Run;
  close(): Promise<void>;
}

/**
 * The options a project's config file sets for its spaces (`config` as the compiler's `loadConfig` resolves it, whose
 * `rootDir` is `rootDir`): the one mapping the CLI and `mcp serve` use.
 */
export function configSpaceOptions(rootDir: string, config: ResolvedConfig): SpaceOptions {
  return {
    rootDir,
    outDir: config.outDir,
    policies: config.policies,
    mcpServers: config.mcpServers,
    std: config.std,
    recordResults: config.recordResults,
    typecheckBudget: config.typecheck,
  };
}

/**
 * Creates a space from built capabilities (`agent-spaces capabilities build` writes them under `.agent-spaces/`).
 * @example
 * const space = await createSpace({ capabilities: ['train-schedule'] });
 * const { result } = await space.run(`import { trainSchedule } from '@capabilities/train-schedule';
 *   export default (await trainSchedule.getSchedule()).length;`);
 */
export async function createSpace(options: SpaceOptions = {}): Promise<Space> {
  checkOptions(options);
  const name = options.name ?? 'default';
  const rootDir = resolve(options.rootDir ?? process.cwd());
  const outDir = resolve(rootDir, options.outDir ?? '.agent-spaces');
  const capabilitiesDir = join(outDir, 'capabilities');
  const std = createStdCapability({
    workspaceDir: resolve(rootDir, options.std?.fs?.root ?? join(outDir, 'workspaces', name)),
    ...(options.std?.fs?.write !== undefined ? { write: options.std.fs.write } : {}),
    ...(options.std?.http ? { http: options.std.http } : {}),
  });
  const named = options.capabilities?.filter((c): c is string => typeof c === 'string');
  const builtIds = named ? resolveCapabilityNames(capabilitiesDir, named) : listBuiltCapabilities(capabilitiesDir);
  // A server's stderr becomes a run log of the call in flight (or a line on stderr): the bridge below decides.
  const onOutput = (capability: string, source: string, line: string) => bridge.output(capability, source, line);
  const mcp = await createSpaceMcp(capabilitiesDir, builtIds, { rootDir, onOutput, ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}) });
  const recorder = mcp && options.recordResults !== false ? new ResultRecorder(outDir) : undefined;
  const built = await loadCapabilities(capabilitiesDir, builtIds, options.handlers, {
    ...(mcp ? { mcp: mcp.pool } : {}),
    // Redacted before its shape is taken: a secret never reaches the record, not even as a field name.
    ...(recorder ? { onMcpToolData: (id: string, tool: string, data: unknown) => recorder.record(id, tool, gate.redactor.value(data)) } : {}),
  });
  // Compiled last, so that a missing built capability cannot leave the temporary folder behind.
  const inline = await buildInline(options.capabilities?.filter((c) => typeof c !== 'string') ?? []);
  const ids = [...builtIds, ...inline.ids];
  const dirOf = (id: string) => (inline.ids.includes(id) ? inline.capabilitiesDir : capabilitiesDir);
  const loaded = [
    ...built,
    ...(inline.ids.length > 0 ? await loadCapabilities(inline.capabilitiesDir, inline.ids, { ...inline.handlers, ...options.handlers }) : []),
  ];
  const { capabilities, hidden } = withoutHidden(loaded, options.hideFunctions);
  let gate: Awaited<ReturnType<typeof createGate>>;
  try {
    // Policies are checked against every function, hidden ones included: a rule about one stays valid.
    gate = await createGate({ ...options, name, outDir, ...(mcp ? { mcpServers: mcp.servers, env: mcp.env } : {}) }, [...loaded, std]);
  } catch (error) {
    // Bad `policies` fail here, after inline definitions were compiled: leave nothing behind.
    await Promise.all([inline.dispose(), mcp?.close()]);
    throw error;
  }
  const bridge = createBridge({ capabilities: [...capabilities, std], ...gate.bridgeOptions });
  const approveScripts = options.policies?.approveScripts === true;

  const modules = new Map<string, string>([[STD_MODULE, STD_MODULE_SOURCE]]);
  const declarations = new Map<string, string>(SANDBOX_DECLARATIONS);
  for (const id of ids) {
    modules.set(CAPABILITY_PREFIX + id, readBuiltFile(dirOf(id), id, CAPABILITY_FILES.proxy));
    declarations.set(`${id}.d.ts`, readBuiltFile(dirOf(id), id, CAPABILITY_FILES.declarations));
  }
  await hideDeclarations(declarations, capabilities, hidden);

  const sandboxOptions = { modules, ...(options.limits ? { limits: options.limits } : {}) };
  const sandbox: SandboxHost =
    options.isolation === 'in-process' ? new Sandbox(sandboxOptions) : new ProcessSandbox({ ...sandboxOptions, ...options.processes });
  const typecheck = new Typecheck(declarations, options.typecheckBudget);
  const sessions = new Set<Session>();
  const checkByDefault = options.typecheck ?? true;
  const { maxSourceBytes } = resolveTypecheckBudget(options.typecheckBudget);
  // Its runs will be checked: TypeScript loads in a worker while the space is put to use.
  if (checkByDefault) typecheck.prepare();

  const start = (code: string, runOptions: RunOptions, execute: Executor, session?: { id: string; typecheck: Typecheck }): Run =>
    new Run(runOptions.onEvent, (emit) =>
      runCode(code, runOptions, (input) => emit(gate.redactor.value(input)), {
        bridge,
        typecheck: session?.typecheck ?? typecheck,
        execute,
        checkByDefault,
        maxSourceBytes,
        approveScripts,
        space: name,
        ...(session ? { sessionId: session.id } : {}),
      }).then((result) => gate.redactor.value(result)),
    );

  const agentViews = new AgentViews(options, createSpace);
  const space: Space = {
    name,
    capabilities: ids,
    functions: new Map(capabilities.map((c) => [c.id, [...c.functions.keys()]])),
    ask: (message, askOptions) => ask(space, agentViews, message, askOptions),
    approvals: bridge.approvals,
    auditFile: gate.auditFile,
    run: (code, runOptions = {}) => start(code, runOptions, (c, o) => sandbox.run(c, o)),
    check: (code) => typecheck.check(code),
    declarations: () => declarations,
    stats: () => sandbox.stats(),
    createSession(sessionOptions = {}) {
      const inner: SandboxSessionHandle = sandbox.createSession(sessionOptions);
      const sessionTypecheck = typecheck.session(sessionOptions.owner);
      let closed = false;
      const session: Session = {
        id: inner.id,
        // A closed session answers SESSION_CLOSED without typechecking first.
        run: (code, runOptions = {}) =>
          start(code, closed ? { ...runOptions, typecheck: false } : runOptions, (c, o) => inner.run(c, o), { id: inner.id, typecheck: sessionTypecheck }),
        async close() {
          sessions.delete(session);
          closed = true;
          sessionTypecheck.dispose();
          await inner.close();
        },
      };
      sessions.add(session);
      return session;
    },
    async close() {
      await agentViews.close();
      await Promise.all([...sessions].map((s) => s.close()));
      typecheck.dispose();
      await sandbox.close();
      await inline.dispose();
      await mcp?.close();
      // Results are written a moment after they are recorded (observed.ts); what is still pending is written now.
      await recorder?.flush();
      gate.close();
    },
  };
  return space;
}

/** Throws `CONFIG_INVALID` naming the field for a bad `isolation`, `std` or `typecheckBudget`. */
function checkOptions(options: SpaceOptions): void {
  if (options.isolation !== undefined && options.isolation !== 'process' && options.isolation !== 'in-process') {
    throw new AgentSpacesError('CONFIG_INVALID', `isolation: must be 'process' or 'in-process', not ${JSON.stringify(options.isolation)}`, { field: 'isolation' });
  }
  const stdProblem = findStdConfigProblem(options.std ?? {});
  if (stdProblem) throw new AgentSpacesError('CONFIG_INVALID', stdProblem.message, { field: stdProblem.field });
  const budgetProblem = options.typecheckBudget === undefined ? undefined : findTypecheckBudgetProblem(options.typecheckBudget);
  if (budgetProblem) throw new AgentSpacesError('CONFIG_INVALID', `typecheckBudget: ${budgetProblem}`, { field: 'typecheckBudget' });
}

type Executor = (code: string, options: Parameters<SandboxHost['run']>[1]) => Promise<RunOutcome>;

interface RunContext {
  bridge: Bridge;
  typecheck: Typecheck;
  execute: Executor;
  checkByDefault: boolean;
  /** Longest agent code run, checked or not (`typecheck.maxSourceBytes`). */
  maxSourceBytes: number;
  /** Ask for approval of the whole script before it runs. */
  approveScripts: boolean;
  /** The space's name, for the run's trace span. */
  space: string;
  sessionId?: string;
}

async function runCode(
  code: string,
  options: RunOptions,
  emit: (event: RunEventInput) => RunEvent,
  context: RunContext,
): Promise<RunResult> {
  const started = performance.now();
  const events: RunEvent[] = [];
  const bounded = paramsBudget();
  const record = (input: RunEventInput) => events.push(emit(bounded(input)));
  // Console output of host code run for the run's calls: run logs too, beside the sandbox's.
  const hostLogs: RunLog[] = [];
  const onCallEvent = (input: CallEvent) => {
    record(input);
    const event = events.at(-1)!;
    if (event.type === 'log') hostLogs.push({ level: event.level, message: event.message, timestamp: event.timestamp });
  };
  record({ type: 'runStarted', ...(context.sessionId ? { sessionId: context.sessionId } : {}) });
  const runId = events[0]!.runId;
  const runTrace = startRunSpan({ runId, space: context.space, ...(context.sessionId ? { sessionId: context.sessionId } : {}) });
  const origin: CallOrigin = {
    runId,
    ...(context.sessionId ? { sessionId: context.sessionId } : {}),
    onEvent: onCallEvent,
    traceContext: runTrace.context,
    ...(options.onApproval ? { onApproval: options.onApproval } : {}),
  };
  const finish = (result: RunResult): RunResult => {
    record({ type: 'runFinished', ok: result.ok, durationMs: result.stats.durationMs, capabilityCalls: result.stats.capabilityCalls });
    endRunSpan(runTrace.span, result);
    return result;
  };

  const refused = await refusalOf(code, options, context, { ...origin, runId });
  if (refused) {
    record({ type: 'error', error: refused });
    return finish({ ok: false, error: refused, logs: [], events, stats: { durationMs: performance.now() - started, capabilityCalls: 0 } });
  }

  const { bridge } = context;
  const port: HostPort = { call: (message, signal) => bridge.call(message, signal, origin) };
  const outcome = await context.execute(code, {
    port,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.owner !== undefined ? { owner: options.owner } : {}),
    onLog: (entry) => record({ type: 'log', level: entry.level, message: entry.message }),
  });
  // The session keeps this run's top-level declarations (even when it failed after them): so does its typecheck.
  if (context.sessionId && context.checkByDefault) context.typecheck.remember(code);
  const stats = { durationMs: performance.now() - started, capabilityCalls: outcome.stats.capabilityCalls };
  const logs = hostLogs.length === 0 ? outcome.logs : [...outcome.logs, ...hostLogs].sort((a, b) => a.timestamp.localeCompare(b.timestamp));
  if (outcome.ok) return finish({ ok: true, result: outcome.value, logs, events, stats });
  record({ type: 'error', error: outcome.error });
  return finish({ ok: false, error: outcome.error, logs, events, stats });
}

/**
 * Why `code` may not run, checked before it does: over the size budget (`TYPECHECK_LIMIT`), its type errors
 * (`TYPE_ERROR`) or a typecheck over its budget, or the person asked to approve the script said no.
 */
async function refusalOf(code: string, options: RunOptions, context: RunContext, origin: CallOrigin & { runId: string }): Promise<WireError | undefined> {
  const oversized = oversizedSource(code, context.maxSourceBytes);
  if (oversized) return oversized.toWire();
  if (options.typecheck ?? context.checkByDefault) {
    let diagnostics: TypecheckDiagnostic[];
    try {
      diagnostics = await context.typecheck.check(code, options.owner);
    } catch (error) {
      return toWireError(error, 'INTERNAL', 'Typecheck failed');
    }
    if (diagnostics.length > 0) {
      return { code: 'TYPE_ERROR', message: await context.typecheck.format(code, diagnostics, options.fileName), data: { diagnostics } };
    }
  }
  if (!context.approveScripts) return undefined;
  return context.bridge.approveScript(code, origin, options.signal ?? new AbortController().signal);
}

/** Inline definitions compiled into a temporary folder, with the handlers of their `defineTool()` values. */
interface InlineCapabilities {
  ids: string[];
  capabilitiesDir: string;
  handlers: RuntimeHandlers;
  dispose(): Promise<void>;
}

/** Compiles inline definitions like any source; a bad one fails `INVALID_DEFINITION` with every diagnostic. */
async function buildInline(definitions: readonly object[]): Promise<InlineCapabilities> {
  if (definitions.length === 0) return { ids: [], capabilitiesDir: '', handlers: {}, dispose: async () => {} };
  const { buildCapabilities, inlineSource, isDefineToolValue } = await import('@agent-spaces/compiler');
  const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-inline-'));
  const dispose = () => rm(dir, { recursive: true, force: true });
  const report = await buildCapabilities({
    rootDir: dir,
    sources: [],
    outDir: dir,
    configSources: definitions.map((definition, index) => inlineSource(definition, `capabilities[${index}]`)),
  }).catch(async (error: unknown) => {
    await dispose();
    throw error;
  });
  const failed = report.capabilities.filter((entry) => entry.status === 'failed');
  if (failed.length > 0) {
    await dispose();
    const problems = failed.flatMap((entry) => entry.diagnostics.map((d) => `${d.file}${d.pointer ? `#${d.pointer}` : ''}: ${d.message}`));
    throw new AgentSpacesError('INVALID_DEFINITION', `Inline capability definition is invalid:\n${problems.join('\n')}`, { diagnostics: failed.flatMap((e) => e.diagnostics) });
  }
  const handlers: RuntimeHandlers = {};
  for (const [index, definition] of definitions.entries()) {
    if (!isDefineToolValue(definition)) continue;
    const id = report.capabilities.find((entry) => entry.file === `capabilities[${index}]`)!.id;
    handlers[id] = Object.fromEntries(Object.entries(definition.functions).map(([name, fn]) => [name, fn.handler as RuntimeHandlers[string][string]]));
  }
  return { ids: report.capabilities.map((entry) => entry.id), capabilitiesDir: join(dir, 'capabilities'), handlers, dispose };
}

