import { AgentSpacesError, isAgentSpacesError } from '@agent-spaces/capabilities';
import type { CreateMessageResult, CreateMessageResultWithTools, RequestId, SamplingMessage } from '@modelcontextprotocol/sdk/types.js';
import type { AgentMessage, AgentModel, ModelReply, ModelTool, ToolCall } from '@agent-spaces/sdk';
import type { ClientLink } from '../connection.js';

/** Most tokens asked of the client's model per turn. */
const MAX_TOKENS = 4096;
/** How long one sampling request may wait for the client (a person may review it). */
const SAMPLING_TIMEOUT_MS = 600_000;

/** True when the MCP client `server` reaches declared the `sampling` capability. */
export function clientSamples(server: ClientLink): boolean {
  return server.getClientCapabilities()?.sampling !== undefined;
}

/**
 * The MCP client's own model through `sampling/createMessage`, sent on the stream of the tool call `relatedRequestId`.
 * With `sampling.tools` declared (protocol 2025-11-25) the tools go natively (`tools`, `tool_use`, `tool_result`);
 * otherwise through the text protocol of {@link textProtocol}. Sampling reports no token counts: each turn counts 0
 * tokens.
 */
export function samplingModel(server: ClientLink, relatedRequestId: RequestId | undefined): AgentModel {
  const native = server.getClientCapabilities()?.sampling?.tools !== undefined;
  return {
    name: native ? 'sampling' : 'sampling (text protocol)',
    async complete(request) {
      const options = { signal: request.signal, timeout: SAMPLING_TIMEOUT_MS, ...(relatedRequestId !== undefined ? { relatedRequestId } : {}) };
      try {
        if (native) {
          const result = await server.createMessage(
            {
              messages: nativeMessages(request.messages),
              systemPrompt: request.system,
              maxTokens: MAX_TOKENS,
              tools: request.tools.map((t) => ({ name: t.name, description: t.description, inputSchema: t.inputSchema as { type: 'object' } })),
              toolChoice: { mode: 'auto' },
            },
            options,
          );
          return nativeReply(result);
        }
        const result = await server.createMessage(
          { messages: textMessages(request.messages), systemPrompt: `${request.system}\n\n${textProtocol(request.tools)}`, maxTokens: MAX_TOKENS },
          options,
        );
        return textReply(result);
      } catch (error) {
        if (request.signal.aborted) throw new AgentSpacesError('ABORTED', 'The agent run was cancelled while waiting for the client\'s model');
        if (isAgentSpacesError(error)) throw error;
        throw new AgentSpacesError('MODEL_ERROR', `The MCP client did not answer sampling/createMessage: ${error instanceof Error ? error.message : String(error)}`, {
          reason: 'sampling',
        });
      }
    },
  };
}

/**
 * How a client model without native tool use calls tools: appended to the system prompt. A reply holding
 * `<tool_call>{"name": …, "input": {…}}</tool_call>` blocks asks for those calls, whose results come back in the next
 * user message as `<tool_result name="…">…</tool_result>`; a reply without one is the answer.
 */
function textProtocol(tools: readonly ModelTool[]): string {
  return [
    '## Tools',
    'You can call these tools. To call one, reply with one or more blocks, each exactly:',
    '<tool_call>{"name": "<tool>", "input": { ... }}</tool_call>',
    'The results come back in the next message as <tool_result name="<tool>">…</tool_result>. A reply without <tool_call> is your final answer.',
    ...tools.map((t) => `- ${t.name}: ${t.description}\n  input schema: ${JSON.stringify(t.inputSchema)}`),
  ].join('\n');
}

const TOOL_CALL = /<tool_call>([\s\S]*?)<\/tool_call>/g;

function textReply(result: CreateMessageResult): ModelReply {
  const text = result.content.type === 'text' ? result.content.text : '';
  const toolCalls: ToolCall[] = [...text.matchAll(TOOL_CALL)].map((match, i) => {
    const id = `text-call-${i + 1}`;
    try {
      const parsed = JSON.parse(match[1]!) as { name?: unknown; input?: unknown };
      return { id, name: typeof parsed.name === 'string' ? parsed.name : '', input: parsed.input ?? {} };
    } catch {
      return { id, name: '', input: {} };
    }
  });
  return { text, toolCalls, tokens: 0 };
}

function textMessages(messages: readonly AgentMessage[]): SamplingMessage[] {
  return messages.map((m): SamplingMessage => {
    switch (m.role) {
      case 'user':
        return { role: 'user', content: { type: 'text', text: m.text } };
      case 'assistant':
        return { role: 'assistant', content: { type: 'text', text: m.text } };
      case 'tool':
        return {
          role: 'user',
          content: { type: 'text', text: m.results.map((r) => `<tool_result name="${r.name}"${r.isError ? ' error="true"' : ''}>${r.output}</tool_result>`).join('\n') },
        };
    }
  });
}

function nativeMessages(messages: readonly AgentMessage[]): SamplingMessage[] {
  return messages.map((m): SamplingMessage => {
    switch (m.role) {
      case 'user':
        return { role: 'user', content: { type: 'text', text: m.text } };
      case 'assistant':
        return {
          role: 'assistant',
          content: [
            ...(m.text ? [{ type: 'text' as const, text: m.text }] : []),
            ...m.toolCalls.map((c) => ({ type: 'tool_use' as const, id: c.id, name: c.name, input: asRecord(c.input) })),
          ],
        };
      case 'tool':
        return {
          role: 'user',
          content: m.results.map((r) => ({ type: 'tool_result' as const, toolUseId: r.id, content: [{ type: 'text' as const, text: r.output }], isError: r.isError })),
        };
    }
  });
}

function nativeReply(result: CreateMessageResultWithTools): ModelReply {
  const blocks = Array.isArray(result.content) ? result.content : [result.content];
  const text = blocks.flatMap((b) => (b.type === 'text' ? [b.text] : [])).join('\n');
  const toolCalls = blocks.flatMap((b) => (b.type === 'tool_use' ? [{ id: b.id, name: b.name, input: b.input }] : []));
  return { text, toolCalls, tokens: 0 };
}

function asRecord(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}
