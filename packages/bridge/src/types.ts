import type { ValidateFunction } from 'ajv';
import type { Context } from '@opentelemetry/api';
import type { AuditSink } from './stores/audit-log.js';
import type { RateLimitStore } from './stores/rate-limit.js';
import type {
  CapabilityConfig,
  RateLimit,
  RunEventInput,
  HandlerContext,
  JsonSchema,
  Principal,
  ObjectSchema,
  Redactor,
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
  /** Environment variables its executor reads through `${VAR}` placeholders: their values are redacted from outcomes. */
  secrets?: readonly string[];
}

/** One function of a {@link HostCapability}: its schemas, approval settings and executor. */
export interface HostFunction {
  /** Generated name, e.g. `listChannels`. */
  name: string;
  /** Name in the source definition, e.g. `list_channels`. */
  sourceName: string;
  /** Schema the params object is validated against before anything runs. */
  parameters: ObjectSchema;
  /**
   * `parameters` compiled ahead (the build's validators file), asked for on the first call; without it, or when it
   * gives undefined, the schema is compiled then. May throw when the compiled form does not load.
   */
  validator?: () => ValidateFunction | undefined;
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
export type RuntimeHandlers = Record<string, Record<string, (params: never, context: HandlerContext) => unknown>>;

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
  /** Who the call is made for, when the run was given one ({@link CallOrigin.principal}). */
  principal?: Principal;
}

/**
 * What the policy decides for one call, switched exhaustively by the bridge: `allow` runs it, `deny` fails it with
 * `POLICY_DENIED`, `ask` sends an {@link ApprovalRequest} to the approver.
 */
export type PolicyDecision = ({ kind: 'allow' } | { kind: 'deny'; reason: string } | { kind: 'ask'; message: string; approvers?: ApprovalRequirement }) & {
  /** What made the decision, for the audit log (`policies.rules["crm"]`, `requiresApproval`). */
  by?: string;
};

/**
 * Decides allow / deny / ask per call. A policy may throw an `AgentSpacesError` (e.g. `RATE_LIMITED`): the call then
 * fails with that error's code, message and data; any other throw fails it with `INTERNAL`.
 */
export interface PolicyHook {
  decide(call: PendingCall): PolicyDecision | Promise<PolicyDecision>;
}

/**
 * Who may answer an approval request (`policies.approvers`, or the deciding rule's): `others` — not the principal who
 * asked; `groups` — only a principal in one of them. The host's operator may always answer.
 */
export interface ApprovalRequirement {
  others?: boolean;
  groups?: string[];
}

/** Who made a call that asks for approval: its principal's id, subject and groups ({@link CallOrigin.principal}). */
export interface ApprovalRequester {
  id: string;
  subject?: string;
  groups?: string[];
}

/** Sent to the approver when the policy says `ask`. */
export interface ApprovalRequest {
  /** The call's id ({@link PendingCall.id}). */
  id: string;
  capability: string;
  function: string;
  params: unknown;
  message: string;
  /** The run and session the call came from, when the caller said ({@link CallOrigin}). */
  runId?: string;
  sessionId?: string;
  /** The space whose call it is, when the bridge knows (`BridgeOptions.space`). */
  space?: string;
  /** When it was asked, and when it counts as denied (ISO-8601), set by the approval desk. */
  createdAt?: string;
  expiresAt?: string;
  /** The principal of the call, when it has one (absent: `local`). */
  requestedBy?: ApprovalRequester;
  /** Who may answer, when the space or rule says; absent: whoever may answer approvals at all. */
  approvers?: ApprovalRequirement;
}

/** A request on record and, once answered, its answer ({@link ApprovalStore.get}). */
export interface ApprovalRecord {
  request: ApprovalRequest;
  answer?: ApprovalOutcome & { answeredAt?: string };
}

/**
 * How an approval request was settled: approved or not, who answered (for the audit log) and why, and `via` what:
 * the approver, `approvals.resolve()` or the timeout.
 */
export interface ApprovalOutcome {
  approved: boolean;
  by: string;
  reason?: string;
  via?: 'approver' | 'resolve' | 'timeout';
  /** Where the answer came from, for the audit log (`cli on host-1`, `http 10.0.0.5`, `console 10.0.0.5`). */
  from?: string;
}

/**
 * The home of approval requests and their answers: a call that needs approval puts its request here, waits for the
 * answer here, and whoever answers (the approver, `approvals.resolve()`, the timeout) writes it here; the first answer
 * wins. The embedded one is `MemoryApprovalStore`; one a database keeps lets a request made in one process be listed
 * and answered in another. (It lives here, beside {@link ApprovalRequest}, so that no import runs in a circle.)
 */
export interface ApprovalStore {
  /** Puts `request` on record as waiting; false (and nothing recorded) when a request with its id is on record already. */
  add(request: ApprovalRequest): Promise<boolean>;
  /** The requests waiting for an answer, oldest first. */
  pending(): Promise<ApprovalRequest[]>;
  /**
   * Answers the waiting request `id` and takes it off the waiting list, atomically: false (and nothing recorded) when
   * it is not waiting (answered already, withdrawn, never made), so of concurrent answers exactly one wins.
   */
  answer(id: string, outcome: ApprovalOutcome): Promise<boolean>;
  /**
   * Resolves with the answer to request `id` once there is one (at once when it was answered already), then forgets
   * the request. One waiter per request. Rejects with `ABORTED` when `signal` aborts first.
   */
  answered(id: string, signal: AbortSignal): Promise<ApprovalOutcome>;
  /** Request `id` and its answer, when on record (answered ones stay readable as long as the store keeps them). */
  get(id: string): Promise<ApprovalRecord | undefined>;
  /** Takes request `id` off the record unanswered (its call was aborted); a later answer to it returns false. */
  withdraw(id: string): Promise<void>;
}

