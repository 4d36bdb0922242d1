import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import { agentLoop, toolFailure, type AgentLoopOptions, type AgentMessage, type AgentModel, type AgentTool, type RunOptions } from '@agent-spaces/sdk';
import type { Catalog } from '../catalog.js';
import type { SpaceDefinition } from '../config.js';
import type { ClientSpace } from '../connection.js';
import { compiledPrompt } from '../inject.js';
import { runResult, summarizeEvents, type CallSummary } from '../results.js';
import { SEARCH_DETAILS, formatSearch, searchCatalog, type SearchDetail } from '../search.js';
import { describeCapabilities } from '../tools/code.js';

/** One code run of an agent run (seed 004's events): the code, its outcome and its capability calls. */
interface CodeRunEvent {
  type: 'code_run';
  code: string;
  ok: boolean;
  result?: unknown;
  error?: { code: string; message: string };
  capability_calls: CallSummary[];
}

/** Seed 004's event kinds: a tool the model called, its answer, and the model's text (the final answer last). */
type SeedEvent =
  | { type: 'tool_call'; tool: string; args: unknown }
  | { type: 'tool_response'; tool: string; result: string; isError: boolean }
  | { type: 'agent_message'; content: string };

/** One event of an agent run, in order: seed 004's kinds, and each code run with its capability calls. */
type AgentRunEvent = CodeRunEvent | SeedEvent;

/** Figures of an agent run (seed 004's metadata). */
interface AgentRunMetadata {
  duration_ms: number;
  turns: number;
  /** Tools the model called (`execute`, `search_capabilities`, `describe_capabilities`). */
  tool_calls: number;
  code_runs: number;
  capability_calls: number;
  /** As the model reported them; when it reported none (MCP sampling), counted with a tokenizer and `tokens_estimated`. */
  tokens_used: number;
  tokens_estimated?: true;
}

/** How an agent run ended: the answer, or the error (`MAX_TURNS`, `MODEL_ERROR`, `ABORTED`), with what happened so far. */
export type AgentRunReport = { events: AgentRunEvent[]; metadata: AgentRunMetadata; messages: AgentMessage[] } & (
  | { ok: true; response: string }
  | { ok: false; error: WireError }
);

/** What one agent run needs: the space to run code in, its catalog, the model and the conversation so far. */
export interface AgentRunOptions {
  definition: SpaceDefinition;
  /** Where the agent's code runs: the space, or a session of it. */
  space: Pick<ClientSpace, 'run'>;
  catalog: Catalog;
  model: AgentModel;
  /** Earlier messages of the conversation (a session), then the new user message. */
  messages: readonly AgentMessage[];
  maxTurns: number;
  /** Options of each code run (signal, events, how approvals are answered). */
  runOptions: RunOptions;
  /** Hears each assistant message as it arrives. */
  onMessage?: AgentLoopOptions['onMessage'];
}

/**
 * Runs a headless agent in a space: the space's compiled prompt is the system prompt, and the model is offered
 * `execute`, `search_capabilities` and `describe_capabilities` bound to the space (the SDK's agent loop). Reports
 * seed 004's events and metadata. Never rejects.
 */
export async function runAgent(options: AgentRunOptions): Promise<AgentRunReport> {
  const started = performance.now();
  const { definition, space, catalog, model, maxTurns, runOptions } = options;
  const log: CodeRunLog = { events: [], capabilityCalls: 0, toolCalls: 0 };
  const tools = [executeTool(space, runOptions, log), searchTool(catalog), describeTool(catalog)].map((tool) => logged(tool, log));
  const system = compiledPrompt(definition, catalog);
  const loop = await agentLoop({
    system,
    messages: options.messages,
    model,
    tools,
    maxTurns,
    ...(runOptions.signal ? { signal: runOptions.signal } : {}),
    ...(options.onMessage ? { onMessage: options.onMessage } : {}),
  });
  if (loop.ok) log.events.push({ type: 'agent_message', content: loop.text });
  const tokens = loop.tokens > 0 || loop.turns === 0 ? { tokens_used: loop.tokens } : { tokens_used: await estimateTokens(system, loop.messages, options.messages.length), tokens_estimated: true as const };
  const metadata: AgentRunMetadata = {
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
    turns: loop.turns,
    tool_calls: log.toolCalls,
    code_runs: log.events.filter((e) => e.type === 'code_run').length,
    capability_calls: log.capabilityCalls,
    ...tokens,
  };
  const common = { events: log.events, metadata, messages: loop.messages };
  return loop.ok ? { ok: true, response: loop.text, ...common } : { ok: false, error: loop.error, ...common };
}

