import { isRecord } from './shape.js';

/** The HTTP methods `@agent-spaces/std`'s `http` can send. */
export const STD_HTTP_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

/** One of {@link STD_HTTP_METHODS}. */
export type StdHttpMethod = (typeof STD_HTTP_METHODS)[number];

/**
 * What `@agent-spaces/std`'s host modules may do: the config file's `std` key and `createSpace({ std })`. The
 * defaults deny the network and keep the workspace read-only.
 */
export interface StdConfig {
  http?: {
    /**
     * Hosts `http` may reach: `api.example.com`, `*.example.com` (subdomains only), `127.0.0.1:8080` (that port only),
     * `[::1]:3000`. Default: none, so every request fails with `ACCESS_DENIED` naming the host.
     */
    allowHosts?: string[];
    /** Methods `http` may send (default: all of {@link STD_HTTP_METHODS}); others fail with `ACCESS_DENIED`. */
    methods?: StdHttpMethod[];
    /** Longest a request may take, in ms (default 30 000); agent code may ask for less, never more. */
    timeoutMs?: number;
    /** Largest response body read, in bytes (default 10 MiB). */
    maxBytes?: number;
  };
  fs?: {
    /**
     * The folder `fs` works in, relative to the project folder (the config file's folder): `'.'` is the project
     * itself. Default: the space's own folder `<outDir>/workspaces/<space>/`, created on first use.
     */
    root?: string;
    /** Whether `writeFile`, `appendFile`, `mkdir` and `rm` may change it (default false: they fail with `ACCESS_DENIED`). */
    write?: boolean;
  };
}

type Check = (value: unknown) => string | undefined;

const positive: Check = (value) => (typeof value === 'number' && value > 0 && Number.isFinite(value) ? undefined : 'must be a positive number');

const SECTIONS: Record<string, Record<string, Check>> = {
  http: {
    allowHosts: (value) =>
      Array.isArray(value) && value.every((item) => typeof item === 'string' && item.trim() !== '') ? undefined : 'must be an array of host names',
    methods: (value) =>
      Array.isArray(value) && value.every((item) => (STD_HTTP_METHODS as readonly unknown[]).includes(item))
        ? undefined
        : `must be an array of ${STD_HTTP_METHODS.join(', ')}`,
    timeoutMs: positive,
    maxBytes: positive,
  },
  fs: {
    root: (value) => (typeof value === 'string' && value !== '' && !value.includes('\0') ? undefined : 'must be a folder path'),
    write: (value) => (typeof value === 'boolean' ? undefined : 'must be true or false'),
  },
};

/** A problem in a `std` value: the dotted field (`std.http.allowHosts`) and what is wrong with it. */
export interface StdConfigProblem {
  field: string;
  message: string;
}

/**
 * What is wrong with a `std` value (`{ field: 'std.http.allowHosts', message: 'std.http.allowHosts must be an array
 * of host names' }`), or undefined when it is valid. Each host entry's syntax is checked by the std capability,
 * which parses it.
 */
export function findStdConfigProblem(value: unknown): StdConfigProblem | undefined {
  const problem = (field: string, what: string) => ({ field, message: `${field} ${what}` });
  if (!isRecord(value)) return problem('std', 'must be an object { http?, fs? }');
  for (const [section, fields] of Object.entries(value)) {
    const checks = Object.hasOwn(SECTIONS, section) ? SECTIONS[section] : undefined;
    if (!checks) return problem(`std.${section}`, `is not a known key (known: ${Object.keys(SECTIONS).join(', ')})`);
    if (fields === undefined) continue;
    if (!isRecord(fields)) return problem(`std.${section}`, 'must be an object');
    for (const [key, item] of Object.entries(fields)) {
      const check = Object.hasOwn(checks, key) ? checks[key] : undefined;
      if (!check) return problem(`std.${section}.${key}`, `is not a known key (known: ${Object.keys(checks).join(', ')})`);
      const what = item === undefined ? undefined : check(item);
      if (what) return problem(`std.${section}.${key}`, what);
    }
  }
  return undefined;
}
