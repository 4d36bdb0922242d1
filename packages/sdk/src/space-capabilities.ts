import { join, resolve } from 'node:path';
import type { UserCredentials } from '@agent-spaces/capabilities';
import { ResultRecorder, listBuiltCapabilities, resolveCapabilityNames } from '@agent-spaces/bridge/output';
import { HostModules, loadCapabilities, type HostCapability } from '@agent-spaces/bridge';
import { createStdCapability } from '@agent-spaces/std';
import { buildInline } from './inline.js';
import { createSpaceMcp, type SpaceMcp } from './mcp.js';
import { withoutHidden } from './offer.js';
import type { SpaceOptions } from './types.js';

/** Where a space's files are: its name, the project folder, the build output and the built capabilities in it. */
export interface SpacePaths {
  name: string;
  rootDir: string;
  outDir: string;
  capabilitiesDir: string;
}

/** The {@link SpacePaths} of `options` (defaults: `default`, the current directory, `<rootDir>/.agent-spaces`). */
export function spacePaths(options: SpaceOptions): SpacePaths {
  const rootDir = resolve(options.rootDir ?? process.cwd());
  const outDir = resolve(rootDir, options.outDir ?? '.agent-spaces');
  return { name: options.name ?? 'default', rootDir, outDir, capabilitiesDir: join(outDir, 'capabilities') };
}

/** What the capabilities' host side hands the space: output outside calls, and values to redact. */
export interface CapabilityHost {
  onOutput(capability: string, source: string, line: string): void;
  redact<T>(value: T): T;
  /** Where `${user:NAME}` resolve for MCP servers, OpenAPI and HTTP capabilities. */
  userSecrets: UserCredentials;
}

/** A space's capabilities, loaded: built ones, inline ones (compiled into a temporary folder) and std. */
export interface SpaceCapabilities {
  /** Ids agent code may import as `@capabilities/<id>`: built ones, then inline ones. */
  ids: string[];
  /** Every loaded capability, hidden functions included (policies are checked against them). */
  loaded: HostCapability[];
  /** What the space offers: the loaded capabilities without the functions `hideFunctions` picks. */
  offered: HostCapability[];
  /** The names hidden, per capability id. */
  hidden: Map<string, Set<string>>;
  std: HostCapability;
  /** The MCP servers the built `mcp-*` capabilities call, when any does. */
  mcp: SpaceMcp | undefined;
  /** The folder holding the built files of `id`. */
  dirOf(id: string): string;
  /** Makes later calls of `module` capabilities run their host modules as rebuilt (`Space.reload`). */
  hostModules: HostModules;
  /** Removes the inline capabilities' folder, stops the MCP servers and writes the results recorded but not yet written. */
  close(): Promise<void>;
}

/**
 * Loads what `options.capabilities` names (default every built capability) and std's host side. MCP tool results are
 * recorded (`recordResults`) redacted through `host`, and MCP servers' stderr goes to `host.onOutput`.
 */
export async function loadSpaceCapabilities(options: SpaceOptions, paths: SpacePaths, host: CapabilityHost): Promise<SpaceCapabilities> {
  const { rootDir, outDir, capabilitiesDir } = paths;
  const std = createStdCapability({
    workspaceDir: resolve(rootDir, options.std?.fs?.root ?? join(outDir, 'workspaces', paths.name)),
    ...(options.std?.fs?.write !== undefined ? { write: options.std.fs.write } : {}),
    ...(options.std?.http ? { http: options.std.http } : {}),
  });
  const named = options.capabilities?.filter((c): c is string => typeof c === 'string');
  const builtIds = named ? resolveCapabilityNames(capabilitiesDir, named) : listBuiltCapabilities(capabilitiesDir);
  const mcp = await createSpaceMcp(capabilitiesDir, builtIds, {
    rootDir,
    onOutput: host.onOutput,
    userSecrets: host.userSecrets,
    ...(options.mcpServers ? { mcpServers: options.mcpServers } : {}),
  });
  const recorder = mcp && options.recordResults !== false ? new ResultRecorder(outDir) : undefined;
  const hostModules = new HostModules();
  const built = await loadCapabilities(capabilitiesDir, builtIds, options.handlers, {
    hostModules,
    ...(mcp ? { mcp: mcp.pool } : {}),
    userSecrets: host.userSecrets,
    // Redacted before its shape is taken: a secret never reaches the record, not even as a field name.
    ...(recorder ? { onMcpToolData: (id: string, tool: string, data: unknown) => recorder.record(id, tool, host.redact(data)) } : {}),
  });
  // Compiled last, so that a missing built capability cannot leave the temporary folder behind.
  const inline = await buildInline(options.capabilities?.filter((c) => typeof c !== 'string') ?? []);
  const loaded = [
    ...built,
    ...(inline.ids.length > 0 ? await loadCapabilities(inline.capabilitiesDir, inline.ids, { ...inline.handlers, ...options.handlers }) : []),
  ];
  const { capabilities: offered, hidden } = withoutHidden(loaded, options.hideFunctions);
  return {
    ids: [...builtIds, ...inline.ids],
    loaded,
    offered,
    hidden,
    std,
    mcp,
    dirOf: (id) => (inline.ids.includes(id) ? inline.capabilitiesDir : capabilitiesDir),
    hostModules,
    async close() {
      await inline.dispose();
      await mcp?.close();
      // Results are written a moment after they are recorded (observed.ts); what is still pending is written now.
      await recorder?.flush();
    },
  };
}
