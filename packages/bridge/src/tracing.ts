import { SpanKind, SpanStatusCode, trace, type Context, type Span } from '@opentelemetry/api';
import type { CallMessage, CallOutcome } from '@agent-spaces/capabilities';

// A no-op until the host app registers an OpenTelemetry SDK (the API's proxy tracer picks it up then).
const tracer = trace.getTracer('@agent-spaces/bridge');

/** Names come from agent code: kept short, so a forged one cannot bloat every span it lands in. */
const MAX_NAME = 128;

/**
 * Starts the span of one capability call, a child of `parent` (the run's context) when given. It carries the call's
 * id, capability and function — never its params, result or error message (they may hold secrets).
 */
export function startCallSpan(message: CallMessage | undefined, callId: string, parent: Context | undefined): Span {
  const name = (value: unknown) => (typeof value === 'string' ? value.slice(0, MAX_NAME) : '');
  return tracer.startSpan(
    'agent_spaces.call',
    {
      kind: SpanKind.INTERNAL,
      attributes: {
        'agent_spaces.call.id': callId,
        'agent_spaces.capability': name(message?.capability),
        'agent_spaces.function': name(message?.function),
      },
    },
    parent,
  );
}

/** Ends a call's span with its outcome (`ok`, or the error code) and duration in ms. */
export function endCallSpan(span: Span, outcome: CallOutcome, durationMs: number): void {
  span.setAttributes({ 'agent_spaces.outcome': outcome.ok ? 'ok' : outcome.error.code, 'agent_spaces.duration_ms': Math.round(durationMs * 1000) / 1000 });
  span.setStatus(outcome.ok ? { code: SpanStatusCode.OK } : { code: SpanStatusCode.ERROR, message: outcome.error.code });
  span.end();
}
