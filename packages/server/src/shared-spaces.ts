import { readFileSync, unwatchFile, watchFile } from 'node:fs';
import { join } from 'node:path';
import { AgentSpacesError, OUTPUT_FILES, resolveOutDir } from '@agent-spaces/capabilities';
import { MemoryRateLimitStore, createSpace, type FunctionFilter, type RateLimitStore, type SandboxStats, type Space, type SpaceOptions } from '@agent-spaces/sdk';
import { buildCatalog, type Catalog } from './catalog.js';
import type { SpaceDefinition } from './config.js';

/** `createSpace()` options shared by every space of a server (name, capabilities and approvals are set per space or run). */
export type SharedSpaceOptions = Omit<SpaceOptions, 'name' | 'capabilities' | 'onApproval'>;

/**
 * A restricted space of a definition (a headless agent run's): `key` tells it apart from the definition's full space,
 * `hideFunctions` picks the functions it leaves out. It shares the definition's name, so its workspace.
 */
export interface SpaceVariant {
  key: string;
  hideFunctions: FunctionFilter;
}

/** One `Space` of a space definition, made from one build. */
interface Generation {
  readonly space: Promise<Space>;
  /** The space once created. */
  ready: Space | undefined;
  catalog: Promise<Catalog> | undefined;
  /** Runs in flight and sessions open on it. */
  users: number;
  /** A newer build (or config) replaced it: it closes once its last user is done. */
  retired: boolean;
  /** A variant's: retires it once it has had no user for {@link VARIANT_IDLE_MS}. */
  idle?: NodeJS.Timeout;
}

/** How often the build's state file is looked at for a new build. */
const BUILD_POLL_MS = 500;
/**
 * How long a variant's space (a headless run's, or one without the skills a principal may not see) stays open with
 * no run or session on it: variants come and go with the clients using them, so their sandboxes do not pile up.
 */
const VARIANT_IDLE_MS = 60_000;

/**
 * The spaces of a server, shared by every client: one `Space` (one sandbox, bridge, audit log and MCP client pool) per
 * space definition, created on first use. Clients' runs and sessions are told apart by the run options (`owner`,
 * `onApproval`), not by spaces of their own, so an idle client costs no sandbox.
 *
 * A new build of the output folder (its `build-state.json` changes) or {@link reload} retires the current spaces: later
 * runs, sessions and searches get new ones, while runs and sessions already going keep theirs until they are done.
 */
export class SharedSpaces {
  readonly #current = new Map<string, Generation>();
  readonly #retired = new Set<Generation>();
  readonly #stateFile: string;
  readonly #onBuild: () => void;
  #options: SharedSpaceOptions;
  #buildState: string | undefined;
  #closed = false;

  readonly #variantIdleMs: number;
  readonly #rateLimits = new Map<string, RateLimitStore>();

