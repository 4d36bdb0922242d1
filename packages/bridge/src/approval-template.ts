const PLACEHOLDER = /\{([^{}\s]+)\}/g;

/**
 * Turns a JSON definition's approval template (`"Delete file: {path}?"`) into a message function. A placeholder takes
 * the param's own value (strings as they are, anything else as JSON); a placeholder without a param stays as written.
 */
export function approvalTemplate(template: string): (params: Record<string, unknown>) => string {
  return (params) =>
    template.replace(PLACEHOLDER, (placeholder, name: string) =>
      Object.hasOwn(params, name) ? formatValue(params[name]) : placeholder,
    );
}

function formatValue(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}
