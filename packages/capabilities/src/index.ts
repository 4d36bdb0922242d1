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
  type AnyToolDefinition,
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
  type CallMessage,
  type CallOutcome,
  type HostPort,
  type LogLevel,
} from './protocol.js';
export type {
  ApprovalRequiredEvent,
  ApprovalResolvedEvent,
  CapabilityCallEvent,
  CapabilityResultEvent,
  ErrorEvent,
  LogEvent,
  ProgressEvent,
  RunEvent,
  RunEventInput,
  RunFinishedEvent,
  RunStartedEvent,
} from './events.js';
export {
  defineConfig,
  type AgentSpacesConfig,
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpServers,
  type McpStdioServerConfig,
  type OpenApiSourceConfig,
} from './config.js';
export type { Diagnostic } from './errors.js';
export {
  findPoliciesProblem,
  type ParamMatcher,
  type PoliciesConfig,
  type PolicyAction,
  type PolicyRule,
  type ToolPermission,
} from './policies.js';
