import { AgentSpacesError, type WireError } from '@agent-spaces/capabilities';
import { agentLoop, toolFailure, type AgentMessage, type AgentModel, type AgentTool, type RunOptions } from '@agent-spaces/sdk';
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

/** Figures of an agent run (seed 004's metadata). */
interface AgentRunMetadata {
  duration_ms: number;
  turns: number;
  code_runs: number;
  capability_calls: number;
  tokens_used: number;
}

/** How an agent run ended: the answer, or the error (`MAX_TURNS`, `MODEL_ERROR`, `ABORTED`), with what happened so far. */
export type AgentRunReport = { events: CodeRunEvent[]; metadata: AgentRunMetadata; messages: AgentMessage[] } & (
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
}

/**
 * Runs a headless agent in a space: the space's compiled prompt is the system prompt, and the model is offered
 * `execute`, `search_capabilities` and `describe_capabilities` bound to the space (the SDK's agent loop). Reports
 * seed 004's events and metadata. Never rejects.
 */
export async function runAgent(options: AgentRunOptions): Promise<AgentRunReport> {
  const started = performance.now();
  const { definition, space, catalog, model, maxTurns, runOptions } = options;
  const log: CodeRunLog = { events: [], capabilityCalls: 0 };
  const tools = [executeTool(space, runOptions, log), searchTool(catalog), describeTool(catalog)];
  const loop = await agentLoop({
    system: compiledPrompt(definition, catalog),
    messages: options.messages,
    model,
    tools,
    maxTurns,
    ...(runOptions.signal ? { signal: runOptions.signal } : {}),
  });
  const metadata: AgentRunMetadata = {
    duration_ms: Math.round((performance.now() - started) * 10) / 10,
    turns: loop.turns,
    code_runs: log.events.length,
    capability_calls: log.capabilityCalls,
    tokens_used: loop.tokens,
  };
  const common = { events: log.events, metadata, messages: loop.messages };
  return loop.ok ? { ok: true, response: loop.text, ...common } : { ok: false, error: loop.error, ...common };
}

/** The code runs of one agent run, as its `execute` tool records them. */
interface CodeRunLog {
  events: CodeRunEvent[];
  capabilityCalls: number;
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
