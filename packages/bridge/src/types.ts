import type {
  CallOutcome,
  CapabilityConfig,
  HandlerContext,
  JsonSchema,
  ObjectSchema,
} from '@agent-spaces/capabilities';

/** A capability as the host executes it. */
export interface HostCapability {
  /** Module id, e.g. `train-schedule`: what the sandbox sends as `capability`. */
  id: string;
  /** Name of the exported capability object, e.g. `trainSchedule`. */
  exportName: string;
  config: CapabilityConfig;
  /** Keyed by the generated function name (what the sandbox sends as `function`). */
  functions: ReadonlyMap<string, HostFunction>;
}

/** One function of a {@link HostCapability}: its schemas, approval settings and executor. */
export interface HostFunction {
  /** Generated name, e.g. `listChannels`. */
  name: string;
  /** Name in the source definition, e.g. `list_channels`. */
  sourceName: string;
  /** Schema the params object is validated against before anything runs. */
  parameters: ObjectSchema;
  /** Schema of the result, when known (informational: results are not validated). */
  returns?: JsonSchema;
  /** Calls need a person's approval under the default policy. */
  requiresApproval: boolean;
  /** The text a person sees when asked to approve a call. */
  approvalMessage?: (params: Record<string, unknown>) => string;
  /** Runs the call on the host; only ever given params that passed validation and policy. */
  execute(params: Record<string, unknown>, context: HandlerContext): Promise<unknown>;
}

/** Host handlers of `runtime` capabilities: `{ [capability id or exportName]: { [function or sourceName]: handler } }`. */
export type RuntimeHandlers = Record<string, Record<string, (params: any, context: HandlerContext) => unknown>>;

/** A call that passed lookup and validation and waits for the policy's decision. */
export interface PendingCall {
  /** Unique within the bridge; also the id of the approval request, if one is made. */
  id: string;
  capability: HostCapability;
  function: HostFunction;
  /** The validated params object. */
  params: Record<string, unknown>;
  /** The run's signal: a policy that waits (for a person, a rate limit) should stop waiting when it aborts. */
  signal: AbortSignal;
}

/**
 * What the policy decides for one call, switched exhaustively by the bridge: `allow` runs it, `deny` fails it with
 * `POLICY_DENIED`, `ask` sends an {@link ApprovalRequest} to the approver.
 */
export type PolicyDecision = { kind: 'allow' } | { kind: 'deny'; reason: string } | { kind: 'ask'; message: string };

/**
 * Decides allow / deny / ask per call. A policy may throw an `AgentSpacesError` (e.g. `RATE_LIMITED`): the call then
 * fails with that error's code, message and data; any other throw fails it with `INTERNAL`.
 */
export interface PolicyHook {
  decide(call: PendingCall): PolicyDecision | Promise<PolicyDecision>;
}

/** Sent to the approver when the policy says `ask`. */
export interface ApprovalRequest {
  /** The call's id ({@link PendingCall.id}). */
  id: string;
  capability: string;
  function: string;
  params: unknown;
  message: string;
}

/** A call arrived from the sandbox (before lookup, validation and policy). */
export interface CallStarted {
  callId: string;
  capability: string;
  function: string;
  params: unknown;
}

/** How the policy gate treated a call: the policy's decision, plus the approver's answer when it asked. */
export type CallDecision =
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string }
  | { kind: 'ask'; message: string; approved: boolean };

/** A call finished, successfully or not. */
export interface CallFinished {
  callId: string;
  capability: string;
  function: string;
  outcome: CallOutcome;
  durationMs: number;
  /** Present when the call reached the policy gate. */
  decision?: CallDecision;
}

/** Options of {@link createBridge}. */
export interface BridgeOptions {
  /** The only capabilities calls can reach. Ids must be unique. */
  capabilities: readonly HostCapability[];
  /** Default: `ask` when the function or its capability's config requires approval, else `allow`. */
  policy?: PolicyHook;
  /** Answers approval requests; without it every `ask` is denied with `APPROVAL_DENIED`. */
  onApproval?: (request: ApprovalRequest) => boolean | Promise<boolean>;
  /** Called when a call arrives. Errors it throws are ignored. */
  onCall?: (event: CallStarted) => void;
  /** Called when a call finishes. Errors it throws are ignored. */
  onResult?: (event: CallFinished) => void;
}
