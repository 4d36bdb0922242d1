import type { McpServers, PoliciesConfig } from '@agent-spaces/capabilities';
import {
  AuditLog,
  auditLogFile,
  createPolicy,
  createRedactor,
  placeholderNames,
  readAuditLog,
  secretsFromEnv,
  type Approver,
  type BridgeOptions,
  type HostCapability,
  type PolicyHook,
  type Redactor,
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
 * Turns a space's `policies` (and `policy` / `onApproval`) into bridge options. Secrets are the values of the
 * variables capabilities use as `${VAR}` (executor specs, `mcpServers` when given) plus `policies.secrets`. Rate
 * limits start from the calls the audit log holds for the last day, so they also hold across processes.
 */
export function createGate(options: GateOptions, capabilities: readonly HostCapability[]): Gate {
  const policies = options.policies ?? {};
  const names = new Set([
    ...(policies.secrets ?? []),
    ...capabilities.flatMap((c) => c.secrets ?? []),
    ...placeholderNames(options.mcpServers ?? {}),
  ]);
  const redactor = createRedactor(secretsFromEnv(names, options.env));
  const auditFile = policies.audit === false ? undefined : auditLogFile(options.outDir, options.name);
  const audit = auditFile === undefined ? undefined : new AuditLog(auditFile, options.name, { fsync: policies.audit === 'fsync' });
  const limited = policies.rateLimits !== undefined || capabilities.some((c) => c.config.rateLimit !== undefined);
  const history = limited && auditFile !== undefined ? admittedCalls(auditFile) : undefined;
  return {
    bridgeOptions: {
      policy: options.policy ?? createPolicy(policies),
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
    auditFile,
    close: () => audit?.close(),
  };
}

/** Calls of the last day that passed the gate, from the audit log: earlier processes of this space count against its limits. */
function admittedCalls(file: string): { capability: string; function: string; at: number }[] {
  const { records } = readAuditLog(file, { since: new Date(Date.now() - 86_400_000) });
  return records
    .filter((r) => (r.decision?.kind === 'allow' || r.decision?.approved === true) && (r.outcome.ok || r.outcome.code !== 'RATE_LIMITED'))
    .map((r) => ({ capability: r.capability, function: r.function, at: Date.parse(r.time) - r.durationMs }));
}
