import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import { resolveLimits } from '../../limits.js';
import { prepareRun, type PreparedRun } from '../../script/prepare.js';
import { childEntry } from './child-entry.js';
import { SupervisedChild, type ChildHolder } from './supervised-child.js';

/** How many warm processes the host keeps (see {@link warmSandboxProcesses}). */
export interface WarmProcessOptions {
  /**
   * Processes kept started and warm for whichever sandbox asks next (default 1, at most 8; 0 turns the host-wide
   * pool off: every sandbox forks its own). Up to three times as many, given back by closed sandboxes, are kept.
   */
  spare?: number;
}

const DEFAULT_SPARE = 1;
const MAX_SPARE = 8;
/** What a new process runs once to warm up: the default limits, no module. */
const WARM_UP = 'export default 0;';
/** Spare processes dying before they start, in a row, after which none is forked until one starts. */
const MAX_FAILED_STARTS = 3;
const RETIRED: WireError = { code: 'SPACE_CLOSED', message: 'The spare sandbox process was retired' };

/**
 * The host's warm sandbox processes, shared by every `ProcessSandbox` of this process: started before anyone asks, so
 * a sandbox's first run costs an isolate, not a process. A sandbox takes a process ({@link claim}) and has it to itself
 * until it gives it back ({@link give}: closed, or idle too long), when every isolate in it is disposed and a fresh
 * runner made before another sandbox may take it. Processes hosting sessions are never given back, and a session
 * process is only ever a process that never ran agent code.
 */
class WarmProcesses implements ChildHolder {
  #spare = DEFAULT_SPARE;
  /** Ready processes, the most recently given last. */
  readonly #idle: SupervisedChild[] = [];
  /** Processes starting (forked, or recycled and not yet answering). */
  readonly #starting = new Set<SupervisedChild>();
  /** Forks of {@link #fill} waiting for the child's entry (a claim takes the oldest rather than forking one more). */
  readonly #forking: Promise<SupervisedChild>[] = [];
  /** Processes that died before they started, since one last did. */
  #failedStarts = 0;
  #warmUp: Promise<PreparedRun> | undefined;

  /** True unless turned off (`spare: 0`). */
  get on(): boolean {
    return this.#spare > 0;
  }

