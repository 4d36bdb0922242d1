import { headlessView, type Approver, type ToolPermission } from '@agent-spaces/sdk';
import type { SpaceVariant } from '../shared-spaces.js';

/** What a headless agent run of one permission mode runs in and how its approvals are answered. */
export interface HeadlessRun {
  /** The restricted space (none: the space itself). */
  variant?: SpaceVariant;
  /** The run's `onApproval`: answers its approval requests without asking anyone. */
  onApproval: Approver;
}

/** The sdk's {@link headlessView} of `permission` as a shared space's variant (docs/agents.md, "Headless permission"). */
export function headlessRun(permission: ToolPermission = 'tool'): HeadlessRun {
  const { hideFunctions, onApproval } = headlessView(permission);
  return { onApproval, ...(hideFunctions ? { variant: { key: `headless-${permission}`, hideFunctions } } : {}) };
}
