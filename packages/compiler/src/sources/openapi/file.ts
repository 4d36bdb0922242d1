import { readFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, resolve } from 'node:path';
import { isRecord } from '@agent-spaces/capabilities';
import type { SourceContext, SourceResult } from '../types.js';
import { parseActionServers, type OpenApiSourceConfig } from './config.js';
import { readOpenApiSource } from './source.js';

/** File names read by {@link readOpenApiSourceFile}: `<name>.openapi.json|yaml|yml` and seed 003's `action_servers.json`. */
const OPENAPI_SOURCE_FILE = /(?:\.openapi\.(?:json|ya?ml)|(?:^|[\\/])action_servers\.json)$/i;

/**
 * Reads an OpenAPI source file: `<name>.openapi.json` (or `.yaml`) holding one {@link OpenApiSourceConfig} (its `name`
 * defaults to `<name>`, a relative `spec` path is relative to this file), or seed 003's `action_servers.json` with one
 * source per server. Each capability's source file is this file, so builds track it like any other source;
 * diagnostics of a spec point into the spec. Never throws.
 */
export async function readOpenApiSourceFile(file: string, context: SourceContext): Promise<SourceResult> {
  const shown = context.relative(file);
  const result: SourceResult = { capabilities: [], diagnostics: [], inputs: [file], hostModules: {} };
  let value: unknown;
  try {
    const text = await readFile(file, 'utf8');
    value = /\.ya?ml$/i.test(file) ? (await import('yaml')).parse(text) : JSON.parse(text);
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    result.diagnostics.push({ code: missing ? 'SOURCE_NOT_FOUND' : 'INVALID_JSON', severity: 'error', file: shown, message: `${shown}: ${(error as Error).message}` });
    return result;
  }

  let sources: OpenApiSourceConfig[];
  if (isRecord(value) && value.servers !== undefined) {
    const servers = parseActionServers(value, shown);
    result.diagnostics.push(...servers.diagnostics);
    sources = servers.sources;
  } else if (isRecord(value)) {
    const spec = typeof value.spec === 'string' && !/^https?:\/\//i.test(value.spec) && !isAbsolute(value.spec) ? resolve(dirname(file), value.spec) : value.spec;
    const name = basename(file).replace(OPENAPI_SOURCE_FILE, '') || 'openapi';
    sources = [{ name, ...value, ...(spec !== undefined ? { spec } : {}) } as OpenApiSourceConfig];
  } else {
    result.diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'error', file: shown, message: `${shown}: must hold an object (an openapi source)` });
    return result;
  }

  for (const source of sources) {
    const read = await readOpenApiSource(source, context);
    result.diagnostics.push(...read.diagnostics);
    result.inputs.push(...read.inputs);
    for (const capability of read.capabilities) result.capabilities.push({ ...capability, source: { kind: 'openapi', file: shown } });
    if (read.specs) result.specs = { ...result.specs, ...read.specs };
  }
  return result;
}
