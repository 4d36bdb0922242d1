import { jsonText, type RunEvent, type WireError } from '@agent-spaces/capabilities';
import type { RunLog, RunResult, TypecheckDiagnostic } from '@agent-spaces/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/**
 * A successful tool result: `text` as is, anything else as compact JSON; a JSON object is also its
 * `structuredContent` (the same JSON, for clients that read structured output).
 */
export function toolResult(value: unknown): CallToolResult {
  if (typeof value === 'string') return { content: [{ type: 'text', text: value }] };
  const text = encodeJson(value);
  const json: unknown = value !== null && typeof value === 'object' && !Array.isArray(value) ? JSON.parse(text) : undefined;
  const structured = json !== null && typeof json === 'object' && !Array.isArray(json) ? { structuredContent: json as Record<string, unknown> } : {};
  return { content: [{ type: 'text', text }], ...structured };
}

/** The code of each error result made here, for the log (the result itself carries it only inside its JSON text). */
const errorCodes = new WeakMap<CallToolResult, string>();

/**
 * A failed tool result: `isError: true` and the JSON `{ error: true, code, message, data?, ...extra }` (seed 001's
 * error shape, with ours) — never a thrown error.
 */
export function toolError(error: WireError, extra: Record<string, unknown> = {}): CallToolResult {
  const { code, message, data, capability, function: fn } = error;
  const body = { error: true, code, message, ...(capability ? { capability } : {}), ...(fn ? { function: fn } : {}), ...(data ? { data } : {}), ...extra };
  const result: CallToolResult = { isError: true, content: [{ type: 'text', text: encodeJson(body) }] };
  errorCodes.set(result, code);
  return result;
}

/** The error code of a result made by {@link toolError} (a failed run's too), else undefined. */
export function errorCodeOf(result: CallToolResult): string | undefined {
  return errorCodes.get(result);
}

/** One capability call of a run, as `execute` and `send_code` report it (seed 004's event array). */
export interface CallSummary {
  type: 'capability_call';
  capability: string;
  function: string;
  /** The call's params, or {@link CutParams} when their JSON is longer than {@link EVENT_PARAMS_BUDGET}. */
  params: unknown;
  ok: boolean | null;
  duration_ms?: number;
  error?: { code: string; message: string };
}

/**
 * The tool result of a run: `{ result, logs, events, metadata: { duration_ms, capability_calls } }` on success; on
 * failure an error result whose JSON adds the same `logs`, `events` and `metadata` to `{ code, message, data }`
 * (a `TYPE_ERROR`'s `data.diagnostics` lists the type errors). `extra` fields (`sessionId`) lead both shapes.
 */
export function runResult(run: RunResult, extra: Record<string, unknown> = {}): CallToolResult {
  const report = {
    logs: run.logs.map(formatLog),
    events: summarizeEvents(run.events),
    metadata: { duration_ms: Math.round(run.stats.durationMs * 10) / 10, capability_calls: run.stats.capabilityCalls },
  };
  if (run.ok) return toolResult({ ...extra, result: run.result ?? null, ...report });
  return toolError(leanTypeError(run.error), { ...extra, ...report });
}

/**
 * A `TYPE_ERROR` as the model reads it, each thing once: the formatted `message` (each diagnostic's message, line and
 * hint, within the budget of docs/sdk-and-cli.md, "Typechecking"), and in `data.diagnostics` where each is (`code`,
 * `line`, `column`, the hint's `name` and `module`) without the texts the message already shows or the `detail` the
 * budget cut, which the SDK's run result and `check --json` keep. Any other error as it is.
 */
function leanTypeError(error: WireError): WireError {
  const diagnostics = (error.data as { diagnostics?: unknown } | undefined)?.diagnostics;
  if (error.code !== 'TYPE_ERROR' || !Array.isArray(diagnostics)) return error;
  const named = (hint: NonNullable<TypecheckDiagnostic['function']>) => ({ name: hint.name, module: hint.module });
  const lean = (diagnostics as TypecheckDiagnostic[]).map(({ code, category, line, column, function: fn, closest }) => ({
    code,
    category,
    line,
    column,
    ...(fn ? { function: named(fn) } : {}),
    ...(closest ? { closest: closest.map(named) } : {}),
  }));
  return { ...error, data: { ...error.data, diagnostics: lean } };
}

/** `message`, or `[level] message` for levels other than `log`. */
export function formatLog(log: Pick<RunLog, 'level' | 'message'>): string {
  return log.level === 'log' ? log.message : `[${log.level}] ${log.message}`;
}

/**
 * Most characters of one event's params, as JSON, in what the model reads of a run: a document a script copies between
 * tools is not read back in its events. The audit log and the SDK's run result keep the params whole.
 */
const EVENT_PARAMS_BUDGET = 200;

/** What stands in for params whose JSON is longer than {@link EVENT_PARAMS_BUDGET}: its start and how much was left out. */
interface CutParams {
  truncated: true;
  /** The first characters of the params' JSON. */
  start: string;
  /** Characters of the JSON left out. */
  omittedChars: number;
}

/** `params` as they are when their JSON fits {@link EVENT_PARAMS_BUDGET}, else {@link CutParams} whose JSON fits it. */
function fitEventParams(params: unknown): unknown {
  const json = jsonText(params ?? null);
  if (json.length <= EVENT_PARAMS_BUDGET) return params;
  // The marker's own JSON (keys, escaped quotes of the start) takes part of the budget.
  let length = EVENT_PARAMS_BUDGET - 60;
  let cut: CutParams;
  do {
    cut = { truncated: true, start: json.slice(0, length), omittedChars: json.length - length };
    length -= 10;
  } while (JSON.stringify(cut).length > EVENT_PARAMS_BUDGET && length > 0);
  return cut;
}

/**
 * Merges each `capabilityCall` with its `capabilityResult`, its params within {@link EVENT_PARAMS_BUDGET}; logs and
 * run start/end are reported elsewhere.
 */
export function summarizeEvents(events: readonly RunEvent[]): CallSummary[] {
  const calls = new Map<string, CallSummary>();
  for (const event of events) {
    if (event.type === 'capabilityCall') {
      calls.set(event.callId, { type: 'capability_call', capability: event.capability, function: event.function, params: fitEventParams(event.params), ok: null });
    } else if (event.type === 'capabilityResult') {
      const call = calls.get(event.callId);
      if (!call) continue;
      call.ok = event.ok;
      call.duration_ms = Math.round(event.durationMs * 10) / 10;
      if (event.error) call.error = { code: event.error.code, message: event.error.message };
    }
  }
  return [...calls.values()];
}

/** Compact JSON that keeps what `JSON.stringify` would lose or fail on (Map, Set, bigint, cycles: see `jsonText`). */
function encodeJson(value: unknown): string {
  return jsonText(value);
}
