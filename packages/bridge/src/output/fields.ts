import { AgentSpacesError, escapePointer } from '@agent-spaces/capabilities';

/**
 * Shape checks of the fields of one JSON file the build wrote (untrusted: it can be edited), each failing with
 * `INVALID_DEFINITION` naming the file and the JSON pointer of the field (`meta.json: /executor/url must be …`).
 */
export class FieldReader {
  constructor(readonly file: string) {}

  /** Throws `INVALID_DEFINITION`: the field at `pointer` (`''` for the root) has `problem`. */
  fail(pointer: string, problem: string): never {
    throw new AgentSpacesError('INVALID_DEFINITION', `${this.file}: ${pointer || '(root)'} ${problem}`, { file: this.file, pointer });
  }

  /** `value` as a JSON object (not an array, not null). */
  object(value: unknown, pointer: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(pointer, 'must be an object');
    return value as Record<string, unknown>;
  }

  /** `value` as an array. */
  array(value: unknown, pointer: string): unknown[] {
    if (!Array.isArray(value)) this.fail(pointer, 'must be an array');
    return value;
  }

  /** `value` as a non-empty string (a name, an id, a path). */
  string(value: unknown, pointer: string): string {
    if (typeof value !== 'string' || value === '') this.fail(pointer, 'must be a non-empty string');
    return value;
  }

  /** `value` as a non-empty string, or undefined when absent. */
  optionalString(value: unknown, pointer: string): string | undefined {
    return value === undefined ? undefined : this.string(value, pointer);
  }

  /** `value` as a string, empty or not (a description, a version). */
  text(value: unknown, pointer: string): string {
    if (typeof value !== 'string') this.fail(pointer, 'must be a string');
    return value;
  }

  /** `value` as a boolean, or undefined when absent. */
  optionalBoolean(value: unknown, pointer: string): boolean | undefined {
    if (value !== undefined && typeof value !== 'boolean') this.fail(pointer, 'must be a boolean');
    return value as boolean | undefined;
  }

  /** `value` as an object whose values are all strings. */
  strings(value: unknown, pointer: string): Record<string, string> {
    const record = this.object(value, pointer);
    for (const [key, item] of Object.entries(record)) if (typeof item !== 'string') this.fail(`${pointer}/${escapePointer(key)}`, 'must be a string');
    return record as Record<string, string>;
  }
}