  /** Sets the number of spare processes (when given) and starts those missing. */
  configure(options: WarmProcessOptions): void {
    const spare = options.spare;
    if (spare !== undefined) {
      if (!Number.isInteger(spare) || spare < 0 || spare > MAX_SPARE) {
        throw new AgentSpacesError('CONFIG_INVALID', `spare must be an integer from 0 to ${MAX_SPARE}, got ${String(spare)}`, { field: 'spare' });
      }
      this.#spare = spare;
      for (const child of this.#idle.splice(this.#keep())) child.kill(RETIRED);
      if (spare === 0) for (const child of [...this.#starting]) child.kill(RETIRED);
    }
    this.#fill();
  }

  /**
   * A process for a sandbox (the caller adopts it): a ready or starting one ({@link #take}), else one being forked for
   * the pool, else a new one. `fresh`: only a process that never ran agent code (for sessions). `undefined` when the
   * pool is off.
   */
  claim(fresh: boolean): SupervisedChild | Promise<SupervisedChild> | undefined {
    if (this.#spare === 0) return undefined;
    const claimed = this.#take([...this.#idle, ...this.#starting], fresh);
    queueMicrotask(() => this.#fill());
    return claimed ?? this.#forking.shift() ?? this.#fork();
  }

  /**
   * Of `children` (ready and starting ones), the best to hand out, taken out of the pool: for plain runs, one made
   * fresh after serving another sandbox before one that never ran agent code (kept for sessions), and one answering
   * its ping before one still booting; for sessions (`fresh`), only one that never ran agent code.
   */
  #take(children: SupervisedChild[], fresh: boolean): SupervisedChild | undefined {
    const rank = (child: SupervisedChild): number => (fresh && child.everServed ? -1 : (child.everServed ? 2 : 0) + (child.state === 'starting' ? 0 : 1));
    let best: SupervisedChild | undefined;
    for (const child of children) if (rank(child) >= 0 && (!best || rank(child) > rank(best))) best = child;
    if (!best) return undefined;
    this.#starting.delete(best);
    const index = this.#idle.indexOf(best);
    if (index >= 0) this.#idle.splice(index, 1);
    return best;
  }

  /** Takes back a process a sandbox no longer needs: kept (made fresh) while there is room, else stopped. */
  give(child: SupervisedChild): void {
    if (!child.reusable || this.#idle.length + this.#starting.size >= this.#keep()) return child.kill(RETIRED);
    child.recycle(this, resolveLimits(undefined).memoryMb);
    if (child.state === 'idle') this.#idle.push(child);
    else this.#starting.add(child);
  }

  /** @internal {@link ChildHolder}: a process started or answered after being made fresh. */
  available(child: SupervisedChild): void {
    this.#failedStarts = 0;
    if (!this.#starting.delete(child)) return;
    this.#idle.push(child);
  }

  /**
   * @internal {@link ChildHolder}: a spare process died; it is replaced, unless processes keep dying before they
   * start ({@link MAX_FAILED_STARTS} in a row: a child that cannot start is not forked again and again).
   */
  exited(child: SupervisedChild | undefined): void {
    if (!child) return;
    this.#starting.delete(child);
    const index = this.#idle.indexOf(child);
    if (index >= 0) this.#idle.splice(index, 1);
    else if (child.state !== 'idle') this.#failedStarts++;
    if (this.#failedStarts < MAX_FAILED_STARTS) this.#fill();
  }

  /** Processes kept at most. */
  #keep(): number {
    return this.#spare * 3;
  }

  #fill(): void {
    for (let missing = this.#spare - this.#idle.length - this.#starting.size - this.#forking.length; missing > 0; missing--) {
      const fork = this.#fork();
      this.#forking.push(fork);
      fork.then(
        (child) => {
          // Unless a claim took it meanwhile; stopped if the pool was turned off meanwhile.
          if (!this.#forgetFork(fork)) return;
          if (this.on) this.#starting.add(child);
          else child.kill(RETIRED);
        },
        () => this.#forgetFork(fork),
      );
    }
  }

  /** Takes `fork` off the forks waiting; false when a claim took it first. */
  #forgetFork(fork: Promise<SupervisedChild>): boolean {
    const index = this.#forking.indexOf(fork);
    if (index >= 0) this.#forking.splice(index, 1);
    return index >= 0;
  }

  async #fork(): Promise<SupervisedChild> {
    const init = { modules: new Map(), memoryMb: resolveLimits(undefined).memoryMb, warmUp: () => this.#warmUpRun(), maxRssMb: Number.MAX_SAFE_INTEGER / 1024 / 1024 };
    return new SupervisedChild(await childEntry(), init, this);
  }

  /** {@link WARM_UP}, prepared once (after the first fork: loading the transpiler must not delay it). */
  #warmUpRun(): Promise<PreparedRun> {
    this.#warmUp ??= prepareRun(WARM_UP, resolveLimits(undefined), undefined, new Map()).then((prepared) => {
      if ('error' in prepared) throw new AgentSpacesError(prepared.error.code, prepared.error.message);
      return prepared.run;
    });
    return this.#warmUp;
  }
}

const warmProcesses = new WarmProcesses();

/**
 * Starts the host's spare sandbox processes (and sets how many, when `options.spare` is given: default 1, at most 8,
 * 0 to turn the host-wide pool off). Every `ProcessSandbox` takes its processes from them, so a space's cold start
 * costs an isolate, not a process; call it early (at start-up) so they are warm when the first space asks. Spare
 * processes never keep the host alive. Throws `CONFIG_INVALID` for a bad `spare`.
 */
export function warmSandboxProcesses(options: WarmProcessOptions = {}): void {
  warmProcesses.configure(options);
}

/** @internal The host's warm processes, for `ProcessSandbox`. */
export function hostProcesses(): Pick<WarmProcesses, 'claim' | 'give' | 'on'> {
  return warmProcesses;
}
