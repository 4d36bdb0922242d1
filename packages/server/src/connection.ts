import { randomUUID } from 'node:crypto';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { createSpace, type Space, type SpaceOptions } from '@agent-spaces/sdk';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';
import { createApprover } from './approval.js';
import { ArgumentsValidator } from './args.js';
import { buildCatalog, type Catalog } from './catalog.js';
import type { HeadlessMode, SpaceDefinition } from './config.js';
import type { SessionStore } from './sessions.js';

/** `createSpace()` options shared by every space of a server (name, capabilities and approvals are set per space). */
export type SharedSpaceOptions = Omit<SpaceOptions, 'name' | 'capabilities' | 'onApproval'>;

/** State shared by every connection of one server. */
export interface HostState {
  readonly spaces: readonly SpaceDefinition[];
  readonly sessions: SessionStore;
  readonly headlessMode: HeadlessMode;
  readonly approvalTimeoutMs: number;
  readonly spaceOptions: SharedSpaceOptions;
  /** Folder user-defined tool files are relative to. */
  readonly baseDir: string;
  readonly validator: ArgumentsValidator;
  /** Catalogs by space id: the declarations are the same for every connection, so they are parsed once. */
  readonly catalogs: Map<string, Promise<Catalog>>;
}

/**
 * One MCP client connection: its own `Space` per space definition (created on first use, so approvals reach the
 * right person and runs of different clients never share a sandbox), the tool calls it has in flight, and the owner
 * id of its sessions.
 */
export class Connection {
  readonly id = randomUUID();
  readonly state: HostState;
  readonly server: Server;
  /** Ids of the tool calls being handled, oldest first. */
  readonly activeRequests: RequestId[] = [];
  readonly #spaces = new Map<string, Promise<Space>>();
  /** Ids of the spaces created and not closed: each holds a sandbox. */
  readonly #ready = new Set<string>();
  #closed = false;

  constructor(state: HostState, server: Server) {
    this.state = state;
    this.server = server;
  }

  /** The space `spaceId`, or the first space when it is absent; throws `SPACE_NOT_FOUND` naming the known ids. */
  definition(spaceId: string | undefined): SpaceDefinition {
    const { spaces } = this.state;
    const found = spaceId === undefined ? spaces[0] : spaces.find((s) => s.id === spaceId);
    if (!found) {
      throw new AgentSpacesError('SPACE_NOT_FOUND', `No space "${spaceId}" (spaces: ${spaces.map((s) => s.id).join(', ')})`, {
        spaceId,
        available: spaces.map((s) => s.id),
      });
    }
    return found;
  }

  /** This connection's `Space` for `definition`, created on first use (a failed creation is retried next time). */
  space(definition: SpaceDefinition): Promise<Space> {
    if (this.#closed) return Promise.reject(new AgentSpacesError('SPACE_CLOSED', 'The MCP connection is closed'));
    let space = this.#spaces.get(definition.id);
    if (!space) {
      space = createSpace({
        ...this.state.spaceOptions,
        name: definition.id,
        ...(definition.capabilities ? { capabilities: definition.capabilities } : {}),
        onApproval: createApprover({
          server: this.server,
          headlessMode: this.state.headlessMode,
          timeoutMs: this.state.approvalTimeoutMs,
          currentRequest: () => this.activeRequests.at(-1),
        }),
      });
      this.#spaces.set(definition.id, space);
      space.then(
        () => {
          if (!this.#closed) this.#ready.add(definition.id);
        },
        () => this.#spaces.delete(definition.id),
      );
    }
    return space;
  }

  /** How many of this connection's spaces are created and not closed, i.e. hold a sandbox. */
  get sandboxes(): number {
    return this.#ready.size;
  }

  /** The searchable functions of `definition`'s space. */
  catalog(definition: SpaceDefinition): Promise<Catalog> {
    const { catalogs } = this.state;
    let catalog = catalogs.get(definition.id);
    if (!catalog) {
      catalog = this.space(definition).then((space) => buildCatalog(space, this.state.spaceOptions));
      catalogs.set(definition.id, catalog);
      catalog.catch(() => catalogs.delete(definition.id));
    }
    return catalog;
  }

  /** Ends this connection's sessions and closes its spaces. */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.state.sessions.closeOwner(this.id);
    const spaces = [...this.#spaces.values()];
    this.#spaces.clear();
    this.#ready.clear();
    await Promise.all(spaces.map((s) => s.then((space) => space.close()).catch(() => undefined)));
  }
}
