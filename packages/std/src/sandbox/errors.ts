/** Codes of the errors the in-sandbox std helpers throw (host-backed functions throw the runtime's `CapabilityError`). */
export type StdErrorCode = 'INVALID_JSON' | 'INVALID_CSV' | 'INVALID_TIME' | 'INVALID_ARGUMENT';

/** An error of `json`, `csv` or `time`: a stable `code`, a message saying where, and optional details in `data`. */
export class StdError extends Error {
  readonly code: StdErrorCode;
  readonly data: Record<string, unknown> | undefined;

  constructor(code: StdErrorCode, message: string, data?: Record<string, unknown>) {
    super(message);
    this.name = 'StdError';
    this.code = code;
    this.data = data;
  }
}

/** A short description of a value's type for error messages (`array`, `null`, `string`, ...). */
export function describeType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  return typeof value;
}
