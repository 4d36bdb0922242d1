/** Where in a JSON Schema the problem lies that keeps ajv from compiling it, so a build can name the field. */
import { escapePointer } from '@agent-spaces/capabilities';

/** A params schema ajv cannot compile: the function, where in the schema, and ajv's message. */
export interface SchemaProblem {
  /** The function's generated name. */
  function: string;
  /** JSON pointer into the parameters schema of the deepest subschema at fault (`/properties/query`; `''` for the root). */
  pointer: string;
  message: string;
}

const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_KEYWORDS = [
  'items', 'additionalItems', 'additionalProperties', 'unevaluatedItems', 'unevaluatedProperties', 'propertyNames',
  'contains', 'not', 'if', 'then', 'else',
];
const LIST_KEYWORDS = ['items', 'prefixItems', 'anyOf', 'oneOf', 'allOf'];

/**
 * The pointer of the deepest subschema of `schema` that fails on its own with the same message as the whole (`error`,
 * what compiling `schema` threw): each subschema is compiled with `compile`, carrying the root's `definitions` and
 * `$defs` so local `$ref`s still resolve. `''` when no subschema alone fails that way.
 */
export function locateSchemaProblem(schema: unknown, error: unknown, compile: (schema: object) => unknown): { pointer: string; message: string } {
  const message = error instanceof Error ? error.message : String(error);
  const root = isObject(schema) ? schema : {};
  const shared = Object.fromEntries(['definitions', '$defs', '$schema'].filter((key) => key in root).map((key) => [key, root[key]]));
  const failsAlike = (sub: Record<string, unknown>): boolean => {
    try {
      compile({ ...shared, ...sub });
      return false;
    } catch (subError) {
      return (subError instanceof Error ? subError.message : String(subError)) === message;
    }
  };
  let pointer = '';
  let node = root;
  for (let depth = 0; depth < 64; depth++) {
    const next = children(node).find(([, sub]) => failsAlike(sub));
    if (!next) break;
    pointer += next[0];
    node = next[1];
  }
  return { pointer, message };
}

/** The subschemas directly under `node`, with their pointer segments (`/properties/q`). */
function children(node: Record<string, unknown>): [string, Record<string, unknown>][] {
  const found: [string, Record<string, unknown>][] = [];
  const segment = (...parts: (string | number)[]) => parts.map((part) => `/${escapePointer(String(part))}`).join('');
  for (const keyword of MAP_KEYWORDS) {
    const map = node[keyword];
    if (isObject(map)) for (const [key, sub] of Object.entries(map)) if (isObject(sub)) found.push([segment(keyword, key), sub]);
  }
  for (const keyword of SCHEMA_KEYWORDS) {
    const sub = node[keyword];
    if (isObject(sub)) found.push([segment(keyword), sub]);
  }
  for (const keyword of LIST_KEYWORDS) {
    const list = node[keyword];
    if (Array.isArray(list)) list.forEach((sub, index) => isObject(sub) && found.push([segment(keyword, index), sub]));
  }
  return found;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
