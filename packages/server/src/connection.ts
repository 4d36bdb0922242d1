import { randomUUID } from 'node:crypto';
import { AgentSpacesError, LOCAL_PRINCIPAL, type CallOutcome, type Principal } from '@agent-spaces/capabilities';
import type { DirectCallOptions, RunOptions, RunResult, Session, Space } from '@agent-spaces/sdk';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { ArgumentsValidator } from './args.js';
import type { Catalog } from './catalog.js';
import type { ModelSettings, SkillProject } from '@agent-spaces/sdk';
import type { HeadlessMode, SessionProcesses, SpaceDefinition } from './config.js';
import type { DurableState } from './durable/state.js';
import { sessionTag, type ServerLog } from './log.js';
import type { ServerSessions, StoredSession } from './sessions.js';
import type { SharedSpaces, SpaceVariant } from './shared-spaces.js';
import type { ServerTasks } from './tasks/store.js';
import type { ReplicaRegistry } from './replicas/registry.js';
import { skillsView, skillViewer } from './skills/visibility.js';
import type { AgentFileState } from './agent-files.js';

/** State shared by every connection of one server. */
export interface HostState {
  /** The space definitions served now (a config reload replaces them). */
  spaces: readonly SpaceDefinition[];
  readonly shared: SharedSpaces;
  readonly sessions: ServerSessions;
  readonly headlessMode: HeadlessMode;
  /** Whose sessions one sandbox process hosts: this client's, or its principal's (`server.sessionProcesses`). */
  readonly sessionProcesses: SessionProcesses;
  readonly approvalTimeoutMs: number;
  /** What outlives the process: approval requests (answered from the CLI, `/approvals` and the console), runs, tasks. */
  readonly durable: DurableState;
  /** Folder user-defined tool files are relative to. */
  readonly baseDir: string;
  /** The project whose skills `save_skill`, `list_skills` and `delete_skill` keep: its folder, config file and build output. */
  readonly skillProject: SkillProject;
  readonly validator: ArgumentsValidator;
  /** The tasks of the project (`<outDir>/state/tasks`), for every connection and across restarts. */
  readonly tasks: ServerTasks;
  readonly log: ServerLog;
  /** The configured model of agent runs in spaces without their own (the config's top-level `model`). */
  readonly model?: ModelSettings;
  /** The replicas of the service, when it has a shared database (docs/deployment.md): who holds what, and who is gone. */
  readonly replicas?: ReplicaRegistry;
  /** The agent files served beside the config's spaces, and those that are not (docs/agents.md, "Agent files"). */
  readonly agentFiles?: AgentFileState;
}

/** What a client's tools use of a shared space: its runs and sessions are marked as this client's (`owner`). */
export interface ClientSpace {
  /** Ids of the capabilities agent code may import. */
  readonly capabilities: readonly string[];
  /** Runs agent code in the space's current build. */
  run(code: string, options: RunOptions): Promise<RunResult>;
  /** Calls one capability function of the space's current build directly, through its bridge, for this client's principal. */
  call(capability: string, fn: string, params: unknown, options: DirectCallOptions): Promise<CallOutcome>;
  /** A session of the space's current build, which it keeps until the session is closed. */
  createSession(): Promise<StoredSession>;
  /** Session `id` restored from its kept runs (a session a stopped server held); rejects `REPLAY_UNAVAILABLE` / `REPLAY_DIVERGED`. */
  restoreSession(id: string): Promise<StoredSession>;
}

/**
 * What the server may ask of a client while it serves one of its requests: what the client declared it can do, and
 * the server→client requests that approvals (`elicitation/create`) and agent runs (`sampling/createMessage`) use. An
 * MCP 1.x `Server` (protocol 2025-11-25) is one; a client of protocol 2026-07-28 has one that declares nothing
 * (`src/modern/`), so it is never asked.
 */
export type ClientLink = Pick<Server, 'getClientCapabilities' | 'elicitInput' | 'createMessage'>;

/** Where the front door puts the {@link Principal} an access token proved, in the SDK's `AuthInfo.extra`. */
export const PRINCIPAL_KEY = 'agentSpacesPrincipal';

/**
 * Who a client acts for, the one place that decides it: the principal the front door proved from an access token
 * (`server.auth`: `user:<sub>`, in `authInfo.extra`); else, with the shared `--auth-token`, `token:` and the
 * {@link sessionTag} (16 hex digits of the SHA-256) of the token; else `local`.
 */
export function principalOf(authInfo: AuthInfo | undefined): Principal {
  const proven = authInfo?.extra?.[PRINCIPAL_KEY] as Principal | undefined;
  if (proven) return proven;
  const token = authInfo?.token;
  return token === undefined ? LOCAL_PRINCIPAL : { id: `token:${sessionTag(token)}`, scopes: [], groups: [] };
}

/**
 * One MCP client: the id that owns its sessions and marks its runs in the shared spaces (so the sandbox shares its
 * processes fairly between clients), and its view of each space. A connection of protocol 2025-11-25 is one transport
 * session; a request of protocol 2026-07-28 has no session, so its connection ({@link Connection.ofPrincipal}) is the
 * principal's.
 */
