/**
 * JSON Schema → TypeScript type text, written by hand for speed. Text from the schema reaches the output only
 * through `escape.ts` (literals, keys, comments) and `names.ts` (type names). Problems become diagnostics with the
 * JSON pointer of the offending keyword, and the type there becomes `unknown` — never silently.
 */
import { isRecord, type CompileErrorCode, type Diagnostic } from '@agent-spaces/capabilities';
import { jsDoc, literalType, propertyKey } from './escape.js';
import { schemaDocLines } from './schema-docs.js';
import { type NameAllocator, typeName } from '../ir/names.js';

/** A schema document `$ref`s resolve against (`#` is its root): a function's parameters or its result. */
export interface SchemaRoot {
  schema: unknown;
  /** JSON pointer of the root inside the source file (`/functions/0/parameters`). */
  pointer: string;
}

/** Type text and how tightly it binds: `A | B` must be wrapped before `[]` or `&`. */
interface TypeText {
  text: string;
  /** 0: atom (`string`, `Trip`, `{ ... }`), 1: intersection, 2: union. */
  prec: 0 | 1 | 2;
  /** The text is one object literal type, so a declaration of it can be an interface. */
  object?: boolean;
}

/** Where a schema sits: its document and its path inside it. */
interface Location {
  root: RootState;
  path: string;
}

interface RootState extends SchemaRoot {
  id: number;
  /** Type name that `#` refers to, once the root is declared. */
  name?: string;
}

type SchemaObject = Record<string, unknown>;

const TYPE_NAMES = new Set(['string', 'number', 'integer', 'boolean', 'null', 'array', 'object']);
const STEP = '  ';
const UNKNOWN: TypeText = { text: 'unknown', prec: 0 };
const NAMEABLE_TITLE = /^[A-Z][A-Za-z0-9_]*$/;
/**
 * Names of the declarations a schema is directly part of (no object, array or tuple in between): a reference to
 * one of them would define a type alias as itself. Structure resets it to empty.
 */
type Chain = ReadonlySet<string>;
const NO_CHAIN: Chain = new Set();

