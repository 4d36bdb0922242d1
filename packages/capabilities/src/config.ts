import type { OpenApiAuth } from './ir.js';
import type { PoliciesConfig } from './policies.js';
import type { StdConfig } from './std-config.js';
import type { TypecheckBudget } from './typecheck-budget.js';

/** The shape of `agent-spaces.config.ts|mjs|json`. Later features add keys; unknown keys are an error. */
export interface AgentSpacesConfig {
  /**
   * Capability source files or globs, relative to the config file (`capabilities/*.ts`, `tools/weather.json`), and npm
   * packages (docs/definition-formats.md); or the seed's registry shape, `{ global: [...], mcpServers: {...} }`.
   */
  capabilities?: CapabilityEntry[] | CapabilityRegistry;
  /** Build output folder, relative to the config file. Default `.agent-spaces`. */
  outDir?: string;
  /** Defaults of `agent-spaces mcp serve` (docs/mcp-server.md); checked field by field when the server starts. */
  server?: Record<string, unknown>;
  /** The spaces `agent-spaces mcp serve` offers (docs/mcp-server.md); checked field by field when the server starts. */
  spaces?: Record<string, unknown>[];
  /** The model of headless agent runs (docs/agents.md): `{ provider, model, baseURL?, apiKey? }`; checked when the server starts. */
  model?: Record<string, unknown>;
  /**
   * MCP servers to build as `@capabilities/mcp-<server>` (docs/mcp.md), in the Claude Desktop / Cursor shape. Values
   * may hold `${VAR}` placeholders, expanded from the host environment or `.env` only when a server is started.
   * Without this key, a `.mcp.json` or `mcp.json` next to the config file is read.
   */
  mcpServers?: McpServers;
  /**
   * The operator's per-user secrets file, relative to the config file: `{ "<principal id>": { "NAME": "value" } }`,
   * what `${user:NAME}` placeholders of `mcpServers` and `openapi` resolve to for the calling principal (docs/mcp.md,
   * "Per-user credentials"). Read at call time, again when it changes; mode 0600.
   */
  userSecrets?: string;
  /** OpenAPI / Swagger servers to build as capabilities, one per entry (docs/openapi.md). */
  openapi?: OpenApiSourceConfig[];
  /** Approval rules, headless mode, rate limits, secrets to redact and the audit log (docs/policies.md). */
  policies?: PoliciesConfig;
  /**
   * What `@agent-spaces/std`'s `http` and `fs` may do, for the CLI, the SDK and `mcp serve` alike (docs/runtime.md).
   * Default: no network, a read-only workspace.
   */
  std?: StdConfig;
  /**
   * Record the shapes of MCP tool results that have no declared output schema into `<outDir>/observed/`, so the next
   * build types them (docs/mcp.md, "Results"). Default `true`.
   */
  recordResults?: boolean;
  /**
   * What one typecheck of agent code or a skill may cost before it is stopped with `TYPECHECK_LIMIT`: time, worker
   * heap and source size (docs/security.md). Default `{ timeoutMs: 5000, memoryMb: 384, maxSourceBytes: 262144 }`.
   */
  typecheck?: Partial<TypecheckBudget>;
}

/**
 * One OpenAPI server as a capability source. Give `spec` (a file path or an http(s) URL) or `url` (a server whose
 * spec is discovered at `/openapi.json`, `/`, `/api/openapi.json`, `/docs/openapi.json`).
 */
export interface OpenApiSourceConfig {
  /** Capability name; its id and export name are derived from it (`todo api` → `todo-api`, `todoApi`). */
  name: string;
  /** Spec file path (relative to the config file; to the source file in a `.openapi.json`) or http(s) URL. */
  spec?: string;
  /** Server URL to discover the spec from when `spec` is not given. */
  url?: string;
  /** Base URL of every request; default: the spec's first server, else the server `url` or the spec URL's origin. */
  baseUrl?: string;
  /** Credentials; values are `${VAR}` placeholders resolved from the host environment at call time. */
  auth?: OpenApiAuth;
  /** Extra headers of every request; values may hold `${VAR}` placeholders. */
  headers?: Record<string, string>;
  /**
   * Approval: `true`/`false` for every operation, or a map by function name, operationId or `METHOD /path`.
   * Operations not in the map keep the default: everything but GET, HEAD and OPTIONS needs approval.
   */
  requiresApproval?: boolean | Record<string, boolean>;
  /** Overrides the spec's `info.description`. */
  description?: string;
  /** Seconds a fetched spec stays fresh in `<outDir>/cache/openapi/` (default 3600). */
  cacheTtl?: number;
}

/**
 * One entry of `capabilities`: a file or glob, a folder holding a package (`./capabilities/company-sdk`, with its
 * `package.json`), an npm package (`'npm:<package>'`, `'@scope/<package>'`, {@link NpmPackageConfig}), or
 * `'@agent-spaces/std'` (always offered; listing it changes nothing).
 */
export type CapabilityEntry = string | NpmPackageConfig;

/** The registry shape of `capabilities` (seed 002): the capabilities every space may use, and the MCP servers. */
export interface CapabilityRegistry {
  /** Entries as in the array form of `capabilities`. Default `['capabilities/*']`. */
  global?: CapabilityEntry[];
  /** As the top-level `mcpServers` (give one or the other). */
  mcpServers?: McpServers;
}

/** An npm package built as the capability `@capabilities/<name>`. */
export interface NpmPackageConfig {
  /** The package, installed in the project (`change-case`, `@company/internal-sdk`). */
  package: string;
  /** Module name; default the package name without `@`, `/` → `-` (`@company/sdk` → `company-sdk`). */
  name?: string;
  /** Only these named exports (default: every named export). */
  exports?: string[];
  /**
   * `sandbox` (the default): the package is bundled into the isolate; it must not need Node built-ins. `host`: its
   * functions run on the host, each call crossing the bridge (validation, policy, approval, rate limits, audit).
   */
  mode?: 'sandbox' | 'host';
}

/** A server started as a child process that speaks JSON-RPC over its stdin/stdout. */
export interface McpStdioServerConfig {
  type?: 'stdio';
  command: string;
  args?: string[];
  /** Added to a small safe default environment (`PATH`, `HOME`, …), as Claude Desktop does. */
  env?: Record<string, string>;
  /** A `.env`-format file whose entries are added to `env` (`env` wins), as Cursor and VS Code read it; relative to the project. */
  envFile?: string;
  cwd?: string;
}

/**
 * A server reached over HTTP: `type: 'http'` is Streamable HTTP, `'sse'` the old HTTP+SSE transport, and no
 * `type` tries Streamable HTTP first and falls back to SSE when the server answers with a 4xx.
 */
export interface McpRemoteServerConfig {
  type?: 'http' | 'sse';
  url: string;
  headers?: Record<string, string>;
}

/** One entry of `mcpServers`. */
export type McpServerConfig = McpStdioServerConfig | McpRemoteServerConfig;

/** `mcpServers`: server name -> how to reach it. */
export type McpServers = Record<string, McpServerConfig>;

/** Identity helper that types an `agent-spaces.config.ts` default export. */
export function defineConfig(config: AgentSpacesConfig): AgentSpacesConfig {
  return config;
}
