import type { CapabilityIR, Diagnostic } from '@agent-spaces/capabilities';

/** What one source reader produced from one definition file. */
export interface SourceResult {
  /** Capabilities found in the file (usually one; none when the file is unusable). */
  capabilities: CapabilityIR[];
  /** Problems found, located by file and JSON pointer; an `error` fails the file's capabilities. */
  diagnostics: Diagnostic[];
  /** Absolute paths of every file read (the definition and anything it pulled in), for change detection. */
  inputs: string[];
  /** Source text of `host.mjs` by capability id, for capabilities whose handlers are bundled into the output. */
  hostModules: Record<string, string>;
  /**
   * Where each OpenAPI capability's spec was read, by capability id: the discovery URL that answered, the spec URL,
   * or the spec file (relative to the config folder). Reported as the build report entry's `spec`.
   */
  specs?: Record<string, string>;
}

/** What a reader knows about the build it runs in. */
export interface SourceContext {
  /** Folder of the config file; source paths in diagnostics and IR are relative to it. */
  rootDir: string;
  /** Absolute output folder (`<rootDir>/.agent-spaces` by default). */
  outDir: string;
  /** Path of `file` relative to `rootDir`, with `/` separators. */
  relative(file: string): string;
  /** Fetch remote inputs (OpenAPI specs) again, ignoring cached copies (`capabilities build --refresh`). */
  refresh?: boolean;
  /** How long importing one `defineTool()` file may take (default 10 000 ms); past it the source fails `TIMEOUT`. */
  loadTimeoutMs?: number;
  /** Told every few seconds while a source keeps the build waiting (an MCP server's handshake and listings). */
  onWaiting?: (event: SourceWaiting) => void;
}

/** A source the build is still waiting for, and for how long so far. */
export interface SourceWaiting {
  /** What is awaited: an MCP server (`mcpServers.<name>`). */
  kind: 'mcp';
  /** Its name in the config (the `mcpServers` key). */
  name: string;
  /** Milliseconds since the build started waiting for it. */
  elapsedMs: number;
}

/** Reads one definition file (absolute path) into capability IR; reports problems as diagnostics, never throws. */
export type SourceReader = (file: string, context: SourceContext) => Promise<SourceResult>;
