/**
 * Declarations of `@agent-spaces/std` for agent code, in the shape of `src/sandbox/` (a test checks that the bundled
 * module is assignable to them, so the two cannot drift apart).
 */
export const STD_DTS = `declare module '@agent-spaces/std' {
  /** Codes of the errors \`json\`, \`csv\` and \`time\` throw. */
  export type StdErrorCode = 'INVALID_JSON' | 'INVALID_CSV' | 'INVALID_TIME' | 'INVALID_ARGUMENT';

  /** An error of \`json\`, \`csv\` or \`time\`; branch on \`code\`. (\`crypto\`, \`fs\` and \`http\` throw \`CapabilityError\`.) */
  export class StdError extends Error {
    readonly code: StdErrorCode;
    /** Details, e.g. \`{ line, column }\` of a JSON or CSV error. */
    readonly data: Record<string, unknown> | undefined;
    constructor(code: StdErrorCode, message: string, data?: Record<string, unknown>);
  }

  /** Options of \`json.stringify\`. */
  export interface JsonStringifyOptions {
    /** Spaces (or a string) to indent nested levels with; compact when absent. */
    indent?: number | string;
    /** Write object keys in sorted order. */
    sortKeys?: boolean;
  }

  /** JSON parsing and writing with errors that say where. Runs in the sandbox. */
  export const json: {
    /**
     * Parses JSON text. Invalid text throws a \`StdError\` with code \`INVALID_JSON\` naming the line and column.
     * @example const config = json.parse<{ port: number }>(await fs.readFile('config.json'));
     */
    parse<T = unknown>(text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown): T;
    /** Serializes a value as JSON; what JSON cannot hold (a circular structure, a BigInt) throws \`INVALID_ARGUMENT\`. */
    stringify(value: unknown, options?: JsonStringifyOptions): string;
  };

  /** Options of \`csv.parse\`. */
  export interface CsvParseOptions {
    /** Field separator, one character (default \`,\`). */
    delimiter?: string;
    /** Treat the first row as column names and return one object per row (default false). */
    header?: boolean;
    /** Skip completely empty lines (default true). */
    skipEmptyLines?: boolean;
  }

  /** Options of \`csv.stringify\`. */
  export interface CsvStringifyOptions {
    /** Field separator, one character (default \`,\`). */
    delimiter?: string;
    /** Columns to write, in order (default for objects: every key in order of first appearance). */
    columns?: string[];
    /** Write a header row (default true for objects and when \`columns\` is given). */
    header?: boolean;
    /** Line break between rows (default \`\\r\\n\`, as RFC 4180 says). */
    newline?: '\\r\\n' | '\\n';
  }

  /** RFC 4180 CSV. Runs in the sandbox. */
  export const csv: {
    /**
     * Parses CSV into rows of strings, or objects keyed by the header row with \`header: true\`. Malformed input throws
     * a \`StdError\` with code \`INVALID_CSV\` naming the line.
     * @example const rows = csv.parse(text, { header: true }); // [{ name: 'Ada', age: '36' }]
     */
    parse(text: string, options: CsvParseOptions & { header: true }): Record<string, string>[];
    parse(text: string, options?: CsvParseOptions): string[][];
    /** Writes rows (arrays of cells, or objects) as CSV, quoting where needed. No line break at the end. */
    stringify(rows: readonly unknown[], options?: CsvStringifyOptions): string;
  };

  /** A point in time: a \`Date\`, an ISO 8601 string, or milliseconds since the epoch. */
  export type TimeInput = Date | string | number;

  /** An amount of time by unit; years and months are calendar months (in UTC), the rest fixed lengths. */
  export interface Duration {
    years?: number;
    months?: number;
    weeks?: number;
    days?: number;
    hours?: number;
    minutes?: number;
    seconds?: number;
    milliseconds?: number;
  }

  /** Units \`time.diff\` measures in. */
  export type TimeUnit = 'milliseconds' | 'seconds' | 'minutes' | 'hours' | 'days' | 'weeks';

  /** Options of \`time.format\`: \`Intl.DateTimeFormat\` options plus the locale. */
  export interface TimeFormatOptions extends Intl.DateTimeFormatOptions {
    /** BCP 47 locale (default \`en-US\`). */
    locale?: string;
  }

  /** Dates, times and durations. Runs in the sandbox; invalid input throws a \`StdError\` (\`INVALID_TIME\`). */
  export const time: {
    /** The current time. */
    now(): Date;
    /** Parses an ISO 8601 date or date-time (\`2025-01-15\`, \`2025-01-15T10:30:00+01:00\`); without an offset, UTC. */
    parse(text: string): Date;
    /**
     * ISO 8601 text: in UTC (\`2025-01-15T09:30:00.000Z\`), or with \`timeZone\` (IANA name) as that zone's local time
     * and offset (\`2025-01-15T10:30:00.000+01:00\`).
     */
    toISO(input: TimeInput, options?: { timeZone?: string }): string;
    /**
     * Formats for people with \`Intl.DateTimeFormat\` (default locale \`en-US\`, default time zone UTC).
     * @example time.format(t, { timeZone: 'Europe/Oslo', dateStyle: 'medium', timeStyle: 'short' })
     */
    format(input: TimeInput, options?: TimeFormatOptions): string;
    /** Adds a duration (an object or ISO 8601 like \`P1DT2H\`); negative amounts subtract. */
    add(input: TimeInput, duration: Duration | string): Date;
    /** \`to - from\` in \`unit\` (default milliseconds), fractional when not a whole number of units. */
    diff(from: TimeInput, to: TimeInput, unit?: TimeUnit): number;
    /** Parses an ISO 8601 duration (\`P1Y2M3DT4H5M6.5S\`, \`P2W\`). */
    parseDuration(text: string): Duration;
  };

  /** Digest algorithms of \`crypto.hash\` and \`crypto.hmac\`. */
  export type HashAlgorithm = 'sha256' | 'sha512' | 'sha1' | 'md5';

  /** Hashes, HMACs and UUIDs, computed on the host. */
  export const crypto: {
    /**
     * Digest of \`data\` (UTF-8) as hex (default) or base64.
     * @example await crypto.hash('sha256', 'abc') // 'ba7816bf…'
     */
    hash(algorithm: HashAlgorithm, data: string, encoding?: 'hex' | 'base64'): Promise<string>;
    /** HMAC of \`data\` with \`key\` (both UTF-8) as hex (default) or base64. */
    hmac(algorithm: HashAlgorithm, key: string, data: string, encoding?: 'hex' | 'base64'): Promise<string>;
    /** A random version 4 UUID. */
    randomUUID(): Promise<string>;
  };

  /** How file content travels as a string: text (\`utf8\`, the default) or bytes as \`base64\`. */
  export type FileEncoding = 'utf8' | 'base64';
  /** What a path names. */
  export type FileType = 'file' | 'directory' | 'symlink' | 'other';
  /** One entry of \`fs.readdir\`. */
  export interface DirEntry {
    name: string;
    type: FileType;
  }
  /** The result of \`fs.stat\`. */
  export interface FileStat {
    type: FileType;
    size: number;
    /** ISO 8601 time of the last change. */
    modifiedAt: string;
    /** ISO 8601 creation time. */
    createdAt: string;
  }

  /**
   * Files in the space's workspace folder, on the host. Paths are relative to the workspace; \`..\` leading out,
   * absolute paths and symlinks leading outside fail with \`CapabilityError\` code \`ACCESS_DENIED\`.
   */
  export const fs: {
    /** Reads a file as text (or base64). */
    readFile(path: string, options?: { encoding?: FileEncoding }): Promise<string>;
    /** Creates or replaces a file (its folder must exist). */
    writeFile(path: string, data: string, options?: { encoding?: FileEncoding }): Promise<void>;
    /** Appends to a file, creating it if needed. */
    appendFile(path: string, data: string, options?: { encoding?: FileEncoding }): Promise<void>;
    /** The entries of a folder (default: the workspace), sorted by name. */
    readdir(path?: string): Promise<DirEntry[]>;
    /** Type, size and times of a path. */
    stat(path: string): Promise<FileStat>;
    /** Creates a folder, with its parents unless \`recursive: false\`. */
    mkdir(path: string, options?: { recursive?: boolean }): Promise<void>;
    /** Removes a file, or a folder with \`recursive: true\`; \`force: true\` ignores a missing path. */
    rm(path: string, options?: { recursive?: boolean; force?: boolean }): Promise<void>;
    /** Whether the path exists. */
    exists(path: string): Promise<boolean>;
  };

  /** HTTP methods \`http.request\` sends. */
  export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';
  /** Options of \`http.request\`. */
  export interface HttpRequestInit {
    method?: HttpMethod;
    headers?: Record<string, string>;
    body?: string;
    /** Gives up after this many milliseconds (capped by the space's own timeout). */
    timeoutMs?: number;
  }
  /** A response: plain data plus \`ok\` and \`json()\`. */
  export interface HttpResponse {
    /** The final URL, after redirects. */
    url: string;
    status: number;
    statusText: string;
    /** Lower-case header names. */
    headers: Record<string, string>;
    /** The body as text. */
    body: string;
    /** True for a 2xx status. */
    ok: boolean;
    /** Parses the body as JSON (\`StdError\` code \`INVALID_JSON\` when it is not). */
    json<T = unknown>(): T;
  }

  /**
   * HTTP requests made by the host, only to hosts on the space's allow-list (others fail with \`ACCESS_DENIED\`
   * naming the host); slow requests fail with \`TIMEOUT\`, large bodies with \`PAYLOAD_TOO_LARGE\`.
   */
  export const http: {
    /** Sends a request. */
    request(url: string, init?: HttpRequestInit): Promise<HttpResponse>;
    /**
     * \`GET url\`.
     * @example const items = (await http.get('https://api.example.com/items')).json<Item[]>();
     */
    get(url: string, init?: Omit<HttpRequestInit, 'method' | 'body'>): Promise<HttpResponse>;
    /** \`POST url\`; an object body is sent as JSON with \`content-type: application/json\`. */
    post(url: string, body?: string | object, init?: Omit<HttpRequestInit, 'method' | 'body'>): Promise<HttpResponse>;
  };
}
`;
