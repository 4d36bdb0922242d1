import type { CapabilityCatalog } from './output-layout.js';
import type { CapabilityConfig } from './define-tool.js';
import type { JsonSchema, ObjectSchema } from './json-schema.js';

/** Where a capability's definition came from. */
export type SourceKind = 'json' | 'define-tool' | 'mcp' | 'openapi' | 'npm' | 'skill';

/**
 * Where a capability's calls go, chosen by the definition:
 * - `module`: a host module exporting one async function per function name (or a `defineTool()` value);
 * - `http`: `POST <url>` with `{ capability, function, params }` JSON, the response body is the result;
 * - `runtime`: handlers given to `createSpace({ handlers })` at run time;
 * - `openapi`: one HTTP operation per function, described by {@link OpenApiExecutorSpec};
 * - `mcp`: a tool, resource or prompt of the MCP server `server` (`toolsHash`: its tool list's hash at build).
 */
export type ExecutorSpec =
  | { kind: 'module'; module: string; export?: string }
  | { kind: 'http'; url: string; headers?: Record<string, string> }
  | { kind: 'runtime' }
  | OpenApiExecutorSpec
  | { kind: 'mcp'; server: string; toolsHash?: string };

/**
 * Credentials of an OpenAPI server. Values are `${VAR}` placeholders (kept as such in `meta.json`) that the
 * bridge resolves from the host environment at call time; literal text around or without placeholders is kept.
 */
export type OpenApiAuth =
  | { type: 'bearer'; token: string }
  | { type: 'apiKey'; in: 'header' | 'query'; name: string; value: string }
  | { type: 'basic'; username: string; password: string };

/** Where an OpenAPI parameter travels. */
export type OpenApiParamLocation = 'path' | 'query' | 'header' | 'cookie';

/** One parameter of an OpenAPI operation: its key in the function's params object and how it is sent. */
export interface OpenApiParamSpec {
  /** Property of the params object holding the value (usually `name`; renamed when two locations clash). */
  key: string;
  /** Name on the wire. */
  name: string;
  in: OpenApiParamLocation;
  /** OpenAPI serialization style (`form`, `simple`, `deepObject`, ...); the location's default when absent. */
  style?: string;
  /** Arrays and objects as repeated fields (`a=1&a=2`) instead of one comma-joined value. */
  explode?: boolean;
}

/**
 * How one function's request is built: method, path template, parameters and JSON body. With `body.mode: 'flat'`
 * every params property that is not a parameter's `key` goes into the JSON body; with `'field'` the value of
 * `params[body.key]` is the body.
 */
export interface OpenApiOperationSpec {
  /** Upper-case HTTP method. */
  method: string;
  /** Path template relative to the base URL (`/users/{id}`). */
  path: string;
  params: OpenApiParamSpec[];
  body?: { mode: 'flat'; required: boolean } | { mode: 'field'; key: string; required: boolean };
}

/** The `openapi` executor: a base URL, one operation per function name, optional credentials and headers. */
export interface OpenApiExecutorSpec {
  kind: 'openapi';
  /** Absolute base URL every operation path is appended to. */
  baseUrl: string;
  /** By function name (`FunctionIR.name`). */
  operations: Record<string, OpenApiOperationSpec>;
  auth?: OpenApiAuth;
  /** Extra headers sent with every request; values may hold `${VAR}` placeholders. */
  headers?: Record<string, string>;
}

/** One function of a capability after normalization. */
export interface FunctionIR {
  /** Identifier used in generated code (`listChannels`). */
  name: string;
  /** Name in the source definition (`list_channels`), used when executing. */
  sourceName: string;
  description?: string;
  /** JSON Schema of the single params object (`type: 'object'`). */
  parameters: ObjectSchema;
  /** JSON Schema of the result, when known. */
  returns?: JsonSchema;
  /** TypeScript text of the result type, when the source gives it as a type (`Trip[]`). */
  returnsType?: string;
  requiresApproval?: boolean;
  /** Approval message template with `{param}` placeholders. */
  approvalMessage?: string;
  /** JSON pointer of the function's definition in its source file (`/functions/0`), for diagnostics. */
  pointer?: string;
  /**
   * True when the host module computes the approval message: a `defineTool()` function's `approvalMessage(params)`,
   * which the bridge calls from `host.mjs` (`definition.functions[sourceName].approvalMessage`).
   */
  hostApprovalMessage?: boolean;
  /**
   * How an MCP tool may run as an MCP task (its `execution.taskSupport`): `required` is called as a task (created,
   * polled, its result fetched), `optional` with a plain call; absent for every other function.
   */
  task?: McpTaskSupport;
}

