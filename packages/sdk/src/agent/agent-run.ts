import { randomUUID } from 'node:crypto';
import type { RunEvent, WireError } from '@agent-spaces/capabilities';
import type { AgentMessage, AgentModel, ModelSettings, ToolCall } from './model.js';
import type { ToolPermission } from './permission.js';

/** Options of `space.ask()`. */
export interface AskOptions {
  /** The model: settings of a provider (as the config's `model`), or any {@link AgentModel}. Required. */
  model?: ModelSettings | AgentModel;
  /** Most model turns (default 10); past it the run ends with `MAX_TURNS`. */
  maxTurns?: number;
  /** What the agent's code may call (default `tool`, docs/agents.md "Headless permission"). */
  toolPermission?: ToolPermission;
  signal?: AbortSignal;
  /** Hears every event as it happens. */
  onEvent?: (event: AgentEvent) => void;
}

/** An event of an agent run: each assistant message, each code run, and the events of the code runs (capability calls, logs, …). */
export type AgentEvent =
  | RunEvent
  | { type: 'agentMessage'; runId: string; text: string; toolCalls: ToolCall[] }
  | { type: 'codeRun'; runId: string; code: string; ok: boolean; result?: unknown; error?: WireError };

/** What `space.ask()` ends with. It never rejects. */
export type AskResult = { turns: number; usage: { tokens: number }; messages: AgentMessage[] } & ({ ok: true; text: string } | { ok: false; error: WireError });

/** An agent run in progress: `await` it for the {@link AskResult}; `for await (const event of run)` streams its events. */
export class AgentRun implements PromiseLike<AskResult>, AsyncIterable<AgentEvent> {
  /** Unique id of this agent run, carried by its `agentMessage` and `codeRun` events. */
  readonly id: string = randomUUID();
  readonly #events: AgentEvent[] = [];
  readonly #wakers = new Set<() => void>();
  readonly #result: Promise<AskResult>;
  #finished = false;

  /** @internal Created by `space.ask()`. */
  constructor(onEvent: ((event: AgentEvent) => void) | undefined, execute: (emit: (event: AgentEvent) => void, id: string) => Promise<AskResult>) {
    const emit = (event: AgentEvent) => {
      this.#events.push(event);
      onEvent?.(event);
      this.#wake();
    };
    this.#result = execute(emit, this.id).finally(() => {
      this.#finished = true;
      this.#wake();
    });
  }

  then<A = AskResult, B = never>(onFulfilled?: ((value: AskResult) => A | PromiseLike<A>) | null, onRejected?: ((reason: unknown) => B | PromiseLike<B>) | null): Promise<A | B> {
    return this.#result.then(onFulfilled, onRejected);
  }

  async *[Symbol.asyncIterator](): AsyncIterator<AgentEvent> {
    let next = 0;
    for (;;) {
      while (next < this.#events.length) yield this.#events[next++]!;
      if (this.#finished) return;
      await new Promise<void>((resolve) => this.#wakers.add(resolve));
    }
  }

  #wake(): void {
    for (const wake of this.#wakers) wake();
    this.#wakers.clear();
  }
}
