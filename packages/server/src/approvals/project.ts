import type { ApprovalService } from '@agent-spaces/bridge';
import { durableState } from '../durable/state.js';

/**
 * The approval requests of the project at `rootDir` (build output `outDir`, default `.agent-spaces`), read and answered
 * where `mcp serve` keeps them (`<outDir>/state/approvals/`), with the stores it reads them with: what `agent-spaces
 * approvals` uses without `--server`. An answer written here reaches the run waiting for it in the server's process.
 */
export function projectApprovals(rootDir: string, outDir?: string): ApprovalService {
  return durableState(rootDir, outDir).approvals;
}
