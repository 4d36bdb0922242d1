/**
 * Type text on one line, as a search result's signature and a user tool's `input` need it: comments dropped, each
 * line break with the indentation around it made one space, and the `;` before a closing `}` dropped
 * (`{\n  /** Id *\/\n  id: string;\n}` → `{ id: string }`). String literals stay as they are.
 */
export function oneLine(text: string): string {
  return text.replace(GAP, (match, semicolon: string | undefined, gap: string | undefined, close: string | undefined) => {
    if (gap === undefined || !/\n|\/[*/]/.test(gap)) return match;
    return semicolon && close ? ` ${close}` : `${semicolon} ${close}`;
  }).trim();
}

/** A string literal (kept), or an optional `;`, a run of spaces and comments, and an optional `}` after it. */
const GAP = /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|(;?)((?:\s|\/\*[\s\S]*?\*\/|\/\/[^\n]*)+)(\}?)/g;