/** An MCP tool's `execution.taskSupport` other than `forbidden`: whether it must or may run as an MCP task. */
export type McpTaskSupport = 'required' | 'optional';

/** A capability after normalization: what every source produces and every emitter consumes. */
export interface CapabilityIR {
  /** Module id: `@capabilities/<id>`, also the output folder name. */
  id: string;
  /** Name of the exported capability object (`trainSchedule`). */
  exportName: string;
  /** Name in the source definition. */
  sourceName: string;
  description?: string;
  version: string;
  source: { kind: SourceKind; file: string };
  functions: FunctionIR[];
  config: CapabilityConfig;
  executor: ExecutorSpec;
  /** TypeScript declarations the return types refer to (interfaces, type aliases), each exported. */
  declarations?: string;
  /**
   * The module given whole instead of generated: a `sandbox`-mode npm package bundled into `code` (the sandbox's
   * `@capabilities/<id>`, no call leaves it) and typed by its own declarations (`declarations`, the `index.d.ts`).
   * Such a capability has no functions, but the skills (`@capabilities/skills`, also given whole) list theirs. An npm
   * package brings its `catalog` too (its functions' own signatures), written as `catalog.json` instead of one made
   * from `functions`.
   */
  module?: { code: string; declarations: string; catalog?: CapabilityCatalog };
  /** The npm package the capability was built from (also in `meta.json`). */
  package?: PackageInfo;
  /** The packages bundled into its `host.mjs`, with their versions (also in `meta.json`). */
  dependencies?: PackageDependency[];
}

/** A package bundled into a capability's `host.mjs`. */
export interface PackageDependency {
  name: string;
  version: string;
}

/** An npm package built as a capability: its name, the installed version and how it runs (docs/definition-formats.md). */
export interface PackageInfo {
  name: string;
  version: string;
  /** `sandbox`: bundled into the isolate; `host`: its functions run on the host, called through the bridge. */
  mode: 'sandbox' | 'host';
}

/** `meta.json` of a built capability. */
export interface CapabilityMeta {
  id: string;
  exportName: string;
  sourceName: string;
  description?: string;
  version: string;
  source: { kind: SourceKind; file: string };
  /** sha256 of the source content and compiler version; a rebuild with the same hash is skipped. */
  contentHash: string;
  /** Version of the compiler that built this output; another version rebuilds it. */
  compilerVersion?: string;
  /** sha256 of every file the build read, by path relative to the config folder (for change detection). */
  inputs?: Record<string, string>;
  config: CapabilityConfig;
  executor: ExecutorSpec;
  functions: Array<{
    name: string;
    sourceName: string;
    requiresApproval?: boolean;
    approvalMessage?: string;
    /** The approval message comes from the host module (see {@link FunctionIR.hostApprovalMessage}). */
    hostApprovalMessage?: boolean;
    /** The MCP tool must or may run as a task (see {@link FunctionIR.task}). */
    task?: McpTaskSupport;
  }>;
  /** The npm package it was built from, for a capability of source kind `npm`. */
  package?: PackageInfo;
  /** The packages bundled into its `host.mjs`, with their versions. */
  dependencies?: PackageDependency[];
  builtAt: string;
}

/** `schema.json` of a built capability: the schemas the host validates against. */
export interface CapabilitySchemaFile {
  id: string;
  functions: Record<string, { parameters: ObjectSchema; returns?: JsonSchema }>;
}
