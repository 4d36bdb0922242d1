import type { Approver } from '@agent-spaces/bridge';
import type { FunctionFilter } from '../offer.js';

/** The headless permission modes (seed 000), as `toolPermission` of a space definition or of `space.ask()`. */
export const TOOL_PERMISSIONS = ['never', 'tool', 'always'] as const;

/** What a headless agent run may call: `never` asks for nothing, `tool` drops gated functions, `always` all. */
export type ToolPermission = (typeof TOOL_PERMISSIONS)[number];

/** What a headless agent run of one {@link ToolPermission} sees of its space and how its approval requests are answered. */
export interface HeadlessView {
  /** The functions its space leaves out (none: every function). */
  hideFunctions?: FunctionFilter;
  /** Answers the run's approval requests (give it as the run's `onApproval`): nobody is asked. */
  onApproval: Approver;
}

const deny =
  (permission: ToolPermission): Approver =>
  () => ({ approved: false, by: `toolPermission: ${permission}`, reason: 'a headless run never asks a person' });

const VIEWS: Record<ToolPermission, HeadlessView> = {
  // Every function exists and a call that would need approval is approved; deny rules decide before approvals.
  never: { onApproval: () => ({ approved: true, by: 'toolPermission: never' }) },
  // Functions that need approval do not exist; a call a policy rule sends to approval is denied.
  tool: { hideFunctions: (fn) => fn.requiresApproval, onApproval: deny('tool') },
  // No capability functions at all: computation (and `@agent-spaces/std`) only.
  always: { hideFunctions: () => true, onApproval: deny('always') },
};

/**
 * The one rule of headless permission (docs/agents.md, "Headless permission"), used by `space.ask()` and the MCP
 * server's agent tools: a run never asks a person — `never` approves what would need approval (deny rules still deny),
 * `tool` and `always` run in a space without the gated (or any) functions and deny what a rule sends to approval.
 */
export function headlessView(permission: ToolPermission = 'tool'): HeadlessView {
  return VIEWS[permission];
}