/** A person's (or a program's) answer to an {@link ApprovalRequest}; `by` names who answered, for the audit log. */
export interface ApprovalAnswer {
  approved: boolean;
  reason?: string;
  by?: string;
  /** Where the answer came from, for the audit log. */
  from?: string;
}

/** What an {@link Approver} is given besides the request. */
export interface ApprovalContext {
  /**
   * Aborts when the request is settled without the approver (it timed out, `approvals.resolve()` answered it, the run
   * or call was aborted): the approver should stop asking. Its `reason` says how it was settled.
   */
  signal: AbortSignal;
}

/** Answers approval requests: `true`/`false` or an {@link ApprovalAnswer}. */
export type Approver = (request: ApprovalRequest, context: ApprovalContext) => boolean | ApprovalAnswer | Promise<boolean | ApprovalAnswer>;

/**
 * The events of one call, in order: `capabilityCall`, then `approvalRequired` / `approvalResolved`, `progress` and
 * `log` (console output of the host code run for it, `[host handler <capability>.<function>] …`) as they happen, then
 * `capabilityResult`.
 */
export type CallEvent = Extract<RunEventInput, { type: 'capabilityCall' | 'capabilityResult' | 'approvalRequired' | 'approvalResolved' | 'progress' | 'log' }>;

/** Where a call comes from: its run and session (for approval requests and the audit log) and who hears its events. */
export interface CallOrigin {
  runId?: string;
  sessionId?: string;
  /** Who the run is for (the client's proven identity): policy rules, approvals, rate limits and the audit log read it. */
  principal?: Principal;
  /** Hears every {@link CallEvent} of the call, stamped with the bridge's call id. Errors it throws are ignored. */
  onEvent?: (event: CallEvent) => void;
  /** Answers this origin's approval requests instead of the bridge's `onApproval` (e.g. the client that started the run). */
  onApproval?: Approver;
  /**
   * Runs after `approvalResolved` of an approved call, before the call goes on; the call waits for its promise and
   * fails with what it rejects with (the SDK: the run is kept as running again before the approved call runs).
   */
  beforeApprovedCall?: (approvalId: string) => void | Promise<void>;
  /** OpenTelemetry context of the run: its span is the parent of each call's span (see docs/sdk-and-cli.md, "Traces"). */
  traceContext?: Context;
}

/** How the policy gate treated a call: the policy's decision, plus the approver's answer when it asked. */
export type CallDecision = (
  | { kind: 'allow' }
  | { kind: 'deny'; reason: string }
  | { kind: 'ask'; message: string; approved: boolean; answeredBy?: string; answeredFrom?: string; reason?: string }
) & { by?: string };

/** A call admitted under rate limits before the limiter existed (read back from the audit log), and its principal's id. */
export interface AdmittedCall {
  capability: string;
  function: string;
  at: number;
  principal?: string;
}

/** Options of {@link createBridge}. */
export interface BridgeOptions {
  /** The only capabilities calls can reach. Ids must be unique. */
  capabilities: readonly HostCapability[];
  /** Default: `ask` when the function or its capability's config requires approval, else `allow`. */
  policy?: PolicyHook;
  /** Answers approval requests; without it (and without `awaitApprovals`) every `ask` is denied with `APPROVAL_DENIED`. */
  onApproval?: Approver;
  /** Keep approval requests pending until `bridge.approvals.resolve()` answers them (or they time out), even without `onApproval`. */
  awaitApprovals?: boolean;
  /** A pending approval counts as denied after this many ms (default 300 000). */
  approvalTimeoutMs?: number;
  /** Who may answer approval requests whose decision does not say (`policies.approvers`); absent: anyone. */
  approvers?: ApprovalRequirement;
  /** Where approval requests wait (default: in memory). */
  approvalStore?: ApprovalStore;
  /** Rate limits by `'<capability>'` or `'<capability>.<function>'`, replacing the capabilities' `config.rateLimit`. */
  rateLimits?: Readonly<Record<string, RateLimit>>;
  /** How long a call over a rate limit waits for a slot before failing with `RATE_LIMITED` (default 0). */
  rateLimitMaxWaitMs?: number;
  /** Calls admitted earlier (by another process of the same space), counted against the rate limits. */
  rateLimitHistory?: Iterable<AdmittedCall>;
  /** Where calls admitted under rate limits are counted (default: in memory, for the bridge's life). */
  rateLimitStore?: RateLimitStore;
  /** The space's name, put in its approval requests so that people answering them know where they come from. */
  space?: string;
  /** Replaces secret values in every outcome (see `createRedactor`). */
  redactor?: Redactor;
  /** Receives one record per call, synchronously, before the outcome is returned (see `AuditLog`). */
  audit?: AuditSink;
}
