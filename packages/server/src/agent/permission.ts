import type { RunOptions, ToolPermission } from '@agent-spaces/sdk';
import type { SpaceVariant } from '../shared-spaces.js';

/** What a headless agent run of one permission mode sees of its space and how its approvals are answered. */
export interface HeadlessView {
  /** The restricted space (none: the space itself). */
  variant?: SpaceVariant;
  /** Answers the run's approval requests without asking anyone (none: every request is denied). */
  onApproval?: NonNullable<RunOptions['onApproval']>;
}

const VIEWS: Record<ToolPermission, HeadlessView> = {
  // Every function exists and a call that would need approval is approved; deny rules decide before approvals.
  never: { onApproval: () => ({ approved: true, by: 'toolPermission: never' }) },
  // Functions that need approval do not exist; a call a policy rule sends to approval is denied.
  tool: { variant: { key: 'headless-tool', hideFunctions: (fn) => fn.requiresApproval } },
  // No capability functions at all: computation (and `@agent-spaces/std`) only.
  always: { variant: { key: 'headless-always', hideFunctions: () => true } },
};

/** Seed 000's headless permission modes (docs/agents.md, "Headless permission"): a run never asks a person. */
export function headlessView(permission: ToolPermission = 'tool'): HeadlessView {
  return VIEWS[permission];
}
