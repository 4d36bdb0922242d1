import { escapePointer, type OpenApiAuth, type OpenApiExecutorSpec, type OpenApiOperationSpec, type OpenApiParamLocation, type OpenApiParamSpec } from '@agent-spaces/capabilities';

/** Reports a malformed field: `pointer` is relative to the executor object (`/operations/getTodo/method`). */
export type SpecFailure = (pointer: string, problem: string) => never;

const LOCATIONS = new Set<string>(['path', 'query', 'header', 'cookie']);

/**
 * Checks the `executor` object of an `openapi` capability's `meta.json` (untrusted: the file can be edited) and returns
 * it typed; `fail` is called with the JSON pointer of the first bad field.
 */
export function readOpenApiExecutorSpec(raw: Record<string, unknown>, fail: SpecFailure): OpenApiExecutorSpec {
  const baseUrl = raw.baseUrl;
  if (typeof baseUrl !== 'string' || !/^https?:\/\//i.test(baseUrl) || !URL.canParse(baseUrl)) fail('/baseUrl', 'must be an http(s) URL');
  const operations = record(raw.operations, '/operations', fail);
  const spec: OpenApiExecutorSpec = {
    kind: 'openapi',
    baseUrl,
    operations: Object.fromEntries(Object.entries(operations).map(([name, op]) => [name, operation(op, `/operations/${escapePointer(name)}`, fail)])),
  };
  if (raw.auth !== undefined) spec.auth = auth(raw.auth, fail);
  if (raw.headers !== undefined) spec.headers = strings(raw.headers, '/headers', fail);
  return spec;
}

function operation(raw: unknown, at: string, fail: SpecFailure): OpenApiOperationSpec {
  const op = record(raw, at, fail);
  const method = string(op.method, `${at}/method`, fail);
  const path = string(op.path, `${at}/path`, fail);
  if (!path.startsWith('/')) fail(`${at}/path`, 'must start with /');
  if (!Array.isArray(op.params)) fail(`${at}/params`, 'must be an array');
  const params = op.params.map((p, i) => param(p, `${at}/params/${i}`, fail));
  const result: OpenApiOperationSpec = { method, path, params };
  if (op.body !== undefined) {
    const body = record(op.body, `${at}/body`, fail);
    if (typeof body.required !== 'boolean') fail(`${at}/body/required`, 'must be a boolean');
    if (body.mode === 'flat') result.body = { mode: 'flat', required: body.required };
    else if (body.mode === 'field') result.body = { mode: 'field', key: string(body.key, `${at}/body/key`, fail), required: body.required };
    else fail(`${at}/body/mode`, 'must be "flat" or "field"');
  }
  return result;
}

function param(raw: unknown, at: string, fail: SpecFailure): OpenApiParamSpec {
  const p = record(raw, at, fail);
  if (!LOCATIONS.has(p.in as string)) fail(`${at}/in`, 'must be path, query, header or cookie');
  const result: OpenApiParamSpec = { key: string(p.key, `${at}/key`, fail), name: string(p.name, `${at}/name`, fail), in: p.in as OpenApiParamLocation };
  if (p.style !== undefined) result.style = string(p.style, `${at}/style`, fail);
  if (p.explode !== undefined) {
    if (typeof p.explode !== 'boolean') fail(`${at}/explode`, 'must be a boolean');
    result.explode = p.explode;
  }
  return result;
}

function auth(raw: unknown, fail: SpecFailure): OpenApiAuth {
  const a = record(raw, '/auth', fail);
  switch (a.type) {
    case 'bearer':
      return { type: 'bearer', token: string(a.token, '/auth/token', fail) };
    case 'apiKey':
      if (a.in !== 'header' && a.in !== 'query') fail('/auth/in', 'must be "header" or "query"');
      return { type: 'apiKey', in: a.in, name: string(a.name, '/auth/name', fail), value: string(a.value, '/auth/value', fail) };
    case 'basic':
      return { type: 'basic', username: string(a.username, '/auth/username', fail), password: string(a.password, '/auth/password', fail) };
    default:
      return fail('/auth/type', 'must be "bearer", "apiKey" or "basic"');
  }
}

function record(value: unknown, at: string, fail: SpecFailure): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) fail(at, 'must be an object');
  return value as Record<string, unknown>;
}

function string(value: unknown, at: string, fail: SpecFailure): string {
  if (typeof value !== 'string' || value === '') fail(at, 'must be a non-empty string');
  return value;
}

function strings(value: unknown, at: string, fail: SpecFailure): Record<string, string> {
  const map = record(value, at, fail);
  for (const [name, v] of Object.entries(map)) string(v, `${at}/${escapePointer(name)}`, fail);
  return map as Record<string, string>;
}