function escapePointerSegment(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

function union(members: TypeText[]): TypeText {
  const texts = [...new Set(members.map((m) => m.text))];
  if (texts.length === 0) return { text: 'never', prec: 0 };
  if (texts.includes('unknown')) return UNKNOWN;
  if (texts.length === 1) return members.find((m) => m.text === texts[0])!;
  return { text: texts.join(' | '), prec: 2 };
}

function intersection(members: TypeText[]): TypeText {
  const parts = members.filter((m) => m.text !== 'unknown');
  if (parts.length === 0) return UNKNOWN;
  if (parts.length === 1) return parts[0]!;
  return { text: parts.map((m) => (m.prec === 2 ? `(${m.text})` : m.text)).join(' & '), prec: 1 };
}

/** A named declaration the converted schemas need. */
export interface TypeDeclaration {
  name: string;
  /** `export interface <name> ...` or `export type <name> = ...;` with its JSDoc, indented, ending in a line break. */
  text: string;
  /** The object type an interface declares (`{ ... }`); absent for a type alias. */
  body?: string;
}

/**
 * Converts the schemas of one generated module, collecting the named declarations they need (`$ref` targets,
 * titled objects) and the diagnostics they raise. One instance per module, so names stay unique in it.
 */
export class SchemaTypes {
  /** Named declarations in the order they were first needed. */
  readonly declarations: TypeDeclaration[] = [];
  /** Problems found, with pointers into `file`. */
  readonly diagnostics: Diagnostic[] = [];
  readonly #file: string;
  readonly #names: NameAllocator;
  readonly #indent: string;
  readonly #declared = new Map<string, string>();
  #nextRoot = 0;

  /** `file` names the source in diagnostics; `indent` is the indentation of top-level declarations. */
  constructor(file: string, names: NameAllocator, indent: string) {
    this.#file = file;
    this.#names = names;
    this.#indent = indent;
  }

  /**
   * Declares `root.schema` as the exported type `baseName` (made unique) with JSDoc `doc`, as an interface when
   * it is an object type; `#` inside it refers to this name. Returns the name.
   */
  declare(root: SchemaRoot, baseName: string, doc: readonly string[]): string {
    const state = this.#root(root);
    const name = this.#names.allocate(baseName);
    state.name = name;
    this.#declareWith(name, doc, () => this.#convert(root.schema, { root: state, path: '' }, this.#indent, new Set([name]), false));
    return name;
  }

  /** Type text of `root.schema`, written inline where it is used at `indent`. */
  inline(root: SchemaRoot, indent: string): string {
    return this.#convert(root.schema, { root: this.#root(root), path: '' }, indent, NO_CHAIN, true).text;
  }

  /**
   * Type text of `root.schema`, declared as the exported type `baseName` (or its identifier-like `title`) when it
   * is an object type, an array of objects (`baseName` + `Item`) or spans several lines, else inline.
   * Used for function results.
   */
  declareIfObject(root: SchemaRoot, baseName: string, indent: string): string {
    const { schema } = root;
    if (!isRecord(schema) || schema.$ref !== undefined) return this.inline(root, indent);
    const title = typeof schema.title === 'string' && NAMEABLE_TITLE.test(schema.title) ? schema.title : undefined;
    // `#` inside the schema needs a name to refer to.
    const selfReferring = JSON.stringify(schema).includes('"$ref":"#"');
    if (title || selfReferring || this.#isPlainObject(schema)) {
      return this.declare(root, typeName(title ?? baseName), schemaDocLines(schema));
    }
    if (schema.type === 'array' && isRecord(schema.items) && this.#isPlainObject(schema.items) && schema.items.title === undefined) {
      const state = this.#root(root);
      const item = this.#names.allocate(`${typeName(baseName)}Item`);
      const at = { root: state, path: '/items' };
      this.#declareWith(item, schemaDocLines(schema.items), () =>
        this.#convert(schema.items, at, this.#indent, new Set([item]), false),
      );
      return `${item}[]`;
    }
    const text = this.inline(root, indent);
    // A multi-line type (a union of object types) reads better, and indents right everywhere, under a name.
    return text.includes('\n') ? this.declare(root, typeName(baseName), schemaDocLines(schema)) : text;
  }

  #isPlainObject(schema: SchemaObject): boolean {
    const composed = ['anyOf', 'oneOf', 'allOf', 'enum', 'const', '$ref'].some((k) => schema[k] !== undefined);
    return !composed && (schema.type === 'object' || (schema.type === undefined && isRecord(schema.properties)));
  }

  #root(root: SchemaRoot): RootState {
    return { ...root, id: this.#nextRoot++ };
  }

  #declareWith(name: string, doc: readonly string[], body: () => TypeText): void {
    const slot = this.declarations.push({ name, text: '' }) - 1;
    const type = body();
    const head = jsDoc(doc, this.#indent);
    this.declarations[slot] = type.object
      ? { name, text: `${head}${this.#indent}export interface ${name} ${type.text}\n`, body: type.text }
      : { name, text: `${head}${this.#indent}export type ${name} = ${type.text};\n` };
  }

  #report(code: CompileErrorCode, at: Location, message: string): TypeText {
    const pointer = at.root.pointer + at.path;
    const duplicate = this.diagnostics.some((d) => d.code === code && d.pointer === pointer && d.message === message);
    if (!duplicate) this.diagnostics.push({ code, severity: 'error', file: this.#file, pointer, message });
    return UNKNOWN;
  }

  /** `nameByTitle`: a plain object schema with an identifier-like `title` becomes a declaration of that name. */
  #convert(schema: unknown, at: Location, indent: string, chain: Chain, nameByTitle: boolean): TypeText {
    if (schema === undefined || schema === true) return UNKNOWN;
    if (schema === false) return { text: 'never', prec: 0 };
    if (!isRecord(schema)) return this.#report('INVALID_DEFINITION', at, 'a schema must be an object or a boolean');
    const title = schema.title;
    if (nameByTitle && typeof title === 'string' && NAMEABLE_TITLE.test(title) && this.#isPlainObject(schema)) {
      return { text: this.#namedType(title, `json:${JSON.stringify(schema)}`, schema, at, chain), prec: 0 };
    }
    const parts: TypeText[] = [];
    if (schema.$ref !== undefined) parts.push(this.#ref(schema.$ref, this.#child(at, '$ref'), chain));
    const base = this.#base(schema, at, indent);
    if (base) parts.push(base);
    for (const keyword of ['anyOf', 'oneOf'] as const) {
      const members = this.#list(schema, keyword, at);
      if (members) parts.push(union(members.map((m, i) => this.#convert(m, this.#child(at, keyword, i), indent, chain, true))));
    }
    const all = this.#list(schema, 'allOf', at);
    if (all) parts.push(...all.map((m, i) => this.#convert(m, this.#child(at, 'allOf', i), indent, chain, true)));
    const type = intersection(parts);
    return schema.nullable === true ? union([type, { text: 'null', prec: 0 }]) : type;
  }

  #child(at: Location, ...segments: Array<string | number>): Location {
    return { root: at.root, path: `${at.path}/${segments.map((s) => escapePointerSegment(String(s))).join('/')}` };
  }

  #list(schema: SchemaObject, keyword: string, at: Location): unknown[] | undefined {
    const value = schema[keyword];
    if (value === undefined) return undefined;
    if (Array.isArray(value)) return value;
    this.#report('INVALID_DEFINITION', this.#child(at, keyword), `${keyword} must be an array`);
    return undefined;
  }

  /** The type given by `enum`, `const` or `type` (or implied by object/array keywords); undefined when none. */
  #base(schema: SchemaObject, at: Location, indent: string): TypeText | undefined {
    if (schema.enum !== undefined) {
      const values = this.#list(schema, 'enum', at);
      return values ? union(values.map((v) => ({ text: literalType(v), prec: 0 }))) : UNKNOWN;
    }
    if ('const' in schema) return { text: literalType(schema.const), prec: 0 };
    const type = schema.type;
    if (type === undefined) {
      const objectLike = ['properties', 'additionalProperties', 'patternProperties', 'required'].some(
        (k) => schema[k] !== undefined && !(k === 'required' && typeof schema[k] === 'boolean'),
      );
      if (objectLike) return this.#object(schema, at, indent);
      if (schema.items !== undefined || schema.prefixItems !== undefined) return this.#array(schema, at, indent);
      return undefined;
    }
    if (typeof type === 'string') return this.#typeNamed(type, schema, at, this.#child(at, 'type'), indent);
    if (Array.isArray(type)) {
      return union(type.map((t, i) => this.#typeNamed(t, schema, at, this.#child(at, 'type', i), indent)));
    }
    return this.#report('INVALID_DEFINITION', this.#child(at, 'type'), 'type must be a string or an array of strings');
  }

  /** The type for one type name of the schema at `at`; `typeAt` locates the name for diagnostics. */
  #typeNamed(type: unknown, schema: SchemaObject, at: Location, typeAt: Location, indent: string): TypeText {
    if (typeof type !== 'string' || !TYPE_NAMES.has(type)) {
      return this.#report('UNKNOWN_TYPE', typeAt, `unknown type ${JSON.stringify(type)} (expected one of ${[...TYPE_NAMES].join(', ')})`);
    }
    switch (type) {
      case 'integer':
        return { text: 'number', prec: 0 };
      case 'array':
        return this.#array(schema, at, indent);
      case 'object':
        return this.#object(schema, at, indent);
      default:
        return { text: type, prec: 0 };
    }
  }

  #object(schema: SchemaObject, at: Location, indent: string): TypeText {
    const inner = indent + STEP;
    let properties: SchemaObject = {};
    if (schema.properties !== undefined) {
      if (isRecord(schema.properties)) properties = schema.properties;
      else this.#report('INVALID_DEFINITION', this.#child(at, 'properties'), 'properties must be an object');
    }
    const required = new Set<string>();
    if (Array.isArray(schema.required) && schema.required.every((r) => typeof r === 'string')) {
      for (const name of schema.required) required.add(name);
    } else if (schema.required !== undefined && typeof schema.required !== 'boolean') {
      this.#report('INVALID_DEFINITION', this.#child(at, 'required'), 'required must be an array of strings');
    }
    const members: string[] = [];
    const valueTypes: TypeText[] = [];
    for (const [key, property] of Object.entries(properties)) {
      // Draft 3 marks a required property on the property itself (`"required": true`), as the seed does.
      const optional = !required.has(key) && !(isRecord(property) && property.required === true);
      const type = this.#convert(property, this.#child(at, 'properties', key), inner, NO_CHAIN, true);
      valueTypes.push(type, ...(optional ? [{ text: 'undefined', prec: 0 } as const] : []));
      members.push(`${jsDoc(schemaDocLines(property), inner)}${inner}${propertyKey(key)}${optional ? '?' : ''}: ${type.text};\n`);
    }
    for (const key of required) {
      if (Object.hasOwn(properties, key)) continue;
      members.push(`${inner}${propertyKey(key)}: unknown;\n`);
      valueTypes.push(UNKNOWN);
    }
    const index = this.#indexSignature(schema, at, inner);
    if (index) {
      const type = union([index.type, ...valueTypes]);
      members.push(`${jsDoc(index.doc, inner)}${inner}[key: string]: ${type.text};\n`);
    }
    if (members.length === 0) {
      return { text: schema.additionalProperties === false ? 'Record<string, never>' : 'Record<string, unknown>', prec: 0 };
    }
    return { text: `{\n${members.join('')}${indent}}`, prec: 0, object: true };
  }

  #indexSignature(schema: SchemaObject, at: Location, indent: string): { type: TypeText; doc: string[] } | undefined {
    const types: TypeText[] = [];
    const doc: string[] = [];
    const patterns = schema.patternProperties;
    if (isRecord(patterns)) {
      for (const [pattern, value] of Object.entries(patterns)) {
        types.push(this.#convert(value, this.#child(at, 'patternProperties', pattern), indent, NO_CHAIN, true));
        doc.push(`Keys matching /${pattern}/`);
      }
    } else if (patterns !== undefined) {
      this.#report('INVALID_DEFINITION', this.#child(at, 'patternProperties'), 'patternProperties must be an object');
    }
    const additional = schema.additionalProperties;
    if (additional !== undefined && additional !== false) {
      types.push(this.#convert(additional, this.#child(at, 'additionalProperties'), indent, NO_CHAIN, true));
    }
    return types.length > 0 ? { type: union(types), doc } : undefined;
  }

  #array(schema: SchemaObject, at: Location, indent: string): TypeText {
    const tupleKeyword = Array.isArray(schema.prefixItems) ? 'prefixItems' : Array.isArray(schema.items) ? 'items' : undefined;
    if (tupleKeyword) {
      const elements = schema[tupleKeyword] as unknown[];
      const rest = tupleKeyword === 'prefixItems' ? schema.items : schema.additionalItems;
      const restKeyword = tupleKeyword === 'prefixItems' ? 'items' : 'additionalItems';
      const minItems = typeof schema.minItems === 'number' ? schema.minItems : elements.length;
      const texts = elements.map((element, i) => {
        const type = this.#convert(element, this.#child(at, tupleKeyword, i), indent, NO_CHAIN, true);
        return i >= minItems ? `${type.prec > 0 ? `(${type.text})` : type.text}?` : type.text;
      });
      if (rest !== undefined && rest !== false) {
        const type = this.#convert(rest, this.#child(at, restKeyword), indent, NO_CHAIN, true);
        texts.push(`...${type.prec > 0 ? `(${type.text})` : type.text}[]`);
      }
      return { text: `[${texts.join(', ')}]`, prec: 0 };
    }
    const item = this.#convert(schema.items, this.#child(at, 'items'), indent, NO_CHAIN, true);
    return { text: item.prec > 0 ? `(${item.text})[]` : `${item.text}[]`, prec: 0 };
  }

  #ref(ref: unknown, at: Location, chain: Chain): TypeText {
    if (typeof ref !== 'string') return this.#report('BAD_REF', at, '$ref must be a string');
    if (!ref.startsWith('#')) return this.#report('BAD_REF', at, `cannot resolve $ref ${JSON.stringify(ref)}: only local references (#/...) are supported`);
    let segments: string[];
    try {
      segments = decodeURIComponent(ref.slice(1)).split('/').slice(1).map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
    } catch {
      return this.#report('BAD_REF', at, `cannot resolve $ref ${JSON.stringify(ref)}: malformed pointer`);
    }
    if (segments.length === 0) {
      const rootName = at.root.name;
      if (!rootName) return this.#report('BAD_REF', at, `cannot resolve $ref "#": the schema root has no name here`);
      return this.#reference(rootName, at, chain, ref);
    }
    let target: unknown = at.root.schema;
    for (const segment of segments) {
      target = Array.isArray(target) ? target[Number(segment)] : isRecord(target) && Object.hasOwn(target, segment) ? target[segment] : undefined;
      if (target === undefined) return this.#report('BAD_REF', at, `cannot resolve $ref ${JSON.stringify(ref)}: no such location`);
    }
    const last = [...segments].reverse().find((s) => !/^\d+$/.test(s)) ?? 'Type';
    const text = JSON.stringify(target);
    // A target that itself refers elsewhere means different things in different documents: key it by document.
    const key = text.includes('"$ref"') ? `ref:${at.root.id}:${ref}` : `json:${text}`;
    const targetAt = { root: at.root, path: segments.map((s) => `/${escapePointerSegment(s)}`).join('') };
    const name = this.#namedType(last, key, target, targetAt, chain);
    return this.#reference(name, at, chain, ref);
  }

  #reference(name: string, at: Location, chain: Chain, ref: string): TypeText {
    if (chain.has(name)) {
      return this.#report('BAD_REF', at, `circular $ref ${JSON.stringify(ref)}: ${name} would be defined as itself`);
    }
    return { text: name, prec: 0 };
  }

  /** The declared name for `schema` (declaring it on first use); `key` identifies equal schemas across uses. */
  #namedType(baseName: string, key: string, schema: unknown, at: Location, chain: Chain): string {
    const cacheKey = `${typeName(baseName)}\u0000${key}`;
    const known = this.#declared.get(cacheKey);
    if (known) return known;
    const name = this.#names.allocate(typeName(baseName));
    this.#declared.set(cacheKey, name);
    const inner = new Set([...chain, name]);
    this.#declareWith(name, schemaDocLines(schema), () => this.#convert(schema, at, this.#indent, inner, false));
    return name;
  }
}
