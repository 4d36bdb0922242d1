import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { AgentSpacesError, OUTPUT_FILES, capabilitiesDir, resolveOutDir, type Principal, type WireError } from '@agent-spaces/capabilities';
import { listBuiltCapabilities } from '@agent-spaces/bridge/output';
import type { ActionServerEntry } from '@agent-spaces/compiler';
import type { AssignmentSettings, SpaceDefinition } from '../config.js';
import { AGENT_CONFIGS_DIR, readAgentConfigFiles, writeAgentConfig, type AgentConfigFile } from './files.js';

/** Seed 003's registry of action servers, in the project folder. */
const ACTION_SERVERS_FILE = 'action_servers.json';
/** How often the agent configs, `action_servers.json` and the build are looked at for changes. */
const POLL_MS = 500;

/** An action server as the assignment API lists it. */
interface ActionServerInfo {
  /** Its key in `action_servers.json` (what `action_server` names; its `name` is accepted too). */
  name: string;
  description?: string;
  url: string;
  /** The capability it builds to: agent code imports `@capabilities/<capability>`. */
  capability: string;
  /** Whether that capability is built (an unbuilt one is assigned to nobody until `capabilities build`). */
  built: boolean;
}

/** One agent's assigned action servers (keys of `action_servers.json`). */
export interface AgentAssignment {
  agent_name: string;
  action_servers: string[];
}

/** What {@link ActionServerAssignments.available} answers (`GET /action-servers/available`, `get_action_servers`). */
export interface AvailableActionServers {
  servers: ActionServerInfo[];
  agents: AgentAssignment[];
  /** Why files (or parts of them) are not applied: `CONFIG_INVALID` naming `data.file` and `data.key`, `CAPABILITY_NOT_FOUND`. */
  problems: WireError[];
}

/** Where a project's agent configs are and who may change them. */
export interface AssignmentOptions {
  rootDir: string;
  outDir?: string;
  settings?: AssignmentSettings;
}

/** Everything read at one time: servers, configs, built ids. */
interface Snapshot {
  servers: ActionServerEntry[];
  configs: AgentConfigFile[];
  built: Set<string>;
  problems: WireError[];
}

/**
 * Seed 003's agent configs: `agent_configs/<agent>.json` assigns servers of `action_servers.json` to an agent (a
 * space), whose `capabilities` then include their capabilities ({@link apply}); the assignment API lists servers and
 * writes or deletes those files ({@link assign}, {@link remove}) for the principals `settings` allow.
 */
export class ActionServerAssignments {
  readonly #rootDir: string;
  readonly #outDir: string | undefined;
  readonly #settings: AssignmentSettings | undefined;
  /** The served spaces as defined (before assignment): the agents a config may name. */
  #agents: readonly SpaceDefinition[] = [];
  /** What serves a change at once (`mcp serve`: reloads its config); without it, the poll of {@link watch} does. */
  #reload: (() => Promise<void>) | undefined;
  /** Writes one at a time, so that two assignments to one agent both stay. */
  #writes: Promise<unknown> = Promise.resolve();
  /** What {@link watch} saw last (or a write made), so that a change served at once is not served again by the poll. */
  #seen: string | undefined;

  constructor(options: AssignmentOptions) {
    this.#rootDir = options.rootDir;
    this.#outDir = options.outDir;
    this.#settings = options.settings;
  }

  /** Sets what serves a written change before {@link assign} / {@link remove} answer. */
  onChange(reload: () => Promise<void>): void {
    this.#reload = reload;
  }

  /**
   * `spaces` with the capabilities of their agents' assigned (and built) action servers added to their own
   * `capabilities` list (a space without a list already sees every built capability), and the problems of files or
   * entries not applied. Remembers `spaces` as the agents configs and the API may name.
   */
  async apply(spaces: readonly SpaceDefinition[]): Promise<{ spaces: SpaceDefinition[]; problems: WireError[] }> {
    this.#agents = spaces;
    const snapshot = await this.#read();
    const { assigned, problems } = this.#resolve(snapshot);
    const result = spaces.map((space) => {
      const extra = (assigned.get(space.id) ?? []).filter((s) => snapshot.built.has(s.capabilityId)).map((s) => s.capabilityId);
      if (!space.capabilities || extra.length === 0) return space;
      return { ...space, capabilities: [...new Set([...space.capabilities, ...extra])] };
    });
    return { spaces: result, problems };
  }

