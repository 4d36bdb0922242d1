import type { WireError } from '@agent-spaces/capabilities';
import type { CheckRequest, CheckResult } from './session.js';

/** A batch of checks of one owner, against one set of declarations, sent to a typecheck worker. */
export interface CheckJob {
  kind: 'check';
  job: number;
  /** Content hash of the declarations; their files travel only when the worker asked for them ({@link NeedDeclarations}). */
  key: string;
  declarations?: [string, string][];
  requests: CheckRequest[];
}

/** The worker does not hold the job's declarations: send the job again with them. */
interface NeedDeclarations {
  kind: 'need';
  job: number;
}

/** The worker holds the declarations, checked, and starts on the scripts: the job's time budget starts now. */
interface JobStarted {
  kind: 'started';
  job: number;
}

/** The job's results in the order of its requests, or the error that failed all of them. */
type JobDone = { kind: 'done'; job: number; results: CheckResult[] } | { kind: 'failed'; job: number; error: WireError };

/** A message from a typecheck worker to the pool. */
export type FromWorker = NeedDeclarations | JobStarted | JobDone;
