import { AgentSpacesError, findPoliciesProblem, type ApproversConfig, type PoliciesConfig } from '@agent-spaces/capabilities';
import { compileRules } from './policy-rules.js';
import type { ApprovalRequirement, PendingCall, PolicyDecision, PolicyHook } from './types.js';

const MAX_PARAMS_IN_MESSAGE = 200;

/**
 * The policy of `policies.rules` and `policies.toolPermission` (docs/policies.md): the most specific matching rule
 * decides, else the function's (or its capability's) `requiresApproval` (`ask`, else `allow`); then `toolPermission`
 * `never` turns `ask` into `allow` and `always` turns `allow` into `ask`. `deny` always stays. Throws `CONFIG_INVALID`
 * naming the field when `config` is malformed: every `policies` field it holds is checked, also those it does not read
 * (`createSpace` checks its `policies` this way).
 * @example
 * createPolicy({ rules: { 'mail.send': [{ when: { to: { emailDomain: 'example.com' } }, then: 'allow' }, { then: 'ask' }] } })
 */
export function createPolicy(config: Pick<PoliciesConfig, 'rules' | 'toolPermission'> = {}): PolicyHook {
  const problem = findPoliciesProblem(config);
  if (problem) throw new AgentSpacesError('CONFIG_INVALID', `Invalid policies: ${problem}`, { field: 'policies' });
  const rules = compileRules(config.rules);
  const permission = config.toolPermission ?? 'tool';
  return {
    decide(call): PolicyDecision {
      const match = rules(call) ?? (needsApproval(call) ? { action: 'ask', by: 'requiresApproval' } : { action: 'allow', by: 'default' });
      if (match.action === 'deny') return { kind: 'deny', reason: match.reason ?? `denied by ${match.by}`, by: match.by };
      if (permission === 'never') {
        return { kind: 'allow', by: match.action === 'ask' ? `toolPermission: never (over ${match.by})` : match.by };
      }
      if (match.action === 'ask') {
        const approvers = 'approvers' in match && match.approvers ? approvalRequirement(match.approvers) : undefined;
        return { kind: 'ask', message: approvalMessageFor(call), by: match.by, ...(approvers ? { approvers } : {}) };
      }
      if (permission === 'always') return { kind: 'ask', message: approvalMessageFor(call), by: `toolPermission: always (over ${match.by})` };
      return { kind: 'allow', by: match.by };
    },
  };
}

/** The policy used when none is given: `ask` when the function or its capability requires approval, else `allow`. */
export const defaultPolicy: PolicyHook = createPolicy();

/** `policies.approvers` (or a rule's) as an approval request carries it: groups as a list. */
export function approvalRequirement(approvers: ApproversConfig): ApprovalRequirement {
  const { others, groups } = approvers;
  return {
    ...(others ? { others: true } : {}),
    ...(groups !== undefined ? { groups: typeof groups === 'string' ? [groups] : [...groups] } : {}),
  };
}

function needsApproval(call: PendingCall): boolean {
  return call.function.requiresApproval || call.capability.config.requiresApproval === true;
}

/** The function's own approval message for `call`, or a generic one when it has none or it throws. */
function approvalMessageFor(call: PendingCall): string {
  const custom = call.function.approvalMessage;
  if (custom) {
    try {
      const text = custom(call.params);
      if (typeof text === 'string' && text !== '') return text;
    } catch {
      // A broken message must not block the approval itself: fall through to the generic text.
    }
  }
  return `Allow ${call.capability.id}.${call.function.name}(${describeParams(call.params)})?`;
}

function describeParams(params: Record<string, unknown>): string {
  let text: string;
  try {
    text = JSON.stringify(params) ?? '';
  } catch {
    text = '…';
  }
  return text.length > MAX_PARAMS_IN_MESSAGE ? `${text.slice(0, MAX_PARAMS_IN_MESSAGE)}…` : text;
}
