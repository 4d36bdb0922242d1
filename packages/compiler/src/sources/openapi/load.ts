import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { AgentSpacesError, isRecord } from '@agent-spaces/capabilities';
import { readCachedSpec, specCacheDir, writeCachedSpec } from './cache.js';
import type { OpenApiSourceConfig } from './config.js';

/** Paths tried, in order, when a spec is discovered from a server URL (seed 003). */
const DISCOVERY_PATHS = ['/openapi.json', '/', '/api/openapi.json', '/docs/openapi.json'] as const;

/** How a spec is fetched: where the cache lives, how long entries stay fresh, and whether to ignore them. */
export interface LoadOptions {
  /** Folder relative spec paths are resolved against. */
  rootDir: string;
  /** Build output folder; the cache is `<outDir>/cache/openapi/`. */
  outDir: string;
  /** Freshness of cached specs in milliseconds. */
  ttlMs: number;
  /** Fetch again even when the cache holds a fresh entry. */
  refresh?: boolean;
  /** Limit of each HTTP request (default 10 000 ms). */
  fetchTimeoutMs?: number;
}

/** One discovery attempt: the URL and what came back (`200`, `404`, `not an OpenAPI document`, a network error). */
export interface DiscoveryAttempt {
  url: string;
  outcome: string;
}

/** A parsed spec whose references can be resolved, and how it was obtained. */
export interface LoadedSpec {
  document: Record<string, unknown>;
  version: '2.0' | '3.0' | '3.1';
  /** URL or absolute path the spec was read from (for discovery: the URL that answered). */
  location: string;
  /** Discovery attempts in order (empty when `spec` was given or the cache answered). */
  tried: DiscoveryAttempt[];
  /** `fresh`: read from the cache; `stale`: the fetch failed and an expired cache entry was used. */
  cache: 'miss' | 'fresh' | 'stale';
  /** Absolute paths of the local files read. */
  files: string[];
  /** Resolves a reference inside the document (`#/components/parameters/id`) with swagger-parser's `$refs`. */
  resolve(ref: string): unknown;
}

/**
 * Reads the spec of `source` from its file, its URL or by discovery from its server `url`, parses JSON or YAML and
 * resolves references with swagger-parser (external files are bundled in). Fetched text is cached under
 * `<outDir>/cache/openapi/`. Throws `AgentSpacesError`: `SOURCE_NOT_FOUND`, `SOURCE_UNREADABLE`, `INVALID_JSON`,
 * `INVALID_DEFINITION` or `BAD_REF`.
 */
export async function loadSpec(source: OpenApiSourceConfig, options: LoadOptions): Promise<LoadedSpec> {
  const fetched = await readSpecText(source, options);
  const document = await parseText(fetched.text, fetched.location);
  if (!isRecord(document) || !(typeof document.openapi === 'string' || typeof document.swagger === 'string')) {
    throw new AgentSpacesError('INVALID_DEFINITION', `${fetched.location} is not an OpenAPI or Swagger document (no "openapi"/"swagger" field)`, {
      location: fetched.location,
    });
  }
  const { default: SwaggerParser } = await import('@apidevtools/swagger-parser');
  const parser = new SwaggerParser();
  const parserOptions = { resolve: { http: { timeout: options.fetchTimeoutMs ?? 10_000 } } };
  let api: Record<string, unknown> = document;
  try {
    // Bundling rewrites every internal reference and costs seconds on large specs: only do it when another file is involved.
    if (hasExternalRef(document)) api = (await parser.bundle(fetched.location, document as never, parserOptions)) as unknown as Record<string, unknown>;
    else await parser.resolve(fetched.location, document as never, parserOptions);
  } catch (error) {
    const message = (error as Error).message;
    const code = error instanceof SyntaxError || /version|not a valid/i.test(message) ? 'INVALID_DEFINITION' : 'BAD_REF';
    throw new AgentSpacesError(code, `${fetched.location}: ${message}`, { location: fetched.location }, { cause: error });
  }
  const files = parser.$refs.paths('file').map((path) => (isAbsolute(path) ? path : resolve(path)));
  return {
    document: api,
    version: api.swagger === '2.0' ? '2.0' : String(api.openapi).startsWith('3.1') ? '3.1' : '3.0',
    location: fetched.location,
    tried: fetched.tried,
    cache: fetched.cache,
    files: fetched.isFile ? files : [],
    resolve: (ref) => parser.$refs.get(ref),
  };
}

interface FetchedText {
  text: string;
  location: string;
  tried: DiscoveryAttempt[];
  cache: LoadedSpec['cache'];
  isFile: boolean;
}

