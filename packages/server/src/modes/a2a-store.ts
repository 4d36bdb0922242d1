import { TaskState, type Task } from '@a2a-js/sdk';
import { InMemoryTaskStore, type ServerCallContext } from '@a2a-js/sdk/server';

/** Default most tasks kept per principal: past it, its oldest ended tasks are dropped. */
const DEFAULT_KEPT_TASKS = 100;

/** States a task never leaves. */
const ENDED = new Set<TaskState>([TaskState.TASK_STATE_COMPLETED, TaskState.TASK_STATE_FAILED, TaskState.TASK_STATE_CANCELED, TaskState.TASK_STATE_REJECTED]);

/** What the SDK's store keeps per owner (its `_scopedStore`): the tasks of the caller's principal, oldest first. */
interface Buckets {
  getBucket(context: ServerCallContext): Map<string, Task> | undefined;
}

/**
 * The SDK's in-memory task store, scoped per principal (the call context's user), bounded: each principal keeps at
 * most `maxTasks` tasks, its oldest ended ones dropped first (running ones are bounded by
 * `server.a2a.maxTasksPerPrincipal`), so a client cannot grow the server's memory by sending messages.
 */
export class BoundedTaskStore extends InMemoryTaskStore {
  readonly #maxTasks: number;

  constructor(maxTasks = DEFAULT_KEPT_TASKS) {
    super();
    this.#maxTasks = maxTasks;
  }

  override async save(task: Task, context: ServerCallContext): Promise<void> {
    await super.save(task, context);
    const bucket = (this as unknown as { _scopedStore: Buckets })._scopedStore.getBucket(context);
    if (!bucket) throw new Error('the A2A SDK task store changed: its per-owner buckets are gone');
    for (const [id, kept] of bucket) {
      if (bucket.size <= this.#maxTasks) break;
      if (kept.status && ENDED.has(kept.status.state)) bucket.delete(id);
    }
  }
}
