import { createGrowingRedactor, ratePeriodMs, type McpServers, type PoliciesConfig } from '@agent-spaces/capabilities';
import { DEFAULT_AUDIT_ROTATION } from './stores/audit-log.js';
import { checkPolicyNames } from './policy-names.js';
import { approvalRequirement, createPolicy } from './policy.js';
import { placeholderNames, secretsFromEnv } from './redact.js';
import { FileAuditStore, type AuditStore, type FileAuditStoreOptions } from './stores/audit.js';
import type { RateLimitStore } from './stores/rate-limit.js';
import type { AdmittedCall, ApprovalStore, Approver, BridgeOptions, HostCapability, PolicyHook } from './types.js';

/** Stores of a space's gate given instead of the embedded ones (the audit store: when `policies.audit` is not false). */
export interface GateStores {
  /**
   * The space's audit store, or a factory that makes it from the space's name (one server hands all its spaces one
   * factory, e.g. `(space) => database.audit(space)`).
   */
  audit?: AuditStore | ((space: string) => AuditStore);
  approvals?: ApprovalStore;
  rateLimits?: RateLimitStore;
}

/** What {@link createGate} reads: a space's name, build folder and its gate settings. */
export interface GateConfig {
  /** The space's name: names its audit log. */
  name: string;
  /** The build output folder (`<rootDir>/.agent-spaces`): the audit log is `<outDir>/audit/<name>.jsonl`. */
  outDir: string;
  policies?: PoliciesConfig;
  /** Decides instead of `policies.rules` / `policies.toolPermission` (which are still checked). */
  policy?: PolicyHook;
  onApproval?: Approver;
  awaitApprovals?: boolean;
  /** The MCP servers the capabilities call: their `${VAR}` placeholders name secrets too. */
  mcpServers?: McpServers;
  /** Where `${VAR}` values are read from for redaction (default `process.env`; MCP adds the project's `.env`). */
  env?: Readonly<Record<string, string | undefined>>;
  /** Default: the embedded ones (the audit log file, approvals and rate-limit counts in memory). */
  stores?: GateStores;
}

/** The gate of a space: the options of its bridge for policy, approvals, rate limits, redaction and the audit log. */
export interface Gate {
  /** What `createBridge` takes besides the capabilities. */
  bridgeOptions: Omit<BridgeOptions, 'capabilities'>;
  /** The audit log file, unless `policies.audit` is false or another audit store is given. */
  auditFile: string | undefined;
  /**
   * Redacts `value` from outcomes, events and the audit log from now on as `[REDACTED:<name>]`: a per-user secret
   * (`user:NAME`), handed over when it is resolved, before it is sent anywhere.
   */
  addSecret(name: string, value: string): void;
  /** Closes the audit log (a store given in `stores` stays open: its owner closes it). */
  close(): void;
}

/**
 * Turns a space's `policies` (and `policy` / `onApproval`) into bridge options, after checking them (`CONFIG_INVALID`
 * for a malformed field, or a rule or rate limit naming a capability or function not among `capabilities`, which
 * include std). Secrets are the values of the variables capabilities use as `${VAR}` (executor specs, `mcpServers`
 * when given) plus `policies.secrets`. Rate limits start from the calls the audit store holds for their longest
 * window, so they also hold across processes (a `per: 'user'` limit counts each call toward its principal's window).
 */
export async function createGate(config: GateConfig, capabilities: readonly HostCapability[]): Promise<Gate> {
  const policies = config.policies ?? {};
  // Checks every field of `policies` (CONFIG_INVALID), also when the space's own `policy` hook is used instead.
  const rulesPolicy = createPolicy(policies);
  checkPolicyNames(policies, capabilities);
  const names = new Set([...(policies.secrets ?? []), ...capabilities.flatMap((c) => c.secrets ?? []), ...placeholderNames(config.mcpServers ?? {})]);
  const redactor = createGrowingRedactor(secretsFromEnv(names, config.env));
  const given = config.stores ?? {};
  const owned = policies.audit === false || given.audit ? undefined : new FileAuditStore(config.outDir, config.name, auditOptions(policies.audit));
  const audit = policies.audit === false ? undefined : (givenAudit(given.audit, config.name) ?? owned);
  const windowMs = longestWindowMs(policies, capabilities);
  const history = windowMs > 0 && audit !== undefined ? await admittedCalls(audit, windowMs) : undefined;
  return {
    bridgeOptions: {
      space: config.name,
      policy: config.policy ?? rulesPolicy,
      ...(config.onApproval ? { onApproval: config.onApproval } : {}),
      ...(config.awaitApprovals ? { awaitApprovals: true } : {}),
      ...(policies.approvalTimeoutMs ? { approvalTimeoutMs: policies.approvalTimeoutMs } : {}),
      ...(policies.approvers ? { approvers: approvalRequirement(policies.approvers) } : {}),
      ...(policies.rateLimits ? { rateLimits: policies.rateLimits } : {}),
      ...(policies.rateLimitMaxWaitMs ? { rateLimitMaxWaitMs: policies.rateLimitMaxWaitMs } : {}),
      ...(history ? { rateLimitHistory: history } : {}),
      redactor,
      ...(audit ? { audit } : {}),
      ...(given.approvals ? { approvalStore: given.approvals } : {}),
      ...(given.rateLimits ? { rateLimitStore: given.rateLimits } : {}),
    },
    auditFile: owned?.file,
    addSecret: (name, value) => redactor.add(name, value),
    close: () => owned?.close(),
  };
}

/** The audit store given for the space `space`: the store itself, or what the factory given makes for it. */
function givenAudit(audit: GateStores['audit'], space: string): AuditStore | undefined {
  return typeof audit === 'function' ? audit(space) : audit;
}

/** The {@link FileAuditStore} options of `policies.audit` (rotation: its `maxBytes` / `keep` over the defaults). */
function auditOptions(audit: PoliciesConfig['audit']): FileAuditStoreOptions {
  if (typeof audit !== 'object') return { fsync: audit === 'fsync', rotation: DEFAULT_AUDIT_ROTATION };
  return { fsync: audit.fsync === true, rotation: { maxBytes: audit.maxBytes ?? DEFAULT_AUDIT_ROTATION.maxBytes, keep: audit.keep ?? DEFAULT_AUDIT_ROTATION.keep } };
}

/** The longest period of the rate limits that apply (0 when none does): how far back the audit log matters at start. */
function longestWindowMs(policies: PoliciesConfig, capabilities: readonly HostCapability[]): number {
  const limits = [...Object.values(policies.rateLimits ?? {}), ...capabilities.flatMap((c) => (c.config.rateLimit ? [c.config.rateLimit] : []))];
  return Math.max(0, ...limits.map((limit) => ratePeriodMs(limit.period)));
}

/**
 * Calls within the last `windowMs` that passed the gate, read from the audit store (the file store reads the end of
 * its log only): earlier processes of this space count against its limits.
 */
async function admittedCalls(audit: AuditStore, windowMs: number): Promise<AdmittedCall[]> {
  const { records } = await audit.calls(new Date(Date.now() - windowMs));
  return records
    .filter((r) => (r.decision?.kind === 'allow' || r.decision?.approved === true) && (r.outcome.ok || r.outcome.code !== 'RATE_LIMITED'))
    .map((r) => ({ capability: r.capability, function: r.function, at: Date.parse(r.time) - r.durationMs, ...(r.principal ? { principal: r.principal.id } : {}) }));
}
