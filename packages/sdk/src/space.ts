import { readdir, readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import {
  AgentSpacesError,
  CAPABILITY_PREFIX,
  STD_MODULE,
  type CallMessage,
  type HostPort,
  type RunEvent,
  type RunEventInput,
} from '@agent-spaces/capabilities';
import { createBridge, loadCapabilities, type Bridge, type PolicyHook, type RuntimeHandlers, type ApprovalRequest } from '@agent-spaces/bridge';
import { Sandbox, SANDBOX_GLOBALS_DTS, type RunLimits, type RunOutcome, type SandboxSession } from '@agent-spaces/runtime';
import { STD_DTS, STD_MODULE_SOURCE, createStdCapability } from '@agent-spaces/std';
import { Run, type RunResult } from './run.js';
import { Typecheck, type TypecheckDiagnostic } from './typecheck.js';

/** Options of {@link createSpace}. */
export interface SpaceOptions {
  /** Name of the space (default `default`); names its workspace folder. */
  name?: string;
  /** Built capabilities the space may import, by id (`'train-schedule'`, `'mcp:slack'` = `'mcp-slack'`). Default: all built. */
  capabilities?: readonly string[];
  /** Host handlers for capabilities whose executor is `runtime`: `{ [capability]: { [function]: handler } }`. */
  handlers?: RuntimeHandlers;
  /** Limits of every run (per-run overrides via `run(code, { limits })`). */
  limits?: Partial<RunLimits>;
  /** Decides allow / deny / ask per call. Default: ask when a function requires approval. */
  policy?: PolicyHook;
  /** Answers approval requests; without it, calls that need approval are denied. */
  onApproval?: (request: ApprovalRequest) => boolean | Promise<boolean>;
  /** Project folder holding `.agent-spaces/` (default: the current directory). */
  rootDir?: string;
  /** Build output folder (default `<rootDir>/.agent-spaces`). */
  outDir?: string;
  /** Folder `@agent-spaces/std`'s `fs` works in (default `<outDir>/workspaces/<name>`). */
  workspaceDir?: string;
  /** Hosts `@agent-spaces/std`'s `http` may reach (default none). */
  httpAllowHosts?: string[];
  /** Typecheck code before running it (default true). */
  typecheck?: boolean;
}

/** Options of one run. */
export interface RunOptions {
  /** Aborts the run (it ends with `ABORTED`). */
  signal?: AbortSignal;
  /** Called with every event as it happens. */
  onEvent?: (event: RunEvent) => void;
  /** Limits for this run only. */
  limits?: Partial<RunLimits>;
  /** Overrides the space's `typecheck` for this run. */
  typecheck?: boolean;
}

/** A space: capabilities, a warm sandbox and the host bridge, ready to run agent code. */
export interface Space {
  readonly name: string;
  /** Ids of the capabilities agent code may import as `@capabilities/<id>`. */
  readonly capabilities: readonly string[];
  /** Runs agent code in a fresh context. Await the returned {@link Run} for the result; iterate it for live events. */
  run(code: string, options?: RunOptions): Run;
  /** Typechecks agent code against the space's capabilities; returns diagnostics (empty when fine). */
  check(code: string): Promise<TypecheckDiagnostic[]>;
  /** A session keeps one context: top-level declarations of a run are visible to the next. */
  createSession(): Session;
  /** The `.d.ts` text of every module agent code may import, by file name. */
  declarations(): ReadonlyMap<string, string>;
  /** Ends every session and frees the sandbox. */
  close(): Promise<void>;
}

/** A REPL-like series of runs sharing one context. */
export interface Session {
  readonly id: string;
  run(code: string, options?: RunOptions): Run;
  close(): Promise<void>;
}

/**
 * Creates a space from built capabilities (`agent-spaces capabilities build` writes them under `.agent-spaces/`).
 * @example
 * const space = await createSpace({ capabilities: ['train-schedule'] });
 * const { result } = await space.run(`import { trainSchedule } from '@capabilities/train-schedule';
 *   export default (await trainSchedule.getSchedule()).length;`);
 */
export async function createSpace(options: SpaceOptions = {}): Promise<Space> {
  const name = options.name ?? 'default';
  const rootDir = resolve(options.rootDir ?? process.cwd());
  const outDir = resolve(rootDir, options.outDir ?? '.agent-spaces');
  const capabilitiesDir = join(outDir, 'capabilities');
  const ids = options.capabilities ? options.capabilities.map(capabilityId) : await listBuilt(capabilitiesDir);

  const capabilities = await loadCapabilities(capabilitiesDir, ids, options.handlers);
  const std = createStdCapability({
    workspaceDir: resolve(rootDir, options.workspaceDir ?? join(outDir, 'workspaces', name)),
    http: { allowHosts: options.httpAllowHosts ?? [] },
  });
  const bridge = createBridge({
    capabilities: [...capabilities, std],
    ...(options.policy ? { policy: options.policy } : {}),
    ...(options.onApproval ? { onApproval: options.onApproval } : {}),
  });

  const modules = new Map<string, string>([[STD_MODULE, STD_MODULE_SOURCE]]);
  const declarations = new Map<string, string>([
    ['sandbox-globals.d.ts', SANDBOX_GLOBALS_DTS],
    ['agent-spaces-std.d.ts', STD_DTS],
  ]);
  await Promise.all(
    ids.map(async (id) => {
      const dir = join(capabilitiesDir, id);
      modules.set(CAPABILITY_PREFIX + id, await readFile(join(dir, 'index.js'), 'utf8'));
      declarations.set(`${id}.d.ts`, await readFile(join(dir, 'index.d.ts'), 'utf8'));
    }),
  );

  const sandbox = new Sandbox({ modules, ...(options.limits ? { limits: options.limits } : {}) });
  const typecheck = new Typecheck(declarations);
  const sessions = new Set<Session>();
  const checkByDefault = options.typecheck ?? true;

  const start = (code: string, runOptions: RunOptions, execute: Executor, sessionId?: string): Run =>
    new Run(runOptions.onEvent, (emit) =>
      runCode(code, runOptions, emit, { bridge, typecheck, execute, checkByDefault, ...(sessionId ? { sessionId } : {}) }),
    );

  return {
    name,
    capabilities: ids,
    run: (code, runOptions = {}) => start(code, runOptions, (c, o) => sandbox.run(c, o)),
    check: (code) => typecheck.check(code),
    declarations: () => declarations,
    createSession() {
      const inner: SandboxSession = sandbox.createSession();
      const session: Session = {
        id: inner.id,
        run: (code, runOptions = {}) => start(code, runOptions, (c, o) => inner.run(c, o), inner.id),
        async close() {
          sessions.delete(session);
          await inner.close();
        },
      };
      sessions.add(session);
      return session;
    },
    async close() {
      await Promise.all([...sessions].map((s) => s.close()));
      typecheck.dispose();
      await sandbox.close();
    },
  };
}

type Executor = (code: string, options: Parameters<Sandbox['run']>[1]) => Promise<RunOutcome>;

interface RunContext {
  bridge: Bridge;
  typecheck: Typecheck;
  execute: Executor;
  checkByDefault: boolean;
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
  const record = (input: RunEventInput) => events.push(emit(input));
  let calls = 0;
  record({ type: 'runStarted', ...(context.sessionId ? { sessionId: context.sessionId } : {}) });
  const finish = (result: RunResult): RunResult => {
    record({ type: 'runFinished', ok: result.ok, durationMs: result.stats.durationMs, capabilityCalls: result.stats.capabilityCalls });
    return result;
  };

  if (options.typecheck ?? context.checkByDefault) {
    const diagnostics = await context.typecheck.check(code);
    if (diagnostics.length > 0) {
      const error = {
        code: 'TYPE_ERROR' as const,
        message: await context.typecheck.format(code, diagnostics),
        data: { diagnostics },
      };
      record({ type: 'error', error });
      return finish({ ok: false, error, logs: [], events, stats: { durationMs: performance.now() - started, capabilityCalls: 0 } });
    }
  }

  const port: HostPort = {
    async call(message: CallMessage, signal: AbortSignal) {
      const callId = String(++calls);
      const t0 = performance.now();
      record({ type: 'capabilityCall', callId, capability: message.capability, function: message.function, params: message.params });
      const outcome = await context.bridge.call(message, signal);
      record({
        type: 'capabilityResult',
        callId,
        capability: message.capability,
        function: message.function,
        ok: outcome.ok,
        durationMs: performance.now() - t0,
        ...(outcome.ok ? {} : { error: outcome.error }),
      });
      return outcome;
    },
  };
  const outcome = await context.execute(code, {
    port,
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    onLog: (entry) => record({ type: 'log', level: entry.level, message: entry.message }),
  });
  const stats = { durationMs: performance.now() - started, capabilityCalls: outcome.stats.capabilityCalls };
  if (outcome.ok) return finish({ ok: true, result: outcome.value, logs: outcome.logs, events, stats });
  record({ type: 'error', error: outcome.error });
  return finish({ ok: false, error: outcome.error, logs: outcome.logs, events, stats });
}

/** `'mcp:slack'` → `'mcp-slack'`; other ids as given. */
function capabilityId(name: string): string {
  return name.startsWith('mcp:') ? `mcp-${name.slice(4)}` : name;
}

async function listBuilt(capabilitiesDir: string): Promise<string[]> {
  try {
    const entries = await readdir(capabilitiesDir, { withFileTypes: true });
    return entries.filter((e) => e.isDirectory() && !e.name.startsWith('.')).map((e) => e.name).sort();
  } catch (error) {
    throw new AgentSpacesError(
      'CAPABILITY_NOT_FOUND',
      `No built capabilities in ${capabilitiesDir}: run \`agent-spaces capabilities build\` first`,
      { dir: capabilitiesDir },
      { cause: error },
    );
  }
}
