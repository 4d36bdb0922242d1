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
  type ProgressUpdate,
  type RateLimit,
  type ToolDefinition,
} from './define-tool.js';
export type {
  CapabilityIR,
  CapabilityMeta,
  CapabilitySchemaFile,
  ExecutorSpec,
  FunctionIR,
  McpTaskSupport,
  OpenApiAuth,
  OpenApiExecutorSpec,
  OpenApiOperationSpec,
  OpenApiParamLocation,
  OpenApiParamSpec,
  PackageDependency,
  PackageInfo,
  SourceKind,
} from './ir.js';
export {
  AgentSpacesError,
  ERROR_CODES,
  errorCodesOf,
  isAgentSpacesError,
  isErrorCode,
  readWireError,
  toWireError,
  type CompileErrorCode,
  type ErrorCode,
  type ErrorCodeInfo,
  type ErrorCodeOf,
  type ErrorFamily,
  type RunErrorCode,
  type ServerErrorCode,
  type WireError,
} from './errors.js';
export { LOCAL_PRINCIPAL, type Principal } from './principal.js';
export { UserCredentials, expandUserPlaceholders, userPlaceholderNames, userPlaceholdersIn, type UserSecrets } from './user-secrets.js';
export { isPlainObject, isRecord } from './shape.js';
export { envValue, expandPlaceholders, isEnvName, placeholdersIn, type PlaceholderEnv } from './placeholders.js';
export { RATE_PERIODS, isRatePeriod, ratePeriodMs, type RatePeriod } from './rate-periods.js';
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
  type CapabilityEntry,
  type CapabilityRegistry,
  type McpRemoteServerConfig,
  type McpServerConfig,
  type McpServers,
  type McpStdioServerConfig,
  type NpmPackageConfig,
  type OpenApiSourceConfig,
} from './config.js';
export type { Diagnostic } from './errors.js';
export {
  findPoliciesProblem,
  type ApproversConfig,
  type AuditConfig,
  type OneOrMore,
  type ParamMatcher,
  type PoliciesConfig,
  type PolicyAction,
  type PolicyRule,
  type PrincipalMatch,
  type ToolPermission,
} from './policies.js';
export {
  DEFAULT_TYPECHECK_BUDGET,
  findTypecheckBudgetProblem,
  oversizedSource,
  resolveTypecheckBudget,
  type TypecheckBudget,
} from './typecheck-budget.js';
export { STD_HTTP_METHODS, findStdConfigProblem, type StdConfig, type StdConfigProblem, type StdHttpMethod } from './std-config.js';
export { addressSpellings, canonicalHost, emailAddresses, foldCase, hostOf, hostSkeleton, normalizeText } from './policy-text.js';
export {
  CAPABILITY_FILES,
  CATALOG_VERSION,
  CATALOG_WORD_KINDS,
  DEFAULT_OUT_DIR,
  EDITOR_PLUGIN,
  OUTPUT_FILES,
  builtFile,
  capabilitiesDir,
  editorTsconfig,
  capabilityDir,
  capabilityIdOf,
  resolveOutDir,
  searchWords,
  type CapabilityCatalog,
  type CapabilityFileName,
  type CatalogEntry,
  type CatalogFunction,
  type CatalogWords,
} from './output-layout.js';
export { moduleEntry, type ModuleEntryOptions } from './cache-module.js';
export { OBSERVED_VERSION, mergeShapes, observedFile, shapeOf, type ObservedFile, type ObservedTool, type ShapeSchema } from './observed.js';
export { closestNames } from './closest-names.js';
export { payloadBytes } from './payload.js';
export { checkJsonParams, escapePointer, jsonProblem, jsonText } from './json-text.js';
export { readResponseBody } from './response-body.js';
export { visibleText } from './visible-text.js';
export { MIN_SECRET_LENGTH, createGrowingRedactor, createRedactor, type GrowingRedactor, type Redactor } from './redact.js';
