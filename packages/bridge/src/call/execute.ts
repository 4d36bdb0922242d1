import type { CallMessage, HandlerContext, Redactor } from '@agent-spaces/capabilities';
import { callSink, hostStderr, withOutput, type OutputSink } from '../host-output.js';
import type { CallOrigin, PendingCall } from '../types.js';
import { notify, progressOf } from './events.js';
import type { CallState } from './state.js';

/**
 * The execute step, and the calls executing now: each runs its function with a context (`progress` events) and its
 * console output captured as `log` events of the call; output of a capability made outside any call goes to the one
 * call of it in flight, else to the host's stderr (see `Bridge.output`).
 */
export class RunningCalls {
  /** The output sinks of the calls executing now, by capability id. */
  readonly #sinks = new Map<string, Set<OutputSink>>();
  readonly #redactor: Redactor;

  constructor(redactor: Redactor) {
    this.#redactor = redactor;
  }

  /**
   * Runs the function of `call` (which passed every step before) and resolves with its value (or rejects with what it
   * threw); `message`, `origin` and `state` are the call's.
   */
  async execute(call: PendingCall, message: CallMessage, origin: CallOrigin, state: CallState): Promise<unknown> {
    const { id: callId, capability, function: fn, params, signal } = call;
    const context: HandlerContext = {
      capability: capability.exportName,
      function: fn.sourceName,
      signal,
      progress: progressOf(message, callId, origin, state),
      ...(origin.principal ? { principal: origin.principal } : {}),
    };
    state.executing = true;
    const sink = callSink(`host handler ${capability.id}.${fn.name}`, this.#redactor.text, (level, text) => {
      if (state.ended || !origin.onEvent) return false;
      notify(origin.onEvent, { type: 'log', level, message: text });
      return true;
    });
    const sinks = this.#sinks.get(capability.id) ?? this.#sinks.set(capability.id, new Set()).get(capability.id)!;
    sinks.add(sink);
    try {
      return await withOutput(sink, () => fn.execute(params, context));
    } finally {
      sinks.delete(sink);
    }
  }

  /** Output of `capability`'s host side made outside any call (`Bridge.output`). */
  output(capability: string, source: string, text: string): void {
    const sinks = this.#sinks.get(capability);
    if (sinks?.size === 1) for (const sink of sinks) sink.write('info', text, source);
    else hostStderr(this.#redactor.text(`[${source}] ${text}`));
  }
}
