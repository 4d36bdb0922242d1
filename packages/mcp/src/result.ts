import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What a call of an MCP tool without an `outputSchema` resolves to (mirrors `McpToolResult` of the `.d.ts`). */
export interface McpToolResult {
  /** The content blocks the tool returned. */
  content: CallToolResult['content'];
  /** The text blocks of `content` joined with newlines (`''` when there are none). */
  text: string;
  /** Structured result, when the server sent one without declaring an output schema. */
  structuredContent?: Record<string, unknown>;
}

/** The {@link McpToolResult} of a tool result: its content plus its text blocks joined with newlines. */
export function toToolResult(result: CallToolResult): McpToolResult {
  const text = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  return { content: result.content, text, ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}) };
}
