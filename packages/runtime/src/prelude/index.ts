/**
 * The in-isolate prelude, run in every context before any agent code: it takes the host's three Callbacks from the
 * global object (and deletes them), installs `console`, `CapabilityError` and `ApprovalDeniedError`, removes
 * `SharedArrayBuffer`, `Atomics` and `WebAssembly`, leaves `call` for the `agent-spaces:bridge` module and its
 * {@link PreludeApi} for the host. Bundled by esbuild into one script; see `../isolate/prelude-source.ts`.
 */
import type { LogLevel } from '@agent-spaces/capabilities';
import {
  BRIDGE_STASH_GLOBAL,
  HOST_CALL_GLOBAL,
  HOST_DONE_GLOBAL,
  HOST_LOG_GLOBAL,
  PRELUDE_API_GLOBAL,
  type AgentMain,
  type AgentModule,
  type CallError,
  type DeclarationGetters,
  type HostCall,
  type HostDone,
  type HostLog,
  type MainResult,
  type PreludeApi,
} from './contract.js';
import { advanceClock, installClock, startClock } from './clock.js';
import { ApprovalDeniedError, CapabilityError, capabilityError, describeThrown } from './errors.js';
import { formatLogArgs } from './inspect.js';
import { ObjectCtor, PromiseCtor, defineProperty, deleteProperty, freeze, ownKeys } from './intrinsics.js';

const global = globalThis as unknown as Record<string, unknown>;
const hostCall = global[HOST_CALL_GLOBAL] as HostCall;
const hostLog = global[HOST_LOG_GLOBAL] as HostLog;
const hostDone = global[HOST_DONE_GLOBAL] as HostDone;

/** One call waiting for its outcome. */
interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  capability: string;
  fn: string;
}

/**
 * Calls in flight, by `seq`: this context numbers its calls, and the host settles each by its number (null prototype:
 * no inherited setters can intercept the bookkeeping).
 */
const pending = ObjectCtor.create(null) as Record<number, Pending>;
let lastSeq = 0;

/** `call` of `agent-spaces:bridge`: sends one call to the host and resolves with its value. */
function call(capability: string, fn: string, params: unknown): Promise<unknown> {
  return new PromiseCtor((resolve, reject) => {
    const seq = ++lastSeq;
    pending[seq] = { resolve, reject, capability, fn };
    let refused: ReturnType<HostCall>;
    try {
      refused = hostCall(seq, capability, fn, params);
    } catch (error) {
      refused = { code: 'INVALID_PARAMS', message: `params of ${capability}.${fn} cannot be sent: ${describeThrown(error).message}` };
    }
    if (refused !== undefined) {
      delete pending[seq];
      reject(capabilityError(refused, capability, fn));
    }
  });
}

function settle(seq: number, ok: boolean, valueOrError: unknown, at?: number): void {
  const entry = pending[seq];
  if (entry === undefined) return;
  delete pending[seq];
  advanceClock(at);
  if (ok === true) entry.resolve(valueOrError);
  else entry.reject(capabilityError(valueOrError as CallError, entry.capability, entry.fn));
}

function run(agent: AgentModule, persist: boolean, seed?: number, startedAt?: number): void {
  if (typeof seed === 'number' && typeof startedAt === 'number') startClock({ seed, startedAt });
  void runToEnd(agent.default, persist);
}

async function runToEnd(main: AgentMain, persist: boolean): Promise<void> {
  let declarations: DeclarationGetters | undefined;
  let result: MainResult;
  try {
    const value = await main((getters) => {
      declarations = getters;
    });
    result = { __proto__: null, ok: true, value } as MainResult;
  } catch (error) {
    result = { __proto__: null, ok: false, thrown: describeThrown(error) } as MainResult;
  }
  if (persist && declarations !== undefined) keep(declarations);
  try {
    hostDone(result);
  } catch (error) {
    hostDone({ __proto__: null, ok: false, notCloneable: describeThrown(error).message } as MainResult);
  }
}

/** Makes a session run's top-level declarations globals; names still in their TDZ or clashing are skipped. */
function keep(getters: DeclarationGetters): void {
  const names = ownKeys(getters);
  for (let i = 0; i < names.length; i++) {
    const name = names[i]!;
    try {
      const value = (getters as Record<PropertyKey, () => unknown>)[name]!();
      defineProperty(global, name, { value, writable: true, enumerable: true, configurable: true });
    } catch {
      // declared but not initialized when the run ended
    }
  }
}

function logger(level: LogLevel): (...args: unknown[]) => void {
  return function log(...args: unknown[]): void {
    const stop = hostLog(level, formatLogArgs(args));
    if (stop !== undefined) throw new CapabilityError({ code: stop, message: `console.${level}: the run has ended (${stop})` });
  };
}

function defineGlobal(name: string, value: unknown): void {
  defineProperty(global, name, { value, writable: false, enumerable: false, configurable: false });
}

deleteProperty(global, HOST_CALL_GLOBAL);
deleteProperty(global, HOST_LOG_GLOBAL);
deleteProperty(global, HOST_DONE_GLOBAL);
// Shared memory gives agent code a high-resolution timer; WebAssembly is not needed by agent code and widens
// the attack surface (and reaches SharedArrayBuffer through shared memories).
deleteProperty(global, 'SharedArrayBuffer');
deleteProperty(global, 'Atomics');
deleteProperty(global, 'WebAssembly');
installClock(global);
freeze(CapabilityError.prototype);
freeze(CapabilityError);
freeze(ApprovalDeniedError.prototype);
freeze(ApprovalDeniedError);
defineGlobal('CapabilityError', CapabilityError);
defineGlobal('ApprovalDeniedError', ApprovalDeniedError);
defineGlobal(
  'console',
  freeze({ log: logger('log'), info: logger('info'), warn: logger('warn'), error: logger('error'), debug: logger('debug') }),
);
defineProperty(global, BRIDGE_STASH_GLOBAL, { value: call, writable: false, enumerable: false, configurable: true });
const api: PreludeApi = { settle, run };
defineProperty(global, PRELUDE_API_GLOBAL, { value: freeze(api), writable: false, enumerable: false, configurable: true });
