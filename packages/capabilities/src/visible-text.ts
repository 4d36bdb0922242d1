/**
 * Characters beyond C0 that act on a terminal or hide or reorder text: DEL and C1 controls (U+009B starts an escape
 * sequence on some terminals), bidi controls, zero-width characters, line and paragraph separators, the BOM,
 * interlinear annotations (a regular expression character class body).
 */
export const HIDDEN_BEYOND_C0 = '\\x7f-\\x9f\\u061c\\u180e\\u200b-\\u200f\\u2028-\\u202e\\u2060-\\u2069\\ufeff\\ufff9-\\ufffb';
/** Every character {@link visibleText} escapes: C0 controls but newline and tab (ESC, CR, backspace…), and the rest. */
const HIDDEN = new RegExp(`[\\x00-\\x08\\x0b-\\x1f${HIDDEN_BEYOND_C0}]`, 'g');

/**
 * `text` as it may be printed on a terminal when someone else (agent code, a handler, an MCP server) controls it:
 * every character a terminal acts on or hides shows as an escape (`\x1b`, `\r`, `\x9b`, `\u202e`), so the text can
 * neither move the cursor, erase or rewrite a line, nor hide or reorder what it says; and each line after the first
 * starts with `indent`, so it cannot pass for a line of the program's own.
 * @example
 * visibleText('cus_001\x1b[1A\x1b[2K') // 'cus_001\\x1b[1A\\x1b[2K'
 */
export function visibleText(text: string, indent = ''): string {
  const shown = text.replace(HIDDEN, escapeChar);
  return indent === '' ? shown : shown.replace(/\n/g, `\n${indent}`);
}

function escapeChar(char: string): string {
  if (char === '\r') return '\\r';
  const code = char.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}
