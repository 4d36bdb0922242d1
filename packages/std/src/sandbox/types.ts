/** Types shared by the in-sandbox std module and its host implementation. */

/** Digest algorithms of `crypto.hash` and `crypto.hmac`. */
export type HashAlgorithm = 'sha256' | 'sha512' | 'sha1' | 'md5';

/** How file content is passed as a string: text (`utf8`, the default) or bytes as `base64`. */
export type FileEncoding = 'utf8' | 'base64';

/** What a path names. */
export type FileType = 'file' | 'directory' | 'symlink' | 'other';

/** One entry of `fs.readdir`. */
export interface DirEntry {
  name: string;
  type: FileType;
}

/** The result of `fs.stat` (symlinks inside the workspace are followed). */
export interface FileStat {
  type: FileType;
  size: number;
  /** ISO 8601 time of the last content change. */
  modifiedAt: string;
  /** ISO 8601 creation time, where the file system records it. */
  createdAt: string;
}

/** HTTP methods `http.request` sends. */
export type HttpMethod = 'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS';

/** Options of `http.request`. */
export interface HttpRequestInit {
  method?: HttpMethod;
  headers?: Record<string, string>;
  body?: string;
  /** Gives up after this many milliseconds (capped by the space's own timeout). */
  timeoutMs?: number;
}

/** A response as the host returns it: plain data. */
export interface HttpResponseData {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  statusText: string;
  /** Lower-case header names. */
  headers: Record<string, string>;
  /** The body decoded as UTF-8. */
  body: string;
}

/** A response in agent code: the data plus `ok` and `json()`. */
export interface HttpResponse extends HttpResponseData {
  /** True for a 2xx status. */
  ok: boolean;
  /** Parses the body as JSON (a `StdError` with code `INVALID_JSON` when it is not). */
  json<T = unknown>(): T;
}
