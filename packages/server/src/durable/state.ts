import { resolveOutDir } from '@agent-spaces/capabilities';
import { ApprovalService, FileApprovalStore, FileRunStore, FileSessionStore } from '@agent-spaces/bridge';

/**
 * What a server keeps across restarts, under `<outDir>/state/`: approval requests and their answers, runs that paused
 * (and sessions' runs) with their ledgers, and session records (tasks are kept by `ServerTasks`, beside them).
 */
export interface DurableState {
  /** The build output folder the state lives in. */
  readonly outDir: string;
  /** Where every space of the server puts its approval requests. */
  readonly approvalStore: FileApprovalStore;
  /** Lists, shows and answers them (the `/approvals` API, the console, `agent-spaces approvals`). */
  readonly approvals: ApprovalService;
  /** Where every space of the server puts its runs: paused ones and sessions' are kept in files. */
  readonly runs: FileRunStore;
  /** The records of the server's sessions. */
  readonly sessions: FileSessionStore;
}

/** The durable state of the project at `rootDir` (its output folder `outDir`, default `.agent-spaces`). */
export function durableState(rootDir: string, outDir: string | undefined): DurableState {
  const dir = resolveOutDir(rootDir, outDir);
  const approvalStore = new FileApprovalStore(dir);
  const runs = new FileRunStore(dir);
  return { outDir: dir, approvalStore, runs, approvals: new ApprovalService({ approvals: approvalStore, runs }), sessions: new FileSessionStore(dir) };
}
