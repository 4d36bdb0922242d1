import { jsonText } from '@agent-spaces/capabilities';

/**
 * JSON for `--json` output, indented: `jsonText` keeps what JSON.stringify would lose or fail on (Map and Set as
 * `{ "$map": [[k, v]] }` / `{ "$set": [...] }`, bigint as a string, typed arrays as arrays, `undefined` as `null`,
 * cycles and repeated objects as `{ "$circular" }` / `{ "$repeat" }` pointers) and escapes characters a terminal would
 * act on.
 */
export function toJson(value: unknown): string {
  return jsonText(value, 2);
}