  /** Watches the build of `options` (its `rootDir` / `outDir`) until {@link close}; `variantIdleMs` as {@link VARIANT_IDLE_MS}. */
  constructor(options: SharedSpaceOptions, variantIdleMs = VARIANT_IDLE_MS) {
    this.#options = options;
    this.#variantIdleMs = variantIdleMs;
    this.#stateFile = join(resolveOutDir(options.rootDir ?? process.cwd(), options.outDir), OUTPUT_FILES.buildState);
    this.#buildState = readState(this.#stateFile);
    this.#onBuild = () => {
      const state = readState(this.#stateFile);
      if (state === this.#buildState) return;
      this.#buildState = state;
      this.reload();
    };
    watchFile(this.#stateFile, { interval: BUILD_POLL_MS, persistent: false }, this.#onBuild);
  }

  /** Notices a build this process just made without waiting for the next poll of `build-state.json`. */
  noticeBuild(): void {
    this.#onBuild();
  }

  /**
   * The current space of `definition` (or of its `variant`; created on first use; a failed creation is retried next
   * time), held until `release()` so that a reload does not close it under a run or a session.
   */
  async use(definition: SpaceDefinition, variant?: SpaceVariant): Promise<{ space: Space; release(): void }> {
    const generation = this.#generation(definition, variant);
    generation.users++;
    clearTimeout(generation.idle);
    let released = false;
    const release = () => {
      if (released) return;
      released = true;
      generation.users--;
      if (variant) this.#idleLater(generation);
      this.#closeIfDone(generation);
    };
    try {
      return { space: await generation.space, release };
    } catch (error) {
      release();
      throw error;
    }
  }

  /** The searchable functions of `definition`'s current space (or of its `variant`). */
  async catalog(definition: SpaceDefinition, variant?: SpaceVariant): Promise<Catalog> {
    const generation = this.#generation(definition, variant);
    if (!generation.catalog) {
      const catalog = generation.space.then((space) => buildCatalog(space, this.#options));
      generation.catalog = catalog;
      catalog.catch(() => {
        if (generation.catalog === catalog) generation.catalog = undefined;
      });
    }
    return generation.catalog;
  }

  /** Retires every current space (optionally with new options): what starts later sees the new build or config. */
  reload(options?: SharedSpaceOptions): void {
    if (options) this.#options = options;
    for (const generation of this.#current.values()) {
      generation.retired = true;
      this.#retired.add(generation);
      this.#closeIfDone(generation);
    }
    this.#current.clear();
  }

  /** How many spaces are open: current ones, and retired ones still in use. */
  get size(): number {
    return this.#current.size + this.#retired.size;
  }

  /** Sandbox processes and sandbox sessions of every open space (current, and retired ones still in use). */
  stats(): SandboxStats {
    const open = [...this.#current.values(), ...this.#retired].flatMap((g) => (g.ready ? [g.ready.stats()] : []));
    return { processes: open.reduce((sum, s) => sum + s.processes, 0), sessions: open.reduce((sum, s) => sum + s.sessions, 0) };
  }

  /** Stops watching the build and closes every space. */
  async close(): Promise<void> {
    this.#closed = true;
    unwatchFile(this.#stateFile, this.#onBuild);
    const all = [...this.#current.values(), ...this.#retired];
    this.#current.clear();
    this.#retired.clear();
    await Promise.all(all.map((g) => g.space.then((space) => space.close()).catch(() => undefined)));
  }

  #generation(definition: SpaceDefinition, variant?: SpaceVariant): Generation {
    if (this.#closed) throw new AgentSpacesError('SPACE_CLOSED', 'The code-mode server is closed');
    // Space ids hold no NUL, so a variant's key never equals another definition's.
    const key = variant ? `${definition.id}\0${variant.key}` : definition.id;
    const current = this.#current.get(key);
    if (current) return current;
    const space = createSpace({
      ...this.#options,
      stores: { rateLimits: this.#rateLimitsOf(definition.id), ...this.#options.stores },
      name: definition.id,
      ...(definition.capabilities ? { capabilities: definition.capabilities } : {}),
      ...(variant ? { hideFunctions: variant.hideFunctions } : {}),
    });
    const generation: Generation = { space, ready: undefined, catalog: undefined, users: 0, retired: false };
    this.#current.set(key, generation);
    if (variant) this.#idleLater(generation);
    space.then(
      (ready) => void (generation.ready = ready),
      () => {
        if (this.#current.get(key) === generation) this.#current.delete(key);
      },
    );
    return generation;
  }

  /** Retires the space of a variant once it has been unused for {@link VARIANT_IDLE_MS}. */
  #idleLater(generation: Generation): void {
    clearTimeout(generation.idle);
    if (generation.users === 0 && !generation.retired) generation.idle = setTimeout(() => this.#retireIdle(generation), this.#variantIdleMs).unref();
  }

  /** Retires a variant's space that is still unused, as a reload would. */
  #retireIdle(generation: Generation): void {
    if (this.#closed || generation.users > 0 || generation.retired) return;
    for (const [key, current] of this.#current) if (current === generation) this.#current.delete(key);
    generation.retired = true;
    this.#retired.add(generation);
    this.#closeIfDone(generation);
  }

  /**
   * The rate-limit counts of space `id` (unless a shared store is given): one store for all its spaces — its variants,
   * and the spaces of later builds — so a limit is the space's, whichever view of it a client uses.
   */
  #rateLimitsOf(id: string): RateLimitStore {
    return this.#rateLimits.get(id) ?? this.#rateLimits.set(id, new MemoryRateLimitStore()).get(id)!;
  }

  #closeIfDone(generation: Generation): void {
    if (!generation.retired || generation.users > 0 || !this.#retired.delete(generation)) return;
    void generation.space.then((space) => space.close()).catch(() => undefined);
  }
}

function readState(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return undefined;
  }
}
