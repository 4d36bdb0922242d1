export { SANDBOX_DECLARATIONS } from './declarations.js';
export { configSpaceOptions, createSpace, type RunOptions, type Session, type Space, type SpaceOptions } from './space.js';
export { Run, type RunLog, type RunResult, type RunStats } from './run.js';
export { deleteSkill, listSkills, saveSkill, type SaveSkillOptions, type SavedSkill, type SkillInfo, type SkillProject } from './skills.js';
export { RUN_EVENT_PARAMS_BYTES, type TruncatedParams } from './budget.js';
export type { TypecheckDiagnostic } from './typecheck.js';
export type { FunctionFilter, OfferedFunction } from './offer.js';
export { MODEL_PROVIDERS, configuredModel, parseModel, type AgentMessage, type AgentModel, type ModelReply, type ModelRequest, type ModelSettings, type ModelTool, type ToolCall } from './agent/model.js';
export { AgentRun, spaceTool, type AgentEvent, type AskOptions, type AskResult } from './agent/ask.js';
export { DEFAULT_MAX_TURNS, agentLoop, toolFailure, type AgentLoopOptions, type AgentLoopResult, type AgentTool } from './agent/loop.js';
export { TOOL_PERMISSIONS, headlessView, type HeadlessView, type ToolPermission } from './agent/permission.js';
export type { SandboxStats } from '@agent-spaces/runtime';
export {
  auditLogFile,
  readAuditLog,
  streamAuditLogs,
  type ApprovalAnswer,
  type ApprovalContext,
  type ApprovalRequest,
  type Approvals,
  type Approver,
  type AuditRecord,
  type PendingCall,
  type PolicyDecision,
  type PolicyHook,
  type RuntimeHandlers,
} from '@agent-spaces/bridge';
