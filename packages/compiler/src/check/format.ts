import { MIXED_RESULT_CODE, type TypecheckDiagnostic } from './types.js';

// The line breaks TypeScript counts, so lines here match the diagnostics' line numbers.
const LINE_BREAK = /\r\n|[\n\r\u2028\u2029]/;

/**
 * Formats diagnostics for people, one block per diagnostic:
 * `agent.ts:3:7 - error TS2322: Type 'string' is not assignable to type 'number'.`, then the source line and a
 * caret under the column.
 */
export function formatDiagnostics(code: string, diagnostics: TypecheckDiagnostic[], fileName = 'agent.ts'): string {
  const lines = code.split(LINE_BREAK);
  return diagnostics
    .map((d) => {
      const label = d.code === MIXED_RESULT_CODE ? `AS${d.code}` : `TS${d.code}`;
      const header = `${fileName}:${d.line}:${d.column} - ${d.category} ${label}: ${d.message}`;
      const source = lines[d.line - 1];
      if (source === undefined) return header;
      const gutter = String(d.line);
      // Keep tabs so the caret lines up with the column however the terminal renders them.
      const indent = source.slice(0, d.column - 1).replace(/[^\t]/g, ' ');
      return `${header}\n\n${gutter} ${source}\n${' '.repeat(gutter.length)} ${indent}^`;
    })
    .join('\n\n');
}
