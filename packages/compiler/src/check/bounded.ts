import { createHash } from 'node:crypto';
import { AgentSpacesError, oversizedSource, resolveTypecheckBudget, type TypecheckBudget } from '@agent-spaces/capabilities';
import { checkPool } from './pool.js';
import { CheckResultCache } from './result-cache.js';
import { BatchedSession, type CheckRequest, type CheckResult } from './session.js';
import type { TypecheckDiagnostic, TypecheckerOptions, TypecheckSession } from './types.js';

/** Options of {@link createBoundedTypechecker}. */
export interface BoundedTypecheckerOptions extends TypecheckerOptions {
  /** What one check may cost (default `DEFAULT_TYPECHECK_BUDGET`). */
  budget?: Partial<TypecheckBudget>;
  /**
   * Folder keeping results across processes (`<outDir>/cache/typecheck`): a plain check of a script already checked
   * against the same declarations, by the same TypeScript and checker, is answered from it without a worker.
   */
  cacheDir?: string;
}

/**
 * A typechecker for code nobody reviewed: every check runs in a typecheck worker thread of the process, never on the
 * caller's event loop, under a {@link TypecheckBudget}. A check past its budget fails with `TYPECHECK_LIMIT`; checks
 * of different owners are served fairly and never share a program.
 */
export interface BoundedTypechecker {
  /** Diagnostics of `code` (empty when it typechecks), for `owner` (e.g. an MCP client's id; default: one shared owner). */
  check(code: string, owner?: string): Promise<TypecheckDiagnostic[]>;
  /** A session's view: its checks also see the top-level bindings of its earlier runs. */
  createSession(owner?: string): TypecheckSession;
  /**
   * Starts a typecheck worker with the declarations now, so the first check does not wait for TypeScript to load; with
   * a `cacheDir`, 100 ms from now unless a check came first (a cached result needs no worker).
   */
  prepare(): void;
  /** Replaces the declarations, e.g. after the capabilities were rebuilt. */
  setDeclarations(declarations: ReadonlyMap<string, string>): void;
  /** Ends its checks, queued and running, with `SPACE_CLOSED`; later checks fail. */
  dispose(): void;
}

/**
 * Creates a {@link BoundedTypechecker}. TypeScript loads in the workers, not in this thread.
 * @example
 * const checker = createBoundedTypechecker({ declarations, budget: { timeoutMs: 2000 } });
 * const diagnostics = await checker.check(code, clientId); // rejects with TYPECHECK_LIMIT past the budget
 */
export function createBoundedTypechecker(options: BoundedTypecheckerOptions): BoundedTypechecker {
  const budget = resolveTypecheckBudget(options.budget);
  const pool = checkPool(budget.memoryMb);
  let declarations = options.declarations;
  let key = declarationsKey(declarations);
  let disposed = false;
  const source = {};
  const cache = options.cacheDir === undefined ? undefined : new CheckResultCache(options.cacheDir);
  let checked = false;
  const submit = (request: CheckRequest, owner: string) => {
    // A check waiting for a worker keeps the process alive, as a check on this thread would (workers never do).
    const alive = setInterval(() => undefined, 2 ** 30);
    return new Promise<CheckResult>((resolve, reject) => {
      if (disposed) throw new AgentSpacesError('INTERNAL', 'This typechecker was disposed; create a new one');
      const oversized = oversizedSource(request.code, budget.maxSourceBytes);
      if (oversized) throw oversized;
      pool.submit({ source, owner, key, declarations, request, timeoutMs: budget.timeoutMs, resolve, reject });
    }).finally(() => clearInterval(alive));
  };
  return {
    async check(code, owner = '') {
      checked = true;
      if (!cache || disposed || oversizedSource(code, budget.maxSourceBytes)) return (await submit({ code }, owner)).diagnostics;
      const kept = await cache.get(key, code).catch(() => undefined);
      if (kept) return kept;
      const checkedWith = key;
      const { diagnostics } = await submit({ code }, owner);
      // A cache that cannot be written (a read-only output folder) only costs the next run its check.
      await cache.set(checkedWith, code, diagnostics).catch(() => undefined);
      return diagnostics;
    },
    createSession: (owner = '') => new BatchedSession((request) => submit(request, owner)),
    prepare() {
      if (!cache) {
        pool.prepare(key, declarations);
        return;
      }
      // With a cache, a check that comes at once (a CLI run) starts the worker itself, and only when the cache misses.
      setTimeout(() => (checked || disposed ? undefined : pool.prepare(key, declarations)), PREPARE_DELAY_MS).unref();
    },
    setDeclarations(next) {
      declarations = next;
      key = declarationsKey(next);
    },
    dispose() {
      disposed = true;
      pool.cancel(source);
    },
  };
}

/** Options of {@link preloadTypechecker}. */
export interface PreloadTypecheckerOptions {
  /** The budget of the checks to come (default `DEFAULT_TYPECHECK_BUDGET`): its heap size picks the workers. */
  budget?: Partial<TypecheckBudget>;
  /** The script to be checked, and the cache its result would be kept in: no worker starts when it was checked before. */
  script?: { code: string; cacheDir: string };
}

/**
 * Starts a typecheck worker that loads TypeScript and parses and binds the lib files before the declarations are
 * known, so that this work overlaps the caller's own start-up (a CLI run loading its capabilities): the first check
 * then waits for that worker rather than start one. Does nothing when a worker runs already, or when the script was
 * checked before (its result is then likely kept: a worker would be wasted). Resolves to whether it started a worker.
 */
export async function preloadTypechecker(options: PreloadTypecheckerOptions = {}): Promise<boolean> {
  const pool = checkPool(resolveTypecheckBudget(options.budget).memoryMb);
  const script = options.script;
  const checked = script ? await new CheckResultCache(script.cacheDir).checkedBefore(script.code).catch(() => false) : false;
  return !checked && pool.preload();
}

/** How long `prepare` waits, with a cache, for a first check that may make the worker needless. */
const PREPARE_DELAY_MS = 100;

/** A hash of the declaration files' names and texts: the workers keep a typechecker per key. */
function declarationsKey(declarations: ReadonlyMap<string, string>): string {
  const hash = createHash('sha256');
  for (const [name, text] of [...declarations].sort(([a], [b]) => (a < b ? -1 : 1))) hash.update(`${name}\0${text.length}\0${text}`);
  return hash.digest('hex');
}
