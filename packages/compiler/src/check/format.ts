import { fitSourceLine } from './lean.js';
import { MIXED_RESULT_CODE } from './script.js';
import type { FunctionHint, TypecheckDiagnostic } from './types.js';

// The line breaks TypeScript counts, so lines here match the diagnostics' line numbers.
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/**
 * Formats diagnostics for people, one block per diagnostic:
 * `agent.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.`, then the source line and a
 * caret under the column (a long line shown around the column only), then what the problem is about: the signature of
 * the function whose call it is in or whose result it reads, or the closest names to a misspelt one.
 */
export function formatDiagnostics(code: string, diagnostics: TypecheckDiagnostic[], fileName = 'agent.ts'): string {
  const lines = code.split(LINE_BREAK);
  return diagnostics
    .map((d) => {
      const label = d.code >= MIXED_RESULT_CODE ? `AS${d.code}` : `TS${d.code}`;
      const header = `${fileName}:${d.line}:${d.column} - ${d.category} ${label}: ${d.message}`;
      const line = lines[d.line - 1];
      const hints = hintLines(d);
      if (line === undefined) return [header, ...hints].join('\n');
      const { text: source, column } = fitSourceLine(line, d.column);
      const gutter = String(d.line);
      // Keep tabs so the caret lines up with the column however the terminal renders them.
      const indent = source.slice(0, column - 1).replace(/[^\t]/g, ' ');
      return [`${header}\n\n${gutter} ${source}\n${' '.repeat(gutter.length)} ${indent}^`, ...hints].join('\n');
    })
    .join('\n\n');
}

function hintLines(d: TypecheckDiagnostic): string[] {
  const show = (hint: FunctionHint) => `  ${hint.signature ?? hint.name}${hint.module ? `  // from '${hint.module}'` : ''}`;
  if (d.closest?.length) return [d.closest.length > 1 ? 'Did you mean one of:' : 'Did you mean:', ...d.closest.map(show)];
  return d.function ? [`${d.function.name} is declared as:`, show(d.function)] : [];
}
