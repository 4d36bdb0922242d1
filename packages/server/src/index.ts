export {
  BUILTIN_TOOL_NAMES,
  parseServerConfig,
  spacePromptName,
  TOOL_GROUPS,
  type HeadlessMode,
  type PromptArgumentDefinition,
  type PromptTemplate,
  type AuthSettings,
  type RateLimitSettings,
  type ServerConfig,
  type ServerSettings,
  type SkillDefinition,
  type SpaceDefinition,
  type ToolGroup,
  type UserTool,
} from './config.js';
export { SERVER_VERSION, createCodeModeHost, createCodeModeServer, type CodeModeHost, type CodeModeServerOptions, type ReloadOptions, type ServerStats } from './server.js';
export type { SharedSpaceOptions } from './shared-spaces.js';
export { startHttpServer, type HttpServerHandle, type HttpServerOptions } from './http.js';
export { createServerLog, type LogEvent, type LogFields, type LogFormat, type LogLevel, type ServerLog, type ServerLogOptions } from './log.js';
export { AUTH_TOKEN_ENV, serve, type ServeContext } from './cli.js';
export { chat } from './modes/repl.js';
export { agentModesEndpoint, type AgentModesEndpoint } from './modes/http.js';
export type { AgentSurface } from './modes/surface.js';
export { projectState, type ProjectState } from './approvals/project.js';
export type { ApprovalView, ServiceAnswer } from '@agent-spaces/bridge';
