/**
 * Naming rules of generated code: every identifier, type name and module id the emitters print comes from here.
 * Names are split into words at separators (anything but letters and digits) and at case changes
 * (`getURLPath` → `get`, `URL`, `Path`), then joined in the wanted case.
 */

/** Words that cannot be a binding name in an ES module (strict mode) or that TypeScript treats specially. */
const RESERVED_WORDS = new Set([
  'arguments', 'await', 'break', 'case', 'catch', 'class', 'const', 'continue', 'debugger', 'default', 'delete',
  'do', 'else', 'enum', 'eval', 'export', 'extends', 'false', 'finally', 'for', 'function', 'if', 'implements',
  'import', 'in', 'instanceof', 'interface', 'let', 'new', 'null', 'package', 'private', 'protected', 'public',
  'return', 'static', 'super', 'switch', 'this', 'throw', 'true', 'try', 'typeof', 'undefined', 'var', 'void',
  'while', 'with', 'yield',
]);

/**
 * Names the generated proxy module cannot give a function or a capability object, and why: they get a `_` like
 * reserved words (`call` → `call_`), and the build says so (see `checkCapabilityNames`).
 */
export const PROXY_NAMES: ReadonlyMap<string, string> = new Map([
  ['call', 'the proxy module imports the bridge function under that name'],
  ['then', 'a member or export named then makes the capability object and its module thenables, which await unwraps'],
]);

/** Type names a generated declaration must not shadow (TypeScript keywords and common global types). */
const RESERVED_TYPE_NAMES = new Set([
  'any', 'bigint', 'boolean', 'never', 'number', 'object', 'string', 'symbol', 'unknown', 'void', 'undefined',
  'Array', 'Date', 'Error', 'Function', 'Map', 'Object', 'Partial', 'Promise', 'Readonly', 'Record', 'Required',
  'Set', 'String', 'Number', 'Boolean', 'Symbol',
]);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const CAMEL_CASE = /^[a-z][A-Za-z0-9]*$/;
const MODULE_ID = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/** Splits a name into words: `API-get-user` → `API get user`, `getTrainDetails` → `get Train Details`. */
export function splitWords(name: string): string[] {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1 $2')
    .split(/[^A-Za-z0-9]+/)
    .filter((word) => word.length > 0);
}

function capitalize(word: string): string {
  const rest = word.slice(1);
  // An all-caps word is an acronym: `API` → `Api`, so `getAPIKey` and `get_api_key` agree.
  return word.charAt(0).toUpperCase() + (rest === rest.toUpperCase() ? rest.toLowerCase() : rest);
}

/** `list_channels` → `listChannels`, `API-get-user` → `apiGetUser`; an already camelCase name is kept. */
export function camelCase(name: string): string {
  if (CAMEL_CASE.test(name)) return name;
  const words = splitWords(name);
  if (words.length === 0) return '';
  return words[0]!.toLowerCase() + words.slice(1).map(capitalize).join('');
}

/** `get_schedule` → `GetSchedule`, `getSchedule` → `GetSchedule`. */
export function pascalCase(name: string): string {
  const camel = camelCase(name);
  return camel.charAt(0).toUpperCase() + camel.slice(1);
}

/** `trainSchedule` → `train-schedule`, `Train_Schedule.v2` → `train-schedule-v2`. */
export function kebabCase(name: string): string {
  return splitWords(name)
    .map((word) => word.toLowerCase())
    .join('-');
}

/** True when `name` can be written unquoted as a property name (`station`, `default`), false for `x-api-key`. */
export function isIdentifierName(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** True when `id` is a valid module id: kebab-case letters and digits (`train-schedule`, `mcp-slack`). */
export function isModuleId(id: string): boolean {
  return MODULE_ID.test(id);
}

/**
 * A binding name for generated code: camelCase, `_` in front of a leading digit, `_` after a reserved word
 * (`delete` → `delete_`) or a name of the proxy module ({@link PROXY_NAMES}: `call` → `call_`), `_` for a name with
 * no letters or digits at all.
 */
export function identifier(name: string): string {
  const camel = camelCase(name);
  if (camel === '') return '_';
  if (/^[0-9]/.test(camel)) return `_${camel}`;
  return RESERVED_WORDS.has(camel) || PROXY_NAMES.has(camel) ? `${camel}_` : camel;
}

/** A type name for generated code: PascalCase, sanitized like {@link identifier}, never a built-in type's name. */
export function typeName(name: string): string {
  const pascal = pascalCase(name);
  if (pascal === '') return 'Type';
  if (/^[0-9]/.test(pascal)) return `T${pascal}`;
  return RESERVED_TYPE_NAMES.has(pascal) ? `${pascal}Type` : pascal;
}

/** Hands out unique names: the first request for `Trip` gets `Trip`, the next `Trip2`, then `Trip3`. */
export class NameAllocator {
  readonly #taken = new Set<string>();

  /** Marks `name` as used without allocating it (names declared elsewhere in the same module). */
  reserve(name: string): void {
    this.#taken.add(name);
  }

  /** `base` if free, else `base` with the smallest free numeric suffix from 2. */
  allocate(base: string): string {
    let name = base;
    for (let n = 2; this.#taken.has(name); n++) name = `${base}${n}`;
    this.#taken.add(name);
    return name;
  }
}
