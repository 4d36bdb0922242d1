export type {
  ArraySchema,
  BooleanSchema,
  JsonSchema,
  JsonSchemaTypeName,
  NullSchema,
  NumericSchema,
  ObjectSchema,
  SchemaBase,
  StringSchema,
  UntypedSchema,
} from './json-schema.js';
export {
  defineTool,
  type CapabilityConfig,
  type FunctionDefinition,
  type HandlerContext,
  type InferParams,
  type ParamShorthand,
  type ParamsShorthand,
  type ParamValue,
  type RateLimit,
  type ToolDefinition,
} from './define-tool.js';
export type {
  CapabilityIR,
  CapabilityMeta,
  CapabilitySchemaFile,
  ExecutorSpec,
  FunctionIR,
  OpenApiAuth,
  OpenApiExecutorSpec,
  OpenApiOperationSpec,
  OpenApiParamLocation,
  OpenApiParamSpec,
  SourceKind,
} from './ir.js';
export {
  AgentSpacesError,
  isAgentSpacesError,
  type CompileErrorCode,
  type ErrorCode,
  type RunErrorCode,
  type ServerErrorCode,
  type WireError,
} from './errors.js';
export {
  BRIDGE_MODULE,
  CAPABILITY_PREFIX,
  LOG_LEVELS,
  STD_CAPABILITY,
  STD_MODULE,
  parseSandboxMessage,
  type CallMessage,
  type CallOutcome,
  type HostPort,
  type LogLevel,
  type LogMessage,
  type SandboxMessage,
} from './protocol.js';
export type {
  CapabilityCallEvent,
  CapabilityResultEvent,
  ErrorEvent,
  LogEvent,
  RunEvent,
  RunEventInput,
  RunFinishedEvent,
  RunStartedEvent,
} from './events.js';
export { defineConfig, type AgentSpacesConfig } from './config.js';
export type { Diagnostic } from './errors.js';
