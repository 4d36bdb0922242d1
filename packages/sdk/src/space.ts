import { resolve } from 'node:path';
import { AgentSpacesError, UserCredentials, findStdConfigProblem, findTypecheckBudgetProblem, resolveTypecheckBudget } from '@agent-spaces/capabilities';
import { FileUserSecrets, MemoryRunStore, createBridge, createGate, type Bridge, type Gate } from '@agent-spaces/bridge';
import { ProcessSandbox, Sandbox, warmSandboxProcesses } from '@agent-spaces/runtime';
import type { ResolvedConfig } from '@agent-spaces/compiler';
import { AgentViews, ask } from './agent/ask.js';
import { DEFAULT_LEDGER_BYTES } from './durable/recorder.js';
import { restoreSession, resumeRun, type ResumeParts } from './durable/resume.js';
import { spaceModules } from './modules.js';
import { runStarter } from './run-code.js';
import { SpaceSessions } from './sessions.js';
import { loadSpaceCapabilities, spacePaths, type SpaceCapabilities, type SpacePaths } from './space-capabilities.js';
import { Typecheck, typecheckCacheDir } from './typecheck.js';
import type { Space, SpaceOptions } from './types.js';

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
    ...(config.userSecrets === undefined ? {} : { userSecrets: config.userSecrets }),
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
  // The host's warm sandbox processes start now, while the space loads its capabilities.
  if (options.isolation !== 'in-process') warmSandboxProcesses();
  const paths = spacePaths(options);
  let bridge: Bridge | undefined;
  let gate: Gate | undefined;
  const capabilities = await loadSpaceCapabilities(options, paths, {
    // A server's stderr becomes a run log of the call in flight (or a line on stderr): the bridge decides.
    onOutput: (capability, source, line) => bridge?.output(capability, source, line),
    redact: (value) => (bridge ? bridge.redact(value) : value),
    // Resolved only by calls, so once the gate is open: its redactor learns each per-user secret before it is sent.
    userSecrets: userCredentials(options, paths, (name, value) => gate?.addSecret(name, value)),
  });
  gate = await openGate(options, paths, capabilities);
  bridge = createBridge({ capabilities: [...capabilities.offered, capabilities.std], ...gate.bridgeOptions });
  const { modules, declarations } = await spaceModules(capabilities, paths.rootDir);
  const sandbox = createSandbox(options, modules);
  const typecheck = new Typecheck(declarations, options.typecheckBudget, typecheckCacheDir(paths.outDir));
  const checkByDefault = options.typecheck ?? true;
  // Its runs will be checked: TypeScript loads in a worker while the space is put to use.
  if (checkByDefault) typecheck.prepare();
  const runs = options.stores?.runs ?? new MemoryRunStore();
  const start = runStarter({
    bridge,
    typecheck,
    runs,
    checkByDefault,
    maxSourceBytes: resolveTypecheckBudget(options.typecheckBudget).maxSourceBytes,
    approveScripts: options.policies?.approveScripts === true,
    space: paths.name,
    maxLedgerBytes: options.maxLedgerBytes ?? DEFAULT_LEDGER_BYTES,
    keepSessionRuns: options.stores?.runs !== undefined,
  });
  const sessions = new SpaceSessions(sandbox, typecheck, start, runs);
  const resumeParts: ResumeParts = {
    runs,
    approvals: bridge.approvals,
    replayRun: (code, runOptions, replay) => start(code, runOptions, (c, o) => sandbox.run(c, o), undefined, replay),
    openSession: (id, sessionOptions) => sessions.open(sessionOptions, id),
  };
  const agentViews = new AgentViews(options, createSpace);
  const space: Space = {
    name: paths.name,
    capabilities: capabilities.ids,
    functions: new Map(capabilities.offered.map((c) => [c.id, [...c.functions.keys()]])),
    ask: (message, askOptions) => ask(space, agentViews, message, askOptions),
    approvals: bridge.approvals,
    auditFile: gate.auditFile,
    run: (code, runOptions = {}) => start(code, runOptions, (c, o) => sandbox.run(c, o)),
    check: (code) => typecheck.check(code),
    declarations: () => declarations,
    call: (capability, fn, params, { signal, onApproval, principal } = {}) =>
      bridge.call({ kind: 'call', capability, function: fn, params }, signal ?? new AbortController().signal, { ...(principal ? { principal } : {}), ...(onApproval ? { onApproval } : {}) }),
    stats: () => sandbox.stats(),
    reload: () => capabilities.hostModules.reload(),
    createSession: (sessionOptions) => sessions.create(sessionOptions),
    resume: (runId, runOptions = {}) => resumeRun(resumeParts, runId, runOptions),
    restoreSession: (sessionId, runOptions = {}) => restoreSession(resumeParts, sessionId, runOptions),
    async close() {
      await agentViews.close();
      await sessions.close();
      typecheck.dispose();
      await sandbox.close();
      await capabilities.close();
      gate.close();
    },
  };
  return space;
}

/** The space's per-user secrets (`options.userSecrets`: a file relative to `rootDir`, or a store), handing each value resolved to `onResolved`. */
function userCredentials(options: SpaceOptions, paths: SpacePaths, onResolved: (name: string, value: string) => void): UserCredentials {
  const { userSecrets } = options;
  const store = typeof userSecrets === 'string' ? new FileUserSecrets(resolve(paths.rootDir, userSecrets)) : userSecrets;
  return new UserCredentials(store, onResolved);
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

/**
 * The space's gate ({@link createGate}), its policies checked against every function, hidden ones included (a rule
 * about one stays valid). Bad `policies` fail here, after inline definitions were compiled: nothing is left behind.
 */
async function openGate(options: SpaceOptions, paths: SpacePaths, capabilities: SpaceCapabilities): Promise<Gate> {
  const { mcp } = capabilities;
  try {
    return await createGate({ ...options, name: paths.name, outDir: paths.outDir, ...(mcp ? { mcpServers: mcp.servers, env: mcp.env } : {}) }, [
      ...capabilities.loaded,
      capabilities.std,
    ]);
  } catch (error) {
    await capabilities.close();
    throw error;
  }
}

/** Where the space's code runs: supervised sandbox processes (default) or isolates of this process. */
function createSandbox(options: SpaceOptions, modules: Map<string, string>): Sandbox | ProcessSandbox {
  const sandboxOptions = { modules, ...(options.limits ? { limits: options.limits } : {}) };
  return options.isolation === 'in-process' ? new Sandbox(sandboxOptions) : new ProcessSandbox({ ...sandboxOptions, ...options.processes });
}
