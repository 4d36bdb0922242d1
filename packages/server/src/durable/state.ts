import { resolveOutDir } from '@agent-spaces/capabilities';
import { ApprovalService, FileApprovalStore } from '@agent-spaces/bridge';

/** What a server keeps across restarts, under `<outDir>/state/`: approval requests and their answers. */
export interface DurableState {
  /** The build output folder the state lives in. */
  readonly outDir: string;
  /** Where every space of the server puts its approval requests. */
  readonly approvalStore: FileApprovalStore;
  /** Lists, shows and answers them (the `/approvals` API, the console, `agent-spaces approvals`). */
  readonly approvals: ApprovalService;
}

/** The durable state of the project at `rootDir` (its output folder `outDir`, default `.agent-spaces`). */
export function durableState(rootDir: string, outDir: string | undefined): DurableState {
  const dir = resolveOutDir(rootDir, outDir);
  const approvalStore = new FileApprovalStore(dir);
  return { outDir: dir, approvalStore, approvals: new ApprovalService({ approvals: approvalStore }) };
}