  /** The action servers, each agent's assignments and the problems, as read now. */
  async available(): Promise<AvailableActionServers> {
    const snapshot = await this.#read();
    const { assigned, problems } = this.#resolve(snapshot);
    return {
      servers: snapshot.servers.map((s) => ({
        name: s.key,
        ...(s.description ? { description: s.description } : {}),
        url: s.url,
        capability: s.capabilityId,
        built: snapshot.built.has(s.capabilityId),
      })),
      agents: [...assigned].map(([agent, servers]) => ({ agent_name: agent, action_servers: servers.map((s) => s.key) })),
      problems,
    };
  }

  /**
   * Assigns action server `server` (its key or name) to agent `agentName` (a space id, or a name only one space has):
   * writes `agent_configs/<space id>.json` and serves the change before resolving. Throws `FORBIDDEN` for a principal
   * the settings do not allow, `SPACE_NOT_FOUND` for an unknown agent, `INVALID_ARGUMENTS` for an unknown server.
   */
  async assign(agentName: string, server: string, principal: Principal): Promise<AgentAssignment> {
    this.authorize(principal);
    return this.#change(agentName, (current, snapshot) => {
      const entry = this.#server(snapshot.servers, server);
      return [...new Set([...current, entry.key])];
    });
  }

  /**
   * Removes `server` (every server when undefined) from agent `agentName`: rewrites or deletes its config file(s) and
   * serves the change before resolving. Errors as {@link assign}.
   */
  async remove(agentName: string, server: string | undefined, principal: Principal): Promise<AgentAssignment> {
    this.authorize(principal);
    return this.#change(agentName, (current, snapshot) => {
      if (server === undefined) return [];
      const entry = this.#server(snapshot.servers, server);
      return current.filter((key) => key !== entry.key);
    });
  }

  /**
   * Throws `FORBIDDEN` unless `principal` may change assignments: `server.assignment.allow` must be true and, when
   * `server.assignment.groups` is set, the principal must be in one of them.
   */
  authorize(principal: Principal): void {
    const settings = this.#settings;
    if (!settings?.allow) {
      throw new AgentSpacesError('FORBIDDEN', 'Assigning action servers is off on this server (set server.assignment.allow: true)', { principal: principal.id });
    }
    if (settings.groups && !settings.groups.some((group) => principal.groups.includes(group))) {
      throw new AgentSpacesError('FORBIDDEN', `Only members of ${settings.groups.join(', ')} may assign action servers`, { principal: principal.id, groups: settings.groups });
    }
  }

  /**
   * Calls `changed` whenever a file of `agent_configs/`, `action_servers.json` or the build changes (polled every
   * 500 ms); returns what stops watching.
   */
  watch(changed: () => void): () => void {
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      void this.#signature()
        .then((now) => {
          if (this.#seen !== undefined && now !== this.#seen) changed();
          this.#seen = now;
        })
        .finally(() => (busy = false));
    }, POLL_MS).unref();
    return () => clearInterval(timer);
  }

  /** Applies `next` (the agent's new server keys, from its current ones) to its config files, one change at a time. */
  #change(agentName: string, next: (current: string[], snapshot: Snapshot) => string[]): Promise<AgentAssignment> {
    const run = this.#writes.then(async () => {
      const agent = this.#agent(agentName);
      const snapshot = await this.#read();
      const files = snapshot.configs.filter((config) => this.#agentOf(config.agentName)?.id === agent.id);
      const current = [...new Set(files.flatMap((config) => config.actionServers.map((name) => this.#keyOf(snapshot.servers, name))))];
      const servers = next(current, snapshot);
      // The agent's own file holds them all; other files naming it (by its name) are folded into it.
      for (const config of files) if (config.agentName !== agent.id) await writeAgentConfig(this.#rootDir, config.agentName, []);
      await writeAgentConfig(this.#rootDir, agent.id, servers);
      if (this.#reload) {
        this.#seen = await this.#signature();
        await this.#reload();
      }
      return { agent_name: agent.id, action_servers: servers };
    });
    this.#writes = run.catch(() => undefined);
    return run;
  }

  /** Reads the servers, the configs and the built ids now. */
  async #read(): Promise<Snapshot> {
    const { readActionServerEntries } = await import('@agent-spaces/compiler');
    const registry = await readActionServerEntries(join(this.#rootDir, ACTION_SERVERS_FILE), ACTION_SERVERS_FILE);
    const files = await readAgentConfigFiles(this.#rootDir);
    let built: string[] = [];
    try {
      built = listBuiltCapabilities(this.#builtDir());
    } catch {
      // nothing is built
    }
    const problems = [
      ...registry.diagnostics.filter((d) => d.severity === 'error').map((d) => ({ code: 'CONFIG_INVALID' as const, message: d.message, data: { file: ACTION_SERVERS_FILE } })),
      ...files.problems.map((error) => error.toWire()),
    ];
    return { servers: registry.servers, configs: files.configs, built: new Set(built), problems };
  }

  /** Each agent's assigned servers (built or not), and the problems: unknown agents and servers, unbuilt capabilities. */
  #resolve(snapshot: Snapshot): { assigned: Map<string, ActionServerEntry[]>; problems: WireError[] } {
    const assigned = new Map<string, ActionServerEntry[]>();
    const problems = [...snapshot.problems];
    for (const config of snapshot.configs) {
      const agent = this.#agentOf(config.agentName);
      if (!agent) {
        const known = this.#agents.map((s) => s.id).join(', ');
        problems.push(invalid(config.file, 'agent_name', `names no agent "${config.agentName}" (agents: ${known})`));
        continue;
      }
      config.actionServers.forEach((name, i) => {
        const key = config.actionServers.length > 1 ? `action_server[${i}]` : 'action_server';
        const entry = findServer(snapshot.servers, name);
        if (!entry) return void problems.push(invalid(config.file, key, `names no action server "${name}" of ${ACTION_SERVERS_FILE} (servers: ${snapshot.servers.map((s) => s.key).join(', ') || 'none'})`));
        const list = assigned.get(agent.id) ?? [];
        if (!list.includes(entry)) assigned.set(agent.id, [...list, entry]);
        if (!snapshot.built.has(entry.capabilityId)) {
          const message = `${config.file}: action server "${entry.key}" is not built (capability "${entry.capabilityId}"): run capabilities build`;
          problems.push({ code: 'CAPABILITY_NOT_FOUND', message, data: { file: config.file, key, name: entry.capabilityId } });
        }
      });
    }
    return { assigned, problems };
  }

  /** The served space `name` names: its id, else the name of exactly one space. */
  #agentOf(name: string): SpaceDefinition | undefined {
    const byId = this.#agents.find((s) => s.id === name);
    if (byId) return byId;
    const byName = this.#agents.filter((s) => s.name === name);
    return byName.length === 1 ? byName[0] : undefined;
  }

  #agent(name: string): SpaceDefinition {
    const agent = this.#agentOf(name);
    if (agent) return agent;
    const available = this.#agents.map((s) => s.id);
    throw new AgentSpacesError('SPACE_NOT_FOUND', `No agent "${name.slice(0, 80)}" (agents: ${available.join(', ')})`, { agent_name: name.slice(0, 80), available });
  }

  #server(servers: readonly ActionServerEntry[], name: string): ActionServerEntry {
    const entry = findServer(servers, name);
    if (entry) return entry;
    const available = servers.map((s) => s.key);
    const message = `No action server "${name.slice(0, 80)}" in ${ACTION_SERVERS_FILE} (servers: ${available.join(', ') || 'none'})`;
    throw new AgentSpacesError('INVALID_ARGUMENTS', message, { errors: [{ field: 'action_server', problem: message }], available });
  }

  #keyOf(servers: readonly ActionServerEntry[], name: string): string {
    return findServer(servers, name)?.key ?? name;
  }

  #builtDir(): string {
    return capabilitiesDir(resolveOutDir(this.#rootDir, this.#outDir));
  }

  /** Names, sizes and times of everything an assignment depends on. */
  async #signature(): Promise<string> {
    const dir = join(this.#rootDir, AGENT_CONFIGS_DIR);
    const names = await readdir(dir).catch(() => [] as string[]);
    const files = [join(this.#rootDir, ACTION_SERVERS_FILE), join(resolveOutDir(this.#rootDir, this.#outDir), OUTPUT_FILES.buildState), ...names.sort().map((n) => join(dir, n))];
    const stats = await Promise.all(files.map((file) => stat(file).then((s) => `${file}:${s.size}:${s.mtimeMs}`, () => `${file}:-`)));
    return stats.join('\n');
  }
}

/** The server `name` names: its key, else its `name`. */
function findServer(servers: readonly ActionServerEntry[], name: string): ActionServerEntry | undefined {
  return servers.find((s) => s.key === name) ?? servers.find((s) => s.name === name);
}

function invalid(file: string, key: string, problem: string): WireError {
  return { code: 'CONFIG_INVALID', message: `${file}: ${key} ${problem}`, data: { file, key } };
}
