import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

/** What a call of an MCP tool without an `outputSchema` resolves to (mirrors `McpToolResult` of the `.d.ts`). */
export interface McpToolResult {
  /** The content blocks the tool returned. */
  content: CallToolResult['content'];
  /** The text blocks of `content` joined with newlines (`''` when there are none). */
  text: string;
  /** Structured result, when the server sent one without declaring an output schema. */
  structuredContent?: Record<string, unknown>;
  /**
   * The result's data: `structuredContent`, else `text` parsed when it is a JSON object or array, else the array of the
   * text blocks parsed when there are several and each is one; absent otherwise.
   */
  data?: unknown;
}

/**
 * The {@link McpToolResult} of a tool result: its content, its text blocks joined with newlines, and its data
 * (structured content, or the JSON its text holds).
 */
export function toToolResult(result: CallToolResult): McpToolResult {
  const texts = result.content.flatMap((block) => (block.type === 'text' ? [block.text] : []));
  const text = texts.join('\n');
  const data = result.structuredContent ?? jsonData(text) ?? blocksData(texts);
  return {
    content: result.content,
    text,
    ...(result.structuredContent ? { structuredContent: result.structuredContent } : {}),
    ...(data !== undefined ? { data } : {}),
  };
}

/** Each text block parsed, when there are several and each is a JSON object or array (servers that send one item a block). */
function blocksData(texts: readonly string[]): unknown[] | undefined {
  if (texts.length < 2) return undefined;
  const parsed = texts.map(jsonData);
  return parsed.every((value) => value !== undefined) ? parsed : undefined;
}

/** `text` parsed, when it is one JSON object or array (a bare string or number is text, not data). */
function jsonData(text: string): unknown {
  const start = text.trimStart()[0];
  if (start !== '{' && start !== '[') return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}
