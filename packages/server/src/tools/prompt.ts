import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { chooseModel } from '../agent/choose.js';
import { headlessRun } from '../agent/permission.js';
import { DEFAULT_MAX_TURNS, type AgentMessage } from '@agent-spaces/sdk';
import { runAgent, type AgentRunReport } from '../agent/run.js';
import type { PromptTool, SpaceDefinition } from '../config.js';
import type { ClientSpace } from '../connection.js';
import { fillPlaceholders } from '../prompts.js';
import { toolError } from '../results.js';
import { outputOf, type ToolContext, type ToolSpec } from './types.js';

/** The `structuredContent` of an agent run's successful result: seed 004's `{ response, events, metadata }` ({@link agentResult}). */
export const AGENT_OUTPUT = outputOf({
  response: { type: 'string', description: "The agent's answer" },
  events: { type: 'array', description: 'tool_call, tool_response, code_run (with its capability calls) and agent_message events' },
  metadata: { type: 'object', description: 'duration_ms, turns, tool_calls, code_runs, capability_calls, tokens_used, tokens_estimated?' },
});

/**
 * The MCP tool of a prompt tool of `space` (seed 000): the validated arguments fill `tool.prompt`, and a headless agent
 * run in the space answers it. The result's text is the answer; its `structuredContent` is seed 004's
 * `{ response, events, metadata }` ({@link AGENT_OUTPUT}). Its annotations are left out: the config does not say what
 * its agent may do, and the protocol's defaults assume the worst. A failed run (`MAX_TURNS`, `MODEL_ERROR`, …) is an error result that adds the
 * events, metadata and transcript so far.
 */
export function promptToolSpec(space: SpaceDefinition, tool: PromptTool): ToolSpec {
  const declared = new Set(Object.keys(tool.parameters.properties ?? {}));
  return {
    name: tool.name,
    description: tool.description,
    inputSchema: tool.parameters,
    outputSchema: AGENT_OUTPUT,
    execution: { taskSupport: 'optional' },
    async handler(args, context) {
      const message = fillPlaceholders(tool.prompt, tool.name, args, declared);
      return agentResult(await runHeadless(space, [{ role: 'user', text: message }], tool.maxTurns ?? DEFAULT_MAX_TURNS, context));
    },
  };
}

/**
 * Runs a headless agent in `space` on `messages` (the conversation so far, ending with the new user message), with the
 * model chosen for this client, in the view of the space's `toolPermission`; the client is never asked to approve.
 * The agent's code runs in `session` when given (it must belong to that view), else in a fresh context each time.
 */
export async function runHeadless(
  space: SpaceDefinition,
  messages: readonly AgentMessage[],
  maxTurns: number,
  context: ToolContext,
  session?: Pick<ClientSpace, 'run'>,
): Promise<AgentRunReport> {
  const { connection, runOptions, requestId, onAgentMessage } = context;
  const model = chooseModel(connection, space, requestId);
  const { variant, onApproval } = headlessRun(space.toolPermission);
  const [runner, catalog] = await Promise.all([session ?? connection.space(space, variant), connection.catalog(space, variant)]);
  const { signal, onEvent } = runOptions;
  return runAgent({
    definition: space,
    space: runner,
    catalog,
    model,
    messages,
    maxTurns,
    runOptions: { ...(signal ? { signal } : {}), ...(onEvent ? { onEvent } : {}), onApproval },
    ...(onAgentMessage ? { onMessage: onAgentMessage } : {}),
  });
}

/** The tool result of an agent run (see {@link promptToolSpec}); `extra` fields (`sessionId`) lead both shapes. */
export function agentResult(report: AgentRunReport, extra: Record<string, unknown> = {}): CallToolResult {
  const { events, metadata, messages } = report;
  if (!report.ok) return toolError(report.error, { ...extra, events, metadata, transcript: messages });
  return {
    content: [{ type: 'text', text: report.response }],
    structuredContent: { ...extra, response: report.response, events, metadata },
  };
}
