export { SANDBOX_DECLARATIONS } from './declarations.js';
export { configSpaceOptions, createSpace } from './space.js';
export type { DirectCallOptions, RestoredSession, RestoreOptions, RunOptions, Session, Space, SpaceOptions, SpaceStores } from './types.js';
export { awaitedApprovals } from './durable/resume.js';
export { Run, type RunLog, type RunResult, type RunStats } from './run.js';
export { deleteSkill, hiddenSkills, listSkills, mirrorSkills, rebuildSkills, saveSkill, type SaveSkillOptions, type SavedSkill, type SharedSkill, type SkillInfo, type SkillProject, type SkillRecord, type SkillRecords } from './skills.js';
export type { RecordedShare, SkillShare } from './skill-shares.js';
export { RUN_EVENT_PARAMS_BYTES, type TruncatedParams } from './budget.js';
export { preloadTypecheck, type TypecheckDiagnostic } from './typecheck.js';
export type { FunctionFilter, OfferedFunction } from './offer.js';
export { MODEL_PROVIDERS, configuredModel, parseModel, type AgentMessage, type AgentModel, type ModelReply, type ModelRequest, type ModelSettings, type ModelTool, type ToolCall } from './agent/model.js';
export { AgentRun, type AgentEvent, type AskOptions, type AskResult } from './agent/agent-run.js';
export { spaceTool } from './agent/ask.js';
export { DEFAULT_MAX_TURNS, agentLoop, toolFailure, type AgentLoopOptions, type AgentLoopResult, type AgentTool } from './agent/loop.js';
export { TOOL_PERMISSIONS, headlessView, type HeadlessView, type ToolPermission } from './agent/permission.js';
export { warmSandboxProcesses, type SandboxStats, type WarmProcessOptions } from '@agent-spaces/runtime';
export {
  ApprovalService,
  FileApprovalStore,
  FileRunStore,
  FileAuditArchive,
  FileAuditStore,
  FileSessionStore,
  MemoryApprovalStore,
  MemoryRateLimitStore,
  MemoryRunStore,
  MemorySessionStore,
  readAuditLog,
  type ApprovalAnswer,
  type ApprovalContext,
  type ApprovalRequest,
  type Approvals,
  type Approver,
  type ApprovalOutcome,
  type ApprovalStore,
  type AuditArchive,
  type AuditQuery,
  type AuditRecord,
  type AuditStore,
  type PendingCall,
  type PolicyDecision,
  type PolicyHook,
  type RateLimitStore,
  type ApprovalView,
  type KeptRun,
  type RunRecord,
  type RunStore,
  type RuntimeHandlers,
  type SessionInfo,
  type SessionStore,
} from '@agent-spaces/bridge';
