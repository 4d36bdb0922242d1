import { isAgentSpacesError, isErrorCode, isRecord, type CapabilityIR, type Diagnostic, type OpenApiExecutorSpec } from '@agent-spaces/capabilities';
import { identifier, kebabCase } from '../../ir/names.js';
import type { SourceContext, SourceResult } from '../types.js';
import { findOpenApiSourceProblem, type OpenApiSourceConfig } from './config.js';
import { loadSpec, type DiscoveryAttempt, type LoadedSpec } from './load.js';
import { readOperations } from './operations.js';
import { SchemaConverter } from './schema.js';

/** A {@link SourceResult} plus how the spec was obtained. */
export interface OpenApiSourceResult extends SourceResult {
  /** Where the spec came from; absent when it could not be loaded. */
  spec?: {
    /** File path or URL the spec was read from (for discovery, the one of the four paths that answered). */
    location: string;
    /** Discovery attempts in order, each with its outcome. */
    tried: DiscoveryAttempt[];
    cache: LoadedSpec['cache'];
  };
}

const DEFAULT_TTL_SECONDS = 3600;

/**
 * Reads one OpenAPI source (Swagger 2.0, OpenAPI 3.0 or 3.1; JSON or YAML; from a file, a URL or discovered from a
 * server) into one capability whose functions are its operations and whose executor is `openapi`. Never throws:
 * problems are diagnostics; operations that cannot be called (multipart, file uploads) are skipped with a warning.
 */
export async function readOpenApiSource(source: OpenApiSourceConfig, context: SourceContext): Promise<OpenApiSourceResult> {
  const result: OpenApiSourceResult = { capabilities: [], diagnostics: [], inputs: [], hostModules: {} };
  const label = typeof source.spec === 'string' ? source.spec : typeof source.url === 'string' ? source.url : `openapi:${String(source.name)}`;
  const problem = findOpenApiSourceProblem(source);
  if (problem) {
    result.diagnostics.push({
      code: 'CONFIG_INVALID',
      severity: 'error',
      file: label,
      pointer: `/${problem.key.replace(/\./g, '/')}`,
      message: `openapi source "${String(source.name)}": ${problem.key ? `"${problem.key}" ` : ''}${problem.message}`,
    });
    return result;
  }

  let spec: LoadedSpec;
  try {
    spec = await loadSpec(source, {
      rootDir: context.rootDir,
      outDir: context.outDir,
      ttlMs: (source.cacheTtl ?? DEFAULT_TTL_SECONDS) * 1000,
      ...(context.refresh ? { refresh: true } : {}),
    });
  } catch (error) {
    const code = isAgentSpacesError(error) && isErrorCode(error.code, 'compile') ? error.code : 'SOURCE_UNREADABLE';
    result.diagnostics.push({ code, severity: 'error', file: label, message: error instanceof Error ? error.message : String(error) });
    return result;
  }
  const file = /^https?:\/\//i.test(spec.location) ? spec.location : context.relative(spec.location);
  result.inputs = spec.files;
  result.spec = { location: spec.location, tried: spec.tried, cache: spec.cache };
  const report = (d: Omit<Diagnostic, 'file' | 'severity'> & { severity?: Diagnostic['severity'] }) =>
    result.diagnostics.push({ severity: 'error', ...d, file });
  if (spec.cache === 'stale') {
    report({ code: 'SOURCE_UNREADABLE', severity: 'warning', message: `${spec.location} could not be fetched; using the cached copy` });
  }

  const baseUrl = source.baseUrl ?? defaultBaseUrl(spec, source);
  if (baseUrl === undefined || !/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl)) {
    report({ code: 'INVALID_DEFINITION', pointer: '/servers', message: `cannot tell the server's base URL from ${file}: set "baseUrl" in the openapi source` });
    return result;
  }
  const converter = new SchemaConverter({ resolve: spec.resolve, report, draft2020: spec.version === '3.1' });
  const { functions, operations } = readOperations(spec, source, converter, report);
  const info = isRecord(spec.document.info) ? spec.document.info : {};
  const description = source.description ?? stringOf(info.description) ?? stringOf(info.title);
  const executor: OpenApiExecutorSpec = {
    kind: 'openapi',
    baseUrl,
    operations,
    ...(source.auth ? { auth: source.auth } : {}),
    ...(source.headers ? { headers: source.headers } : {}),
  };
  const capability: CapabilityIR = {
    id: kebabCase(source.name),
    exportName: identifier(source.name),
    sourceName: source.name,
    ...(description ? { description } : {}),
    version: stringOf(info.version) ?? '0.0.0',
    source: { kind: 'openapi', file },
    functions,
    config: {},
    executor,
  };
  result.capabilities.push(capability);
  result.specs = { [capability.id]: file };
  return result;
}

/**
 * The spec's first server (OpenAPI 3; variables filled with their defaults, relative URLs resolved against the spec
 * URL) or `schemes://host/basePath` (Swagger 2.0), else the server `url` or the spec URL's origin.
 */
function defaultBaseUrl(spec: LoadedSpec, source: OpenApiSourceConfig): string | undefined {
  const remote = /^https?:\/\//i.test(spec.location) ? spec.location : undefined;
  const document = spec.document;
  let candidate: string | undefined;
  if (spec.version === '2.0') {
    if (typeof document.host === 'string') {
      const schemes: unknown[] = Array.isArray(document.schemes) ? document.schemes : [];
      const scheme = schemes.includes('https') ? 'https' : typeof schemes[0] === 'string' ? schemes[0] : remote ? new URL(remote).protocol.slice(0, -1) : 'https';
      candidate = `${scheme}://${document.host}${typeof document.basePath === 'string' ? document.basePath : ''}`;
    } else if (typeof document.basePath === 'string') {
      candidate = document.basePath;
    }
  } else {
    const server = Array.isArray(document.servers) && isRecord(document.servers[0]) ? document.servers[0] : undefined;
    if (server && typeof server.url === 'string') {
      const variables = isRecord(server.variables) ? server.variables : {};
      candidate = server.url.replace(/\{([^}]+)\}/g, (whole, name: string) => {
        const variable = variables[name];
        return isRecord(variable) && typeof variable.default === 'string' ? variable.default : whole;
      });
    }
  }
  const base = source.url ?? remote;
  if (candidate !== undefined) {
    if (/^https?:\/\//i.test(candidate)) return candidate;
    return base && URL.canParse(candidate, base) ? new URL(candidate, base).href : undefined;
  }
  return source.url ?? (remote ? new URL(remote).origin : undefined);
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() !== '' ? value : typeof value === 'number' ? String(value) : undefined;
}
