import type { PendingCall, PolicyDecision, PolicyHook } from './types.js';

const ALLOW: PolicyDecision = Object.freeze({ kind: 'allow' });
const MAX_PARAMS_IN_MESSAGE = 200;

/** The policy used when none is given: `ask` when the function or its capability requires approval, else `allow`. */
export const defaultPolicy: PolicyHook = {
  decide(call) {
    return call.function.requiresApproval || call.capability.config.requiresApproval === true
      ? { kind: 'ask', message: approvalMessageFor(call) }
      : ALLOW;
  },
};

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
