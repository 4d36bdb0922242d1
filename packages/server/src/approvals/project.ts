import { FileAuditArchive, type ApprovalService, type AuditArchive } from '@agent-spaces/bridge';
import { PostgresAuditArchive, SharedDatabase } from '@agent-spaces/bridge/shared';
import { durableState } from '../durable/state.js';

/** What `agent-spaces approvals` and `agent-spaces audit` read of a project's durable state; close it when done. */
export interface ProjectState {
  /** The approval requests, read and answered where `mcp serve` keeps them. */
  readonly approvals: ApprovalService;
  /** The audit records of every space. */
  readonly audit: AuditArchive;
  close(): Promise<void>;
}

/**
 * The durable state of the project at `rootDir` (build output `outDir`, default `.agent-spaces`) where `mcp serve`
 * keeps it: in the shared database `databaseUrl` when given (replicas; docs/deployment.md), else in files under
 * `<outDir>/`. An answer written here reaches the run waiting for it in the server's process (or replica). Rejects
 * `STORE_UNAVAILABLE` when the database cannot be reached.
 */
export async function projectState(rootDir: string, outDir: string | undefined, databaseUrl?: string): Promise<ProjectState> {
  const database = databaseUrl ? await SharedDatabase.open(databaseUrl, { applicationName: 'agent-spaces cli' }) : undefined;
  const durable = durableState(rootDir, outDir, database);
  return {
    approvals: durable.approvals,
    audit: database ? new PostgresAuditArchive(database) : new FileAuditArchive(durable.outDir),
    close: async () => database?.close(),
  };
}
