import { createRedactor, ratePeriodMs, type McpServers, type PoliciesConfig, type Redactor } from '@agent-spaces/capabilities';
import {
  DEFAULT_AUDIT_ROTATION,
  FileAuditStore,
  checkPolicyNames,
  createPolicy,
  placeholderNames,
  secretsFromEnv,
  type Approver,
  type AuditStore,
  type FileAuditStoreOptions,
  type BridgeOptions,
  type HostCapability,
  type PolicyHook,
} from '@agent-spaces/bridge';

/** What {@link createGate} reads from the space's options. */
export interface GateOptions {
  name: string;
  outDir: string;
  policies?: PoliciesConfig;
  policy?: PolicyHook;
  onApproval?: Approver;
  awaitApprovals?: boolean;
  mcpServers?: McpServers;
  /** Where `${VAR}` values are read from for redaction (default `process.env`; MCP adds the project's `.env`). */
  env?: Readonly<Record<string, string | undefined>>;
}

/** The host gate of a space: the bridge options for policy, approvals, rate limits, redaction and the audit log. */
export interface Gate {
  bridgeOptions: Omit<BridgeOptions, 'capabilities'>;
  redactor: Redactor;
  /** The audit log file, unless `policies.audit` is false. */
  auditFile: string | undefined;
  close(): void;
}

/**
 * Turns a space's `policies` (and `policy` / `onApproval`) into bridge options, after checking them (`CONFIG_INVALID`
 * for a malformed field, or a rule or rate limit naming a capability or function not among `capabilities`, which
 * include std). Secrets are the values of the
 * variables capabilities use as `${VAR}` (executor specs, `mcpServers` when given) plus `policies.secrets`. Rate
 * limits start from the calls the audit log holds for their longest window, so they also hold across processes.
 */
export async function createGate(options: GateOptions, capabilities: readonly HostCapability[]): Promise<Gate> {
  const policies = options.policies ?? {};
  // Checks every field of `policies` (CONFIG_INVALID), also when the space's own `policy` hook is used instead.
  const rulesPolicy = createPolicy(policies);
  checkPolicyNames(policies, capabilities);
  const names = new Set([
    ...(policies.secrets ?? []),
    ...capabilities.flatMap((c) => c.secrets ?? []),
    ...placeholderNames(options.mcpServers ?? {}),
  ]);
  const redactor = createRedactor(secretsFromEnv(names, options.env));
  const audit = policies.audit === false ? undefined : new FileAuditStore(options.outDir, options.name, auditOptions(policies.audit));
  const windowMs = longestWindowMs(policies, capabilities);
  const history = windowMs > 0 && audit !== undefined ? await admittedCalls(audit, windowMs) : undefined;
  return {
    bridgeOptions: {
      policy: options.policy ?? rulesPolicy,
      ...(options.onApproval ? { onApproval: options.onApproval } : {}),
      ...(options.awaitApprovals ? { awaitApprovals: true } : {}),
      ...(policies.approvalTimeoutMs ? { approvalTimeoutMs: policies.approvalTimeoutMs } : {}),
      ...(policies.rateLimits ? { rateLimits: policies.rateLimits } : {}),
      ...(policies.rateLimitMaxWaitMs ? { rateLimitMaxWaitMs: policies.rateLimitMaxWaitMs } : {}),
      ...(history ? { rateLimitHistory: history } : {}),
      ...(redactor.names.length > 0 ? { redactor } : {}),
      ...(audit ? { audit } : {}),
    },
    redactor,
    auditFile: audit?.file,
    close: () => audit?.close(),
  };
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
 * Calls within the last `windowMs` that passed the gate, read from the end of the audit log (so start-up does not
 * read the rest of it): earlier processes of this space count against its limits.
 */
async function admittedCalls(audit: AuditStore, windowMs: number): Promise<{ capability: string; function: string; at: number }[]> {
  const { records } = await audit.calls(new Date(Date.now() - windowMs));
  return records
    .filter((r) => (r.decision?.kind === 'allow' || r.decision?.approved === true) && (r.outcome.ok || r.outcome.code !== 'RATE_LIMITED'))
    .map((r) => ({ capability: r.capability, function: r.function, at: Date.parse(r.time) - r.durationMs }));
}
