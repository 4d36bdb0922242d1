export { DEFAULT_LIMITS, type RunLimits } from './limits.js';
export { Sandbox, SandboxSession, type RunOptions, type SandboxOptions, type SandboxStats, type SessionOptions } from './sandbox/sandbox.js';
export type { RunOutcome, RunStats } from './sandbox/outcome.js';
export type { LogEntry } from './host-port.js';
export { transpile, type TranspiledScript } from './transpile.js';
export { SANDBOX_GLOBALS_DTS } from './globals-dts.js';
export {
  ProcessSandbox,
  type ProcessOptions,
  type ProcessSession,
  type SandboxHost,
  type SandboxSessionHandle,
} from './process/process-sandbox.js';
