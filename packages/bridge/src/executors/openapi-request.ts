import {
  AgentSpacesError,
  expandPlaceholders,
  expandUserPlaceholders,
  type OpenApiAuth,
  type OpenApiExecutorSpec,
  type OpenApiOperationSpec,
  type OpenApiParamSpec,
  type PlaceholderEnv,
} from '@agent-spaces/capabilities';

/** The host environment secrets are read from (`process.env` by default). */
export type SecretEnv = PlaceholderEnv;

/** A request ready for `fetch`, plus the secret values it carries (value → variable name) for redaction. */
export interface PreparedRequest {
  url: URL;
  init: { method: string; headers: Headers; body?: string };
  secrets: ReadonlyMap<string, string>;
}

/** Shorter secret values are not redacted: replacing every `1` in a body would hide more than it protects. */
const MIN_REDACTED_LENGTH = 4;

/**
 * Builds the request of one call from its operation and params: path parameters encoded into the template,
 * query, header and cookie parameters serialized by their style, the JSON body, the spec's headers and the auth,
 * with every `${VAR}` resolved from `env` and every `${user:NAME}` from `user` (the calling principal's secrets, all
 * resolved already). Throws `INVALID_PARAMS` for a missing path parameter and `HANDLER_ERROR`
 * (`data.kind: 'secret'`) for an unset variable.
 */
export function prepareRequest(
  spec: OpenApiExecutorSpec,
  operation: OpenApiOperationSpec,
  params: Record<string, unknown>,
  env: SecretEnv,
  user: ReadonlyMap<string, string> = new Map(),
): PreparedRequest {
  const secrets = new Map<string, string>();
  const fill = (template: string, field: string): string =>
    expandUserPlaceholders(
      template,
      (segment) => resolveSecrets(segment, env, secrets, field),
      (name) => {
        const value = user.get(name)!;
        secrets.set(value, `user:${name}`);
        return value;
      },
    );

  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const param = operation.params.find((p) => p.in === 'path' && p.name === name);
    const value = param ? params[param.key] : undefined;
    if (value === undefined || value === null) {
      throw new AgentSpacesError('INVALID_PARAMS', `Missing path parameter "${param?.key ?? name}" for ${operation.method} ${operation.path}`, {
        param: param?.key ?? name,
      });
    }
    return encodeURIComponent(scalarList(value).join(','));
  });
  const url = new URL(spec.baseUrl.replace(/\/+$/, '') + path);

  const headers = new Headers({ accept: 'application/json' });
  for (const [name, value] of Object.entries(spec.headers ?? {})) headers.set(name, fill(value, `headers.${name}`));
  const cookies: string[] = [];
  for (const param of operation.params) {
    const value = params[param.key];
    if (value === undefined || value === null) continue;
    switch (param.in) {
      case 'path':
        break;
      case 'query':
        for (const [name, text] of queryPairs(param, value)) url.searchParams.append(name, text);
        break;
      case 'header':
        headers.set(param.name, scalarList(value).join(','));
        break;
      case 'cookie':
        cookies.push(`${param.name}=${encodeURIComponent(scalarList(value).join(','))}`);
        break;
    }
  }
  if (cookies.length > 0) headers.set('cookie', cookies.join('; '));
  if (spec.auth) applyAuth(spec.auth, url, headers, fill, secrets);

  const init: PreparedRequest['init'] = { method: operation.method.toUpperCase(), headers };
  const body = requestBody(operation, params);
  if (body !== undefined) {
    headers.set('content-type', 'application/json');
    init.body = JSON.stringify(body);
  }
  return { url, init, secrets };
}

/** Replaces every known secret value in `text` with `[REDACTED:VAR]`. */
export function redact(text: string, secrets: ReadonlyMap<string, string>): string {
  let out = text;
  for (const [value, name] of secrets) {
    if (value.length >= MIN_REDACTED_LENGTH) out = out.split(value).join(`[REDACTED:${name}]`);
  }
  return out;
}

function resolveSecrets(template: string, env: SecretEnv, secrets: Map<string, string>, field: string): string {
  return expandPlaceholders(
    template,
    env,
    (name) => {
      throw new AgentSpacesError('HANDLER_ERROR', `Environment variable ${name} (used by ${field}) is not set`, {
        kind: 'secret',
        variable: name,
        field,
      });
    },
    (name, value) => secrets.set(value, name),
  );
}

function applyAuth(
  auth: OpenApiAuth,
  url: URL,
  headers: Headers,
  fill: (template: string, field: string) => string,
  secrets: Map<string, string>,
): void {
  switch (auth.type) {
    case 'bearer':
      headers.set('authorization', `Bearer ${fill(auth.token, 'auth.token')}`);
      return;
    case 'apiKey': {
      const value = fill(auth.value, 'auth.value');
      if (auth.in === 'header') headers.set(auth.name, value);
      else url.searchParams.set(auth.name, value);
      return;
    }
    case 'basic': {
      const encoded = Buffer.from(`${fill(auth.username, 'auth.username')}:${fill(auth.password, 'auth.password')}`).toString('base64');
      // A server echoing the header would leak the pair in base64; redact that form too.
      secrets.set(encoded, 'BASIC_AUTH');
      headers.set('authorization', `Basic ${encoded}`);
      return;
    }
  }
}

function requestBody(operation: OpenApiOperationSpec, params: Record<string, unknown>): unknown {
  const body = operation.body;
  if (!body) return undefined;
  if (body.mode === 'field') return params[body.key] ?? (body.required ? {} : undefined);
  const paramKeys = new Set(operation.params.map((p) => p.key));
  const fields = Object.fromEntries(Object.entries(params).filter(([key, value]) => !paramKeys.has(key) && value !== undefined));
  return Object.keys(fields).length > 0 || body.required ? fields : undefined;
}

/** Query name/value pairs of one parameter, per OpenAPI `style`/`explode` (form + explode by default). */
function queryPairs(param: OpenApiParamSpec, value: unknown): Array<[string, string]> {
  const explode = param.explode ?? true;
  if (Array.isArray(value)) {
    const items = value.map(scalar);
    if (explode) return items.map((item) => [param.name, item]);
    const separator = param.style === 'pipeDelimited' ? '|' : param.style === 'spaceDelimited' ? ' ' : ',';
    return [[param.name, items.join(separator)]];
  }
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value).filter(([, v]) => v !== undefined && v !== null);
    if (param.style === 'deepObject') return entries.map(([k, v]) => [`${param.name}[${k}]`, scalar(v)]);
    if (explode) return entries.map(([k, v]) => [k, scalar(v)]);
    return [[param.name, entries.flatMap(([k, v]) => [k, scalar(v)]).join(',')]];
  }
  return [[param.name, scalar(value)]];
}

function scalarList(value: unknown): string[] {
  if (Array.isArray(value)) return value.map(scalar);
  if (typeof value === 'object' && value !== null) return Object.entries(value).flatMap(([k, v]) => [k, scalar(v)]);
  return [scalar(value)];
}

function scalar(value: unknown): string {
  return typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
}