export class Connection {
  readonly state: HostState;
  /** What the server may ask of the client (for protocol 2025-11-25, the client's MCP `Server`). */
  readonly server: ClientLink;
  readonly #sessionId: () => string | undefined;
  #closed = false;
  /** False for a request's connection of its principal: its sessions outlive it. */
  #endsSessions = true;

  #id: string | undefined;

  /** What the transport proved of the client's credentials (over HTTP with `--auth-token`: its bearer token). */
  authInfo: AuthInfo | undefined;

  /** `sessionId` tells the MCP session id of the client's transport once it has one (over HTTP, after `initialize`). */
  constructor(state: HostState, server: ClientLink, sessionId: () => string | undefined = () => undefined) {
    this.state = state;
    this.server = server;
    this.#sessionId = sessionId;
  }

  /**
   * The connection of one request of a sessionless client (protocol 2026-07-28): its {@link id} is its
   * {@link principal}, so what it keeps between requests (sessions, conversations) is the principal's, found by the ids
   * its requests name. Closing it ends nothing.
   */
  static ofPrincipal(state: HostState, server: ClientLink, authInfo: AuthInfo | undefined): Connection {
    const connection = new Connection(state, server);
    connection.authInfo = authInfo;
    connection.#id = principalOf(authInfo).id;
    connection.#endsSessions = false;
    return connection;
  }

  /**
   * The client's id, which owns its sessions, marks its runs and names it in logs: over HTTP the {@link sessionTag} of
   * its MCP session id (known once it initialized) — never the id itself, a bearer credential — else an id of its own.
   */
  get id(): string {
    const sessionId = this.#sessionId();
    this.#id ??= sessionId === undefined ? randomUUID() : sessionTag(sessionId);
    return this.#id;
  }

  /** Who the client acts for, which its tasks are bound to across connections and restarts ({@link principalOf}). */
  get principal(): Principal {
    return principalOf(this.authInfo);
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

  /**
   * This client's view of the shared space of `definition` (or of its restricted `variant`), without the skills its
   * principal may not see; rejects as creating the space would (e.g. a stale build).
   */
  async space(definition: SpaceDefinition, restricted?: SpaceVariant): Promise<ClientSpace> {
    this.#assertOpen();
    const { shared } = this.state;
    const variant = await this.#view(restricted);
    const owner = this.id;
    // With `sessionProcesses: 'principal'`, this client's sessions share processes with its principal's other clients'.
    const sessionOptions = this.state.sessionProcesses === 'principal' ? { owner, processGroup: this.principal.id } : { owner };
    const { space, release } = await shared.use(definition, variant);
    release();
    return {
      capabilities: space.capabilities,
      run: async (code, options) => {
        this.#assertOpen();
        const current = await shared.use(definition, variant);
        try {
          return await current.space.run(code, { ...options, owner, principal: this.principal });
        } finally {
          current.release();
        }
      },
      call: async (capability, fn, params, options) => {
        this.#assertOpen();
        const current = await shared.use(definition, variant);
        try {
          return await current.space.call(capability, fn, params, { ...options, principal: this.principal });
        } finally {
          current.release();
        }
      },
      createSession: () => this.#session(definition, variant, (space) => space.createSession(sessionOptions)),
      restoreSession: (id) => this.#session(definition, variant, async (space) => (await space.restoreSession(id, sessionOptions)).session),
    };
  }

  /** The searchable functions of `definition`'s space (or of its `variant`) that this client's principal may see. */
  async catalog(definition: SpaceDefinition, variant?: SpaceVariant): Promise<Catalog> {
    return this.state.shared.catalog(definition, await this.#view(variant));
  }

  /** The skill project as this client sees it: whose its skills are, and which it may see. */
  get skills(): SkillProject {
    return skillViewer(this.state.skillProject, this.principal, this.id);
  }

  /** `variant` (or the full space) without the skills this client's principal may not see. */
  #view(variant: SpaceVariant | undefined): Promise<SpaceVariant | undefined> {
    return skillsView(this.skills, variant);
  }

  /**
   * Ends this connection's sessions (`reason` says why to a later lookup; not those of a principal's connection, which
   * outlive it); runs it started end with their calls.
   */
  async close(reason: 'client disconnected' | 'closed' = 'client disconnected'): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#endsSessions) await this.state.sessions.closeOwner(this.id, reason);
  }

  /** A session `open` makes in the current space of `definition`, which it keeps until the session is closed. */
  async #session(definition: SpaceDefinition, variant: SpaceVariant | undefined, open: (space: Space) => Session | Promise<Session>): Promise<StoredSession> {
    this.#assertOpen();
    const owner = this.id;
    const current = await this.state.shared.use(definition, variant);
    try {
      const session = await open(current.space);
      return {
        id: session.id,
        run: (code, options) => session.run(code, { ...options, owner, principal: this.principal }),
        close: (options) => session.close(options).finally(() => current.release()),
      };
    } catch (error) {
      current.release();
      throw error;
    }
  }

  #assertOpen(): void {
    if (this.#closed) throw new AgentSpacesError('SPACE_CLOSED', 'The MCP connection is closed');
  }
}
