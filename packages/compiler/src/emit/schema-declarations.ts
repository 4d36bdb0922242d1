/** The type of a JSON Schema as one line of declarations, for code that must keep its line numbers. */
import type { Diagnostic } from '@agent-spaces/capabilities';
import { oneLine } from './one-line.js';
import { SchemaTypes } from './schema-to-ts.js';
import { NameAllocator, typeName } from '../ir/names.js';

/** Declarations of the type of values matching a schema, and the name of that type. */
export interface SchemaDeclarations {
  /** The name of the schema's type (`__Input`). */
  type: string;
  /** `export interface __Input { ... }` and every declaration it needs, on one line, without JSDoc. */
  text: string;
  /** Problems found; the type there is `unknown`. */
  diagnostics: Diagnostic[];
}

/** Gives every name a prefix, so declarations put into someone's code do not clash with its names. */
class PrefixedNames extends NameAllocator {
  readonly #prefix: string;

  constructor(prefix: string) {
    super();
    this.#prefix = prefix;
  }

  override allocate(base: string): string {
    return super.allocate(this.#prefix + base);
  }
}

/**
 * Declares the type of values matching `schema` as `<prefix><name>`, with the named types it needs (`$ref` targets,
 * titled objects), every name starting with `prefix`. The same converter as `index.d.ts`, so no schema text can break
 * out of the declarations: literals, keys and comments are escaped, names are sanitized. `file` names the schema's
 * origin in diagnostics.
 * @example schemaDeclarations({ type: 'object', properties: { n: { type: 'integer' } } }, 'Input', '__', 'tool')
 * // → { type: '__Input', text: 'export interface __Input { n?: number }', diagnostics: [] }
 */
export function schemaDeclarations(schema: unknown, name: string, prefix: string, file: string): SchemaDeclarations {
  const types = new SchemaTypes(file, new PrefixedNames(prefix), '');
  const type = types.declare({ schema, pointer: '' }, typeName(name), []);
  return { type, text: oneLine(types.declarations.map((d) => d.text).join('')), diagnostics: types.diagnostics };
}