/** The events of one agent run, as its tools record them. */
interface CodeRunLog {
  events: AgentRunEvent[];
  capabilityCalls: number;
  toolCalls: number;
}

/** `tool`, recording each call as seed 004's `tool_call` and `tool_response` events around what the tool records. */
function logged(tool: AgentTool, log: CodeRunLog): AgentTool {
  return {
    ...tool,
    async call(input) {
      log.toolCalls++;
      log.events.push({ type: 'tool_call', tool: tool.name, args: input });
      const answer = await tool.call(input);
      log.events.push({ type: 'tool_response', tool: tool.name, result: answer.output, isError: answer.isError });
      return answer;
    },
  };
}

/**
 * The tokens of the model turns of a run whose model reported none, counted with a GPT tokenizer (`o200k_base`): each
 * turn's input (the system prompt and the conversation before it) and its output. The conversation's first `earlier`
 * messages came before this run.
 */
async function estimateTokens(system: string, messages: readonly AgentMessage[], earlier: number): Promise<number> {
  const { countTokens } = await import('gpt-tokenizer');
  let context = countTokens(system);
  let total = 0;
  messages.forEach((message, i) => {
    const text = message.role === 'tool' ? message.results.map((r) => r.output).join('\n') : `${message.text}${message.role === 'assistant' ? JSON.stringify(message.toolCalls) : ''}`;
    const size = countTokens(text);
    if (message.role === 'assistant' && i >= earlier) total += context + size;
    context += size;
  });
  return total;
}

/** `execute`: runs the model's code in `space`, recording each run in `log`. */
function executeTool(space: AgentRunOptions['space'], runOptions: RunOptions, log: CodeRunLog): AgentTool {
  return {
    name: 'execute',
    description:
      'Run a TypeScript ES module in the space (import capabilities from "@capabilities/<id>"); `export default` (or a top-level `return`) ' +
      'is the result. Returns { result, logs, events, metadata } or an error with its code.',
    inputSchema: { type: 'object', properties: { code: { type: 'string', description: 'TypeScript module source' } }, required: ['code'] },
    async call(input) {
      if (typeof input.code !== 'string') return toolFailure(argumentError('execute', 'code', 'must be a string'));
      try {
        const run = await space.run(input.code, runOptions);
        log.capabilityCalls += run.stats.capabilityCalls;
        log.events.push({
          type: 'code_run',
          code: input.code,
          ok: run.ok,
          ...(run.ok ? { result: run.result ?? null } : { error: { code: run.error.code, message: run.error.message } }),
          capability_calls: summarizeEvents(run.events),
        });
        const result = runResult(run);
        const first = result.content[0];
        return { output: first?.type === 'text' ? first.text : '', isError: result.isError === true };
      } catch (error) {
        return toolFailure(error);
      }
    },
  };
}

/** `search_capabilities`: the functions of `catalog` that match the model's words. */
function searchTool(catalog: Catalog): AgentTool {
  return {
    name: 'search_capabilities',
    description: 'Find capability functions by what they do; returns matching signatures grouped by module.',
    inputSchema: {
      type: 'object',
      properties: {
        query: { type: 'string', description: 'Words describing the function' },
        detail: { type: 'string', enum: [...SEARCH_DETAILS] },
        limit: { type: 'integer', minimum: 1, maximum: 50 },
      },
      required: ['query'],
    },
    async call(input) {
      if (typeof input.query !== 'string') return toolFailure(argumentError('search_capabilities', 'query', 'must be a string'));
      const detail = SEARCH_DETAILS.includes(input.detail as SearchDetail) ? (input.detail as SearchDetail) : 'signatures';
      const limit = typeof input.limit === 'number' && input.limit >= 1 ? Math.min(Math.floor(input.limit), 50) : 5;
      return { output: formatSearch(input.query, searchCatalog(catalog, input.query), detail, limit, catalog), isError: false };
    },
  };
}

/** `describe_capabilities`: the declarations of one module of `catalog`, or of all. */
function describeTool(catalog: Catalog): AgentTool {
  return {
    name: 'describe_capabilities',
    description: 'The full TypeScript declarations of one capability module (by id or export name), or of all without `capability`.',
    inputSchema: { type: 'object', properties: { capability: { type: 'string' } } },
    async call(input) {
      try {
        return { output: describeCapabilities(catalog, typeof input.capability === 'string' ? input.capability : undefined), isError: false };
      } catch (error) {
        return toolFailure(error);
      }
    },
  };
}

function argumentError(tool: string, field: string, problem: string): AgentSpacesError {
  return new AgentSpacesError('INVALID_ARGUMENTS', `${tool}: ${field} ${problem}`, { errors: [{ field, problem }] });
}
