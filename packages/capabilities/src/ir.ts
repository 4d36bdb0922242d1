import type { CapabilityConfig } from './define-tool.js';
import type { JsonSchema, ObjectSchema } from './json-schema.js';

/** Where a capability's definition came from. */
export type SourceKind = 'json' | 'define-tool' | 'mcp' | 'openapi';

/**
 * Where a capability's calls go, chosen by the definition:
 * - `module`: a host module exporting one async function per function name (or a `defineTool()` value);
 * - `http`: `POST <url>` with `{ capability, function, params }` JSON, the response body is the result;
 * - `runtime`: handlers given to `createSpace({ handlers })` at run time.
 */
export type ExecutorSpec =
  | { kind: 'module'; module: string; export?: string }
  | { kind: 'http'; url: string; headers?: Record<string, string> }
  | { kind: 'runtime' };

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
}

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
  config: CapabilityConfig;
  executor: ExecutorSpec;
  functions: Array<{ name: string; sourceName: string; requiresApproval?: boolean; approvalMessage?: string }>;
  builtAt: string;
}

/** `schema.json` of a built capability: the schemas the host validates against. */
export interface CapabilitySchemaFile {
  id: string;
  functions: Record<string, { parameters: ObjectSchema; returns?: JsonSchema }>;
}
