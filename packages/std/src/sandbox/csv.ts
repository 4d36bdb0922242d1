import { describeType, StdError } from './errors.js';

/** Options of {@link parse}. */
interface CsvParseOptions {
  /** Field separator, one character (default `,`). */
  delimiter?: string;
  /** Treat the first row as column names and return one object per row (default false). */
  header?: boolean;
  /** Skip lines that are completely empty (default true). */
  skipEmptyLines?: boolean;
}

/** Options of {@link stringify}. */
interface CsvStringifyOptions {
  /** Field separator, one character (default `,`). */
  delimiter?: string;
  /** Columns to write, in order. Default for objects: every key, in order of first appearance. */
  columns?: string[];
  /** Write a header row of column names (default true for objects and when `columns` is given). */
  header?: boolean;
  /** Line break between rows (default `\r\n`, as RFC 4180 says). */
  newline?: '\r\n' | '\n';
}

/**
 * Parses RFC 4180 CSV: quoted fields may hold delimiters, line breaks and doubled quotes (`""`); rows end with CRLF, LF
 * or CR. Returns rows of strings, or objects keyed by the header row with `header: true`. Malformed input (an
 * unterminated quote, text after a closing quote, a row with the wrong number of fields under a header) throws a
 * `StdError` with code `INVALID_CSV` naming the line.
 */
function parse(text: string, options: CsvParseOptions & { header: true }): Record<string, string>[];
function parse(text: string, options?: CsvParseOptions): string[][];
function parse(text: string, options: CsvParseOptions = {}): string[][] | Record<string, string>[] {
  if (typeof text !== 'string') throw new StdError('INVALID_ARGUMENT', `csv.parse expects a string, got ${describeType(text)}`);
  const delimiter = checkDelimiter(options.delimiter, 'csv.parse');
  const rows = readRows(text, delimiter, options.skipEmptyLines ?? true);
  if (!options.header) return rows.map((row) => row.fields);
  const [head, ...body] = rows;
  if (!head) return [];
  const columns = head.fields;
  const duplicate = columns.find((name, index) => columns.indexOf(name) !== index);
  if (duplicate !== undefined) {
    throw new StdError('INVALID_CSV', `CSV header on line ${head.line} names the column "${duplicate}" twice`, { line: head.line });
  }
  return body.map(({ fields, line }) => {
    if (fields.length !== columns.length) {
      throw new StdError('INVALID_CSV', `CSV line ${line} has ${fields.length} fields, the header has ${columns.length}`, { line });
    }
    return Object.fromEntries(columns.map((name, index) => [name, fields[index]!]));
  });
}

/**
 * Writes rows (arrays of cells, or objects) as CSV, quoting cells that hold the delimiter, a quote or a line break.
 * `null`/`undefined` become empty cells, dates ISO strings, other objects JSON. No line break is added at the end.
 */
function stringify(rows: readonly unknown[], options: CsvStringifyOptions = {}): string {
  if (!Array.isArray(rows)) throw new StdError('INVALID_ARGUMENT', `csv.stringify expects an array of rows, got ${describeType(rows)}`);
  const delimiter = checkDelimiter(options.delimiter, 'csv.stringify');
  const newline = options.newline ?? '\r\n';
  const arrays = rows.every((row) => Array.isArray(row));
  if (!arrays) {
    const bad = rows.findIndex((row) => typeof row !== 'object' || row === null || Array.isArray(row));
    if (bad !== -1) {
      throw new StdError('INVALID_ARGUMENT', `csv.stringify row ${bad} is ${describeType(rows[bad])}: rows must be all arrays or all objects`);
    }
  }
  const columns = options.columns ?? (arrays ? undefined : keysInOrder(rows as Record<string, unknown>[]));
  const cells: unknown[][] = arrays
    ? (rows as unknown[][])
    : (rows as Record<string, unknown>[]).map((row) => columns!.map((column) => (Object.hasOwn(row, column) ? row[column] : undefined)));
  const withHeader = columns !== undefined && (options.header ?? true) ? [columns, ...cells] : cells;
  return withHeader.map((row) => row.map((cell) => formatCell(cell, delimiter)).join(delimiter)).join(newline);
}

/** CSV: RFC 4180 parsing and writing, with a header row as objects and a choice of delimiter. */
export const csv = Object.freeze({ parse, stringify });

interface Row {
  fields: string[];
  line: number;
}

function readRows(text: string, delimiter: string, skipEmptyLines: boolean): Row[] {
  const rows: Row[] = [];
  let line = 1;
  let lineStart = 0;
  let i = 0;
  let fields: string[] = [];
  let rowLine = 1;
  while (i <= text.length) {
    let field: string;
    if (text[i] === '"') {
      const startLine = line;
      field = '';
      i++;
      for (;;) {
        const close = text.indexOf('"', i);
        if (close === -1) throw new StdError('INVALID_CSV', `CSV line ${startLine} has a quoted field that never ends`, { line: startLine });
        for (let k = text.indexOf('\n', i); k !== -1 && k < close; k = text.indexOf('\n', k + 1)) {
          line++;
          lineStart = k + 1;
        }
        field += text.slice(i, close);
        i = close + 1;
        if (text[i] !== '"') break;
        field += '"';
        i++;
      }
      const next = text[i];
      if (next !== undefined && next !== delimiter && next !== '\n' && next !== '\r') {
        const column = i - lineStart + 1;
        throw new StdError('INVALID_CSV', `CSV line ${line}, column ${column}: unexpected ${JSON.stringify(next)} after a closing quote`, {
          line,
          column,
        });
      }
    } else {
      let end = i;
      while (end < text.length && text[end] !== delimiter && text[end] !== '\n' && text[end] !== '\r') end++;
      field = text.slice(i, end);
      i = end;
    }
    fields.push(field);
    const c = text[i];
    if (c === delimiter) {
      i++;
      continue;
    }
    // End of a row: a line break or the end of the text.
    const blank = fields.length === 1 && fields[0] === '' && text[i - 1] !== '"';
    const atEnd = c === undefined;
    if (!(blank && (skipEmptyLines || atEnd))) rows.push({ fields, line: rowLine });
    if (atEnd) break;
    i += c === '\r' && text[i + 1] === '\n' ? 2 : 1;
    line++;
    lineStart = i;
    rowLine = line;
    fields = [];
  }
  return rows;
}

function checkDelimiter(delimiter: string | undefined, where: string): string {
  if (delimiter === undefined) return ',';
  if (typeof delimiter !== 'string' || delimiter.length !== 1 || delimiter === '"' || delimiter === '\n' || delimiter === '\r') {
    throw new StdError('INVALID_ARGUMENT', `${where}: the delimiter must be one character other than a quote or line break`);
  }
  return delimiter;
}

function keysInOrder(rows: Record<string, unknown>[]): string[] {
  const keys = new Set<string>();
  for (const row of rows) for (const key of Object.keys(row)) keys.add(key);
  return [...keys];
}

function formatCell(cell: unknown, delimiter: string): string {
  const text =
    cell === null || cell === undefined
      ? ''
      : typeof cell === 'string'
        ? cell
        : cell instanceof Date
          ? cell.toISOString()
          : typeof cell === 'object'
            ? JSON.stringify(cell)
            : String(cell);
  return text.includes(delimiter) || text.includes('"') || text.includes('\n') || text.includes('\r')
    ? `"${text.replace(/"/g, '""')}"`
    : text;
}
