import { resolveOutDir } from '@agent-spaces/capabilities';
import {
  ApprovalService,
  FileApprovalStore,
  FileRunStore,
  FileSessionStore,
  type ApprovalStore,
  type AuditStore,
  type RunStore,
  type SessionStore,
} from '@agent-spaces/bridge';
import type { SharedDatabase } from '@agent-spaces/bridge/shared';

/**
 * What a server keeps across restarts: approval requests and their answers, runs that paused (and sessions' runs)
 * with their ledgers, and session records — under `<outDir>/state/` (tasks are kept by `ServerTasks`, beside them), or
 * in PostgreSQL when the server has a shared database (replicas then share them; docs/deployment.md).
 */
export interface DurableState {
  /** The build output folder (the state's folder when it is kept in files). */
  readonly outDir: string;
  /** Where every space of the server puts its approval requests. */
  readonly approvalStore: ApprovalStore;
  /** Lists, shows and answers them (the `/approvals` API, the console, `agent-spaces approvals`). */
  readonly approvals: ApprovalService;
  /** Where every space of the server puts its runs: paused ones and sessions' are kept. */
  readonly runs: RunStore;
  /** The records of the server's sessions. */
  readonly sessions: SessionStore;
  /** The stores every space of the server is created with: approvals, runs and, with a database, the audit log. */
  readonly spaceStores: { approvals: ApprovalStore; runs: RunStore; audit?: (space: string) => AuditStore };
}

/**
 * The durable state of the project at `rootDir` (its output folder `outDir`, default `.agent-spaces`): in `database`
 * when given, else in files.
 */
export function durableState(rootDir: string, outDir: string | undefined, database?: SharedDatabase): DurableState {
  const dir = resolveOutDir(rootDir, outDir);
  const approvalStore = database ? database.approvals : new FileApprovalStore(dir);
  const runs = database ? database.runs : new FileRunStore(dir);
  const sessions = database ? database.sessions : new FileSessionStore(dir);
  const audit = database ? { audit: (space: string) => database.audit(space) } : {};
  return {
    outDir: dir,
    approvalStore,
    runs,
    approvals: new ApprovalService({ approvals: approvalStore, runs }),
    sessions,
    spaceStores: { approvals: approvalStore, runs, ...audit },
  };
}
