/**
 * Runs requests together: every request submitted in the same turn of the event loop, or while the previous batch
 * ran, goes into one call of `run`. A batch runs at the end of the turn (`setImmediate`), after the I/O callbacks
 * that were ready, so a request alone waits for nothing else; a synchronous batch blocks the loop, so everything
 * that arrives meanwhile is read in the next turn and makes the next batch.
 */
export class Batcher<Request, Result> {
  readonly #run: (requests: Request[]) => Result[];
  #queue: Pending<Request, Result>[] = [];
  #scheduled = false;

  /** `run` answers its requests in their order, or throws for all of them. */
  constructor(run: (requests: Request[]) => Result[]) {
    this.#run = run;
  }

  /** The result of `request`, answered with the batch it joins. */
  submit(request: Request): Promise<Result> {
    return new Promise((resolve, reject) => {
      this.#queue.push({ request, resolve, reject });
      if (this.#scheduled) return;
      this.#scheduled = true;
      setImmediate(() => this.#flush());
    });
  }

  #flush(): void {
    this.#scheduled = false;
    const batch = this.#queue;
    this.#queue = [];
    try {
      const results = this.#run(batch.map((pending) => pending.request));
      batch.forEach((pending, i) => pending.resolve(results[i]!));
      return;
    } catch (error) {
      if (batch.length === 1) {
        batch[0]!.reject(error);
        return;
      }
    }
    // One request that makes `run` throw must not fail the others: each runs alone.
    for (const pending of batch) {
      try {
        pending.resolve(this.#run([pending.request])[0]!);
      } catch (error) {
        pending.reject(error);
      }
    }
  }
}

interface Pending<Request, Result> {
  request: Request;
  resolve(result: Result): void;
  reject(error: unknown): void;
}
