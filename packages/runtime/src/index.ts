export { DEFAULT_LIMITS, type RunLimits } from './limits.js';
export type { LogEntry, RunOutcome, RunStats } from './outcome.js';
export type { RunClock } from './prelude/contract.js';
export { RunHold } from './hold.js';
export {
  Sandbox,
  SandboxSession,
  type AgentSandbox,
  type RunOptions,
  type SandboxOptions,
  type SandboxSessionHandle,
  type SandboxStats,
  type SessionOptions,
} from './sandbox.js';
export { transpile, type TranspiledScript } from './script/transpile.js';
export { SANDBOX_GLOBALS_DTS } from './globals-dts.js';
export { ProcessSandbox, type ProcessOptions, type ProcessSession } from './process/parent/process-sandbox.js';
export { warmSandboxProcesses, type WarmProcessOptions } from './process/parent/warm-processes.js';
