export { createBridge, type Bridge } from './bridge.js';
export { loadCapabilities } from './load.js';
export { createOpenApiExecutor, type OpenApiExecutor, type OpenApiExecutorOptions, type SecretEnv } from './executors/openapi.js';
export type {
  ApprovalRequest,
  BridgeOptions,
  CallDecision,
  CallFinished,
  CallStarted,
  HostCapability,
  HostFunction,
  PendingCall,
  PolicyDecision,
  PolicyHook,
  RuntimeHandlers,
} from './types.js';