async function readSpecText(source: OpenApiSourceConfig, options: LoadOptions): Promise<FetchedText> {
  const spec = source.spec;
  if (spec !== undefined && !/^https?:\/\//i.test(spec)) {
    const file = resolve(options.rootDir, spec);
    try {
      return { text: await readFile(file, 'utf8'), location: file, tried: [], cache: 'miss', isFile: true };
    } catch (error) {
      const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
      throw new AgentSpacesError(missing ? 'SOURCE_NOT_FOUND' : 'SOURCE_UNREADABLE', `Cannot read spec ${file}: ${(error as Error).message}`, {
        file,
      }, { cause: error });
    }
  }
  const key = spec ?? `discover:${source.url ?? ''}`;
  const dir = specCacheDir(options.outDir);
  if (!options.refresh) {
    const cached = await readCachedSpec(dir, key, options.ttlMs);
    if (cached) return { text: cached.text, location: cached.url, tried: [], cache: 'fresh', isFile: false };
  }
  let fetched: { text: string; url: string; tried: DiscoveryAttempt[] };
  try {
    fetched = spec !== undefined ? await fetchSpec(spec, options) : await discover(source.url ?? '', options);
  } catch (error) {
    const stale = await readCachedSpec(dir, key, Number.POSITIVE_INFINITY);
    if (stale && !options.refresh) return { text: stale.text, location: stale.url, tried: [], cache: 'stale', isFile: false };
    throw error;
  }
  await writeCachedSpec(dir, { key, url: fetched.url, text: fetched.text, fetchedAt: Date.now() });
  return { text: fetched.text, location: fetched.url, tried: fetched.tried, cache: 'miss', isFile: false };
}

async function fetchSpec(url: string, options: LoadOptions): Promise<{ text: string; url: string; tried: DiscoveryAttempt[] }> {
  const answer = await get(url, options);
  if (!answer.ok) throw new AgentSpacesError('SOURCE_UNREADABLE', `Cannot fetch spec ${url}: ${answer.outcome}`, { url, outcome: answer.outcome });
  return { text: answer.text, url, tried: [] };
}

/** Tries {@link DISCOVERY_PATHS} in order; the first answer that parses as an OpenAPI/Swagger document wins. */
async function discover(server: string, options: LoadOptions): Promise<{ text: string; url: string; tried: DiscoveryAttempt[] }> {
  const tried: DiscoveryAttempt[] = [];
  for (const path of DISCOVERY_PATHS) {
    const url = server.replace(/\/+$/, '') + path;
    const answer = await get(url, options);
    if (!answer.ok) {
      tried.push({ url, outcome: answer.outcome });
      continue;
    }
    const document = await parseText(answer.text, url).catch(() => undefined);
    if (isRecord(document) && (typeof document.openapi === 'string' || typeof document.swagger === 'string')) {
      tried.push({ url, outcome: answer.outcome });
      return { text: answer.text, url, tried };
    }
    tried.push({ url, outcome: 'not an OpenAPI document' });
  }
  throw new AgentSpacesError(
    'SOURCE_NOT_FOUND',
    `No OpenAPI spec found at ${server} (tried ${tried.map((t) => `${t.url}: ${t.outcome}`).join('; ')})`,
    { url: server, tried },
  );
}

async function get(url: string, options: LoadOptions): Promise<{ ok: true; text: string; outcome: string } | { ok: false; outcome: string }> {
  try {
    const response = await fetch(url, {
      headers: { accept: 'application/json, application/yaml;q=0.9, */*;q=0.5' },
      signal: AbortSignal.timeout(options.fetchTimeoutMs ?? 10_000),
    });
    const text = await response.text();
    return response.ok ? { ok: true, text, outcome: String(response.status) } : { ok: false, outcome: String(response.status) };
  } catch (error) {
    const cause = (error as Error).cause;
    return { ok: false, outcome: `${(error as Error).message}${cause instanceof Error ? `: ${cause.message}` : ''}` };
  }
}

/** JSON when the text starts like JSON (fast path for large specs), YAML otherwise. */
async function parseText(text: string, location: string): Promise<unknown> {
  try {
    if (/^\s*[{[]/.test(text)) return JSON.parse(text) as unknown;
    const { parse } = await import('yaml');
    return parse(text, { maxAliasCount: 10_000 }) as unknown;
  } catch (error) {
    throw new AgentSpacesError('INVALID_JSON', `${location}: cannot parse as JSON or YAML: ${(error as Error).message}`, { location }, { cause: error });
  }
}

function hasExternalRef(value: unknown): boolean {
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (Array.isArray(node)) stack.push(...node);
    else if (isRecord(node)) {
      if (typeof node.$ref === 'string' && !node.$ref.startsWith('#')) return true;
      for (const child of Object.values(node)) if (typeof child === 'object' && child !== null) stack.push(child);
    }
  }
  return false;
}
