/**
 * The `sourceName`s of an MCP capability's functions: a tool's real name, or one of the names below for the
 * functions reaching resources and prompts. MCP tool names should not contain `/`; the compiler reports a tool
 * whose name would clash with these.
 */

/** `sourceName` of `listResources()`. */
export const MCP_LIST_RESOURCES = 'resources/list';
/** `sourceName` of `readResource({ uri })`. */
export const MCP_READ_RESOURCE = 'resources/read';
const PROMPT_PREFIX = 'prompts/get/';

/** What one function of an MCP capability reaches. */
export type McpTarget =
  | { kind: 'tool'; name: string }
  | { kind: 'listResources' }
  | { kind: 'readResource' }
  | { kind: 'prompt'; name: string };

/** `sourceName` of the function getting prompt `prompt` (`prompts/get/<prompt>`). */
export function promptSourceName(prompt: string): string {
  return PROMPT_PREFIX + prompt;
}

/** What the function with this `sourceName` reaches: a tool, the resource functions or a prompt. */
export function parseMcpSourceName(sourceName: string): McpTarget {
  if (sourceName === MCP_LIST_RESOURCES) return { kind: 'listResources' };
  if (sourceName === MCP_READ_RESOURCE) return { kind: 'readResource' };
  if (sourceName.startsWith(PROMPT_PREFIX)) return { kind: 'prompt', name: sourceName.slice(PROMPT_PREFIX.length) };
  return { kind: 'tool', name: sourceName };
}
