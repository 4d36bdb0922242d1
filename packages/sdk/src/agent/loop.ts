import { toWireError, type ObjectSchema, type WireError } from '@agent-spaces/capabilities';
import type { AgentMessage, AgentModel } from './model.js';

/** Default most model turns of one agent run. */
export const DEFAULT_MAX_TURNS = 10;

/** A tool of an agent run: what the model is shown, and what answers its calls (never throws: a failure is an error output). */
export interface AgentTool {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
  call(input: Record<string, unknown>): Promise<{ output: string; isError: boolean }>;
}

/** What one agent loop needs. */
export interface AgentLoopOptions {
  system: string;
  /** The conversation so far, ending with the new user message. */
  messages: readonly AgentMessage[];
  model: AgentModel;
  tools: readonly AgentTool[];
  maxTurns: number;
  signal?: AbortSignal;
  /** Hears each assistant message as it arrives. */
  onMessage?: (message: Extract<AgentMessage, { role: 'assistant' }>) => void;
}

/** How an agent loop ended, with the whole conversation (`messages`) and its figures. */
export type AgentLoopResult = { messages: AgentMessage[]; turns: number; tokens: number } & (
  | { ok: true; text: string }
  | { ok: false; error: WireError }
);

/**
 * The one agent loop of agent-spaces (prompt tools, `invoke_agent`, `send_message`, `space.ask`): each turn the model
 * answers with text, which ends the loop, or tool calls, which run one after the other and go back to it. Ends with
 * `MAX_TURNS` after `maxTurns` turns without an answer, or with the model's error (`MODEL_ERROR`, `ABORTED`). Never
 * rejects.
 */
export async function agentLoop(options: AgentLoopOptions): Promise<AgentLoopResult> {
  const { system, model, tools, maxTurns } = options;
  const signal = options.signal ?? new AbortController().signal;
  const messages = [...options.messages];
  let turns = 0;
  let tokens = 0;
  try {
    while (turns < maxTurns) {
      turns++;
      const reply = await model.complete({ system, messages, tools, signal });
      tokens += reply.tokens;
      const message = { role: 'assistant' as const, text: reply.text, toolCalls: reply.toolCalls };
      messages.push(message);
      options.onMessage?.(message);
      if (reply.toolCalls.length === 0) return { ok: true, text: reply.text, messages, turns, tokens };
      const results = [];
      for (const call of reply.toolCalls) {
        const tool = tools.find((t) => t.name === call.name);
        const input = typeof call.input === 'object' && call.input !== null && !Array.isArray(call.input) ? (call.input as Record<string, unknown>) : {};
        const outcome = tool
          ? await tool.call(input)
          : { output: JSON.stringify({ code: 'TOOL_NOT_FOUND', message: `No tool "${call.name}" (tools: ${tools.map((t) => t.name).join(', ')})` }), isError: true };
        results.push({ id: call.id, name: call.name, ...outcome });
      }
      messages.push({ role: 'tool', results });
    }
    return { ok: false, error: { code: 'MAX_TURNS', message: `The agent gave no answer within ${maxTurns} turns (maxTurns)`, data: { maxTurns } }, messages, turns, tokens };
  } catch (error) {
    return { ok: false, error: toWireError(error), messages, turns, tokens };
  }
}

/** A tool's failure as the output the model reads: `{ code, message }`. */
export function toolFailure(error: unknown): { output: string; isError: true } {
  const { code, message } = toWireError(error);
  return { output: JSON.stringify({ code, message }), isError: true };
}
