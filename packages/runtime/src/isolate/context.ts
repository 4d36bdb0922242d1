import type ivm from 'isolated-vm';
import { AgentSpacesError, BRIDGE_MODULE, type WireError } from '@agent-spaces/capabilities';
import type { TranspiledScript } from '../script/assemble.js';
import type { RunClock } from '../prelude/contract.js';
import { isolatedVm } from './isolated-vm.js';
import type { CallChannel } from './channel.js';
import {
  HOST_CALL_GLOBAL,
  HOST_DONE_GLOBAL,
  HOST_LOG_GLOBAL,
  PRELUDE_API_GLOBAL,
  type AgentModule,
  type PreludeApi,
} from '../prelude/contract.js';

/** Time allowed for trusted setup code (prelude, bridge, generated modules) to evaluate. */
const SETUP_TIMEOUT_MS = 2_000;
const AGENT_FILENAME = 'file:///agent.js';
const NO_CHANNEL: WireError = { code: 'ABORTED', message: 'No run is active in this context' };

/** The compiled pieces every context of one isolate is set up from. */
export interface ContextTemplate {
  isolate: ivm.Isolate;
  prelude: ivm.Script;
  bridgeSource: string;
}

/**
 * One prepared V8 context: the prelude has run (its Callbacks route to {@link channel}, the run currently using the
 * context), `agent-spaces:bridge` is evaluated, and modules imported by runs are instantiated once and reused.
 * A plain run uses a context once; a session keeps one for all its runs.
 */
export class SandboxContext {
  /** The run whose messages this context's Callbacks deliver to; `undefined` between runs. */
  channel: CallChannel | undefined;
  readonly #isolate: ivm.Isolate;
  readonly #context: ivm.Context;
  readonly #settle: ivm.Reference<PreludeApi['settle']>;
  readonly #run: ivm.Reference<PreludeApi['run']>;
  readonly #bridge: ivm.Module;
  readonly #modules = new Map<string, { source: string; module: ivm.Module }>();

  private constructor(
    isolate: ivm.Isolate,
    context: ivm.Context,
    api: { settle: ivm.Reference<PreludeApi['settle']>; run: ivm.Reference<PreludeApi['run']> },
    bridge: ivm.Module,
  ) {
    this.#isolate = isolate;
    this.#context = context;
    this.#settle = api.settle;
    this.#run = api.run;
    this.#bridge = bridge;
  }

