import { SpanStatusCode, context, trace, type Context, type Span } from '@opentelemetry/api';
import type { RunResult } from './run.js';

// A no-op until the host app registers an OpenTelemetry SDK (the API's proxy tracer picks it up then).
const tracer = trace.getTracer('@agent-spaces/sdk');

/** A run's span and the context its calls' spans are made in. */
export interface RunTrace {
  span: Span;
  context: Context;
}

/**
 * Starts the span of one run, a child of the caller's active span. It carries the run's id, space and session —
 * never the code, logs or result.
 */
export function startRunSpan(attributes: { runId: string; space: string; sessionId?: string }): RunTrace {
  const span = tracer.startSpan('agent_spaces.run', {
    attributes: {
      'agent_spaces.run.id': attributes.runId,
      'agent_spaces.space': attributes.space,
      ...(attributes.sessionId ? { 'agent_spaces.session.id': attributes.sessionId } : {}),
    },
  });
  return { span, context: trace.setSpan(context.active(), span) };
}

/** Ends a run's span with its outcome (`ok`, or the error code), duration in ms and number of capability calls. */
export function endRunSpan(span: Span, result: RunResult): void {
  span.setAttributes({
    'agent_spaces.outcome': result.ok ? 'ok' : result.error.code,
    'agent_spaces.duration_ms': Math.round(result.stats.durationMs * 1000) / 1000,
    'agent_spaces.capability_calls': result.stats.capabilityCalls,
  });
  span.setStatus(result.ok ? { code: SpanStatusCode.OK } : { code: SpanStatusCode.ERROR, message: result.error.code });
  span.end();
}