  /**
   * Creates a context in `template.isolate` (the slow part off the main thread) and sets it up, linking `modules`
   * ahead of the runs that will import them (a module that fails to link is left for the run to report).
   */
  static async create(template: ContextTemplate, modules: ReadonlyMap<string, string>): Promise<SandboxContext> {
    const { Callback } = isolatedVm();
    const context = await template.isolate.createContext();
    let self: SandboxContext | undefined;
    const global = context.global;
    const onCall = (seq: unknown, capability: unknown, fn: unknown, params: unknown) =>
      self?.channel ? self.channel.onCall(seq, capability, fn, params) : NO_CHANNEL;
    const onLog = (level: unknown, message: unknown) => (self?.channel ? self.channel.onLog(level, message) : NO_CHANNEL.code);
    global.setSync(HOST_CALL_GLOBAL, new Callback(onCall, { sync: true }));
    global.setSync(HOST_LOG_GLOBAL, new Callback(onLog, { sync: true }));
    global.setSync(HOST_DONE_GLOBAL, new Callback((result: unknown) => self?.channel?.onDone(result), { sync: true }));
    template.prelude.runSync(context, { timeout: SETUP_TIMEOUT_MS });
    const api = global.getSync(PRELUDE_API_GLOBAL, { reference: true }) as ivm.Reference<PreludeApi>;
    const settle = api.getSync('settle', { reference: true }) as ivm.Reference<PreludeApi['settle']>;
    const run = api.getSync('run', { reference: true }) as ivm.Reference<PreludeApi['run']>;
    api.release();
    global.deleteSync(PRELUDE_API_GLOBAL);
    const bridge = template.isolate.compileModuleSync(template.bridgeSource, { filename: BRIDGE_MODULE });
    bridge.instantiateSync(context, (specifier) => {
      throw new Error(`agent-spaces:bridge cannot import ${specifier}`);
    });
    bridge.evaluateSync({ timeout: SETUP_TIMEOUT_MS });
    self = new SandboxContext(template.isolate, context, { settle, run }, bridge);
    for (const specifier of modules.keys()) {
      try {
        const module = self.#resolve(specifier, false, modules);
        module.instantiateSync(context, (dependency) => self!.#resolve(dependency, false, modules));
        module.evaluateSync({ timeout: SETUP_TIMEOUT_MS });
      } catch {
        // reported by the run that imports it
      }
    }
    return self;
  }

  /** The reference the host settles calls through (held by the host only). */
  get settle(): ivm.Reference<PreludeApi['settle']> {
    return this.#settle;
  }

  /**
   * Compiles, links and evaluates the agent module (synchronously: only trusted code runs — generated modules and
   * the module's own top level, which holds nothing but `__main__`). Returns a reference to its namespace.
   * Throws `IMPORT_NOT_FOUND` when a module imports something it may not.
   */
  link(script: TranspiledScript, sources: ReadonlyMap<string, string>, timeoutMs: number): ivm.Reference<AgentModule> {
    const agent = this.#isolate.compileModuleSync(script.code, { filename: AGENT_FILENAME });
    let refused: AgentSpacesError | undefined;
    try {
      agent.instantiateSync(this.#context, (specifier, referrer) => {
        try {
          return this.#resolve(specifier, referrer === agent, sources);
        } catch (error) {
          refused ??= error as AgentSpacesError;
          throw error;
        }
      });
    } catch (error) {
      throw refused ?? error;
    }
    agent.evaluateSync({ timeout: Math.max(1, Math.ceil(timeoutMs)) });
    const namespace = agent.namespace as ivm.Reference<AgentModule>;
    agent.release();
    return namespace;
  }

  /**
   * Starts `__main__` through the prelude's runner on the isolate's thread; its result reaches {@link channel}'s
   * `onDone`. Resolves when that first stretch of agent code (its microtasks included) is over.
   */
  start(agent: ivm.Reference<AgentModule>, persist: boolean, clock: RunClock | undefined): Promise<void> {
    return this.#run.apply(undefined, [agent.derefInto({ release: true }), persist, clock?.seed, clock?.startedAt]);
  }

  /**
   * Starts `__main__` on the host thread and returns when its first stretch (its microtasks included) is over; throws
   * isolated-vm's timeout error when that takes longer than `timeoutMs` (the stretch is then cut short).
   */
  startInline(agent: ivm.Reference<AgentModule>, timeoutMs: number, clock: RunClock | undefined): void {
    this.#run.applySync(undefined, [agent.derefInto({ release: true }), false, clock?.seed, clock?.startedAt], { timeout: timeoutMs });
  }

  /** Evaluates a no-op in this context: settles only when the isolate is free to run it. */
  async ping(): Promise<void> {
    await this.#context.eval('0');
  }

  /** Frees the context and everything instantiated in it. */
  release(): void {
    this.channel = undefined;
    const modules = [...this.#modules.values()].map((entry) => entry.module);
    this.#modules.clear();
    for (const handle of [...modules, this.#settle, this.#run, this.#bridge, this.#context]) {
      try {
        handle.release();
      } catch {
        // already gone with its isolate
      }
    }
  }

  #resolve(specifier: string, fromAgent: boolean, sources: ReadonlyMap<string, string>): ivm.Module {
    if (specifier === BRIDGE_MODULE && !fromAgent) return this.#bridge;
    const source = specifier === BRIDGE_MODULE ? undefined : sources.get(specifier);
    if (source === undefined) {
      throw new AgentSpacesError('IMPORT_NOT_FOUND', `Cannot import "${specifier}"`, { specifier });
    }
    const cached = this.#modules.get(specifier);
    if (cached?.source === source) return cached.module;
    const module = this.#isolate.compileModuleSync(source, { filename: specifier });
    this.#modules.set(specifier, { source, module });
    return module;
  }
}
