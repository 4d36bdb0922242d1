/**
 * `catalog.json` of a capability: per function what `search_capabilities` shows (a one-line signature, the doc, the
 * types it uses) and the words it scores, made from the IR and what `emitDeclarations` declared, so a search needs
 * no TypeScript parse of `index.d.ts`.
 */
import {
  CAPABILITY_PREFIX,
  CATALOG_VERSION,
  searchWords,
  type CapabilityCatalog,
  type CapabilityIR,
  type CatalogFunction,
} from '@agent-spaces/capabilities';
import type { DeclarationsResult } from './declarations.js';
import { docBody } from './escape.js';
import { oneLine } from './one-line.js';

/** The `catalog.json` of `capability`, whose `index.d.ts` is `declarations` (the module's own, when it brings one). */
export function emitCatalog(capability: CapabilityIR, declarations: DeclarationsResult): CapabilityCatalog {
  if (capability.module?.catalog) return capability.module.catalog;
  const module = CAPABILITY_PREFIX + capability.id;
  const context = docText(capability.description ? [capability.description] : []);
  const types: Record<string, string> = {};
  const functions = declarations.functions.map(({ fn, params, result, doc }): CatalogFunction => {
    const path = `${capability.exportName}.${fn.name}`;
    // A parameters interface is shown as its body, so one line tells what to pass.
    const param = params ? `params${params.optional ? '?' : ''}: ${params.body ? oneLine(params.body) : params.type}` : '';
    const related = relatedTypes([params?.type ?? '', result], declarations.types);
    for (const name of related) types[name] = declarations.types.get(name)!;
    const text = docText(doc);
    const fields = [...schemaFieldNames(fn.parameters), ...schemaFieldNames(fn.returns)];
    return { path, function: fn.name, signature: `${path}(${param}): Promise<${oneLine(result)}>`, ...searchFields(module, path, text, context, fields), doc: text, related };
  });
  return { version: CATALOG_VERSION, types, functions };
}

/**
 * The summary (the doc's first sentence) and search words of a function, the same for every catalog entry:
 * `context` is the doc of the object holding it, `fields` the field names of its parameters and result.
 */
export function searchFields(module: string, path: string, doc: string, context: string, fields: readonly string[]): Pick<CatalogFunction, 'summary' | 'words'> {
  return {
    summary: firstSentence(doc),
    words: {
      name: searchWords(path.split('.').at(-1) ?? path),
      module: searchWords(`${module} ${path}`),
      fields: [...new Set(searchWords(fields.join(' ')))],
      doc: searchWords(doc),
      context: [...new Set(searchWords(context))],
    },
  };
}

/** How many levels of field names (a parameter's, then those of the objects and arrays below it) search collects. */
export const FIELD_DEPTH = 3;

/** The property names of a JSON Schema, nested ones (in objects, array items and alternatives) included. */
function schemaFieldNames(schema: unknown, depth = FIELD_DEPTH): string[] {
  if (typeof schema !== 'object' || schema === null || depth === 0) return [];
  const s = schema as Record<string, unknown>;
  const names: string[] = [];
  const properties = s.properties;
  if (typeof properties === 'object' && properties !== null) {
    for (const [name, property] of Object.entries(properties)) names.push(name, ...schemaFieldNames(property, depth - 1));
  }
  for (const key of ['items', 'additionalProperties']) names.push(...schemaFieldNames(s[key], depth));
  for (const key of ['anyOf', 'oneOf', 'allOf']) if (Array.isArray(s[key])) for (const part of s[key]) names.push(...schemaFieldNames(part, depth));
  return names;
}

/** The text of a JSDoc block made of `lines`, without `/**` and ` * `. */
function docText(lines: readonly string[]): string {
  return docBody(lines).join('\n').trim();
}

function firstSentence(doc: string): string {
  const line = doc.split(/\n\s*\n|\n@/)[0]!.replace(/\s+/g, ' ').trim();
  const end = line.search(/[.!?](\s|$)/);
  return end === -1 ? line : line.slice(0, end + 1);
}

/** An identifier outside comments and string literals; comments and literals are matched to be skipped. */
const TYPE_TOKEN = /\/\*[\s\S]*?\*\/|\/\/[^\n]*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|([A-Za-z_$][\w$]*)/g;

/** Names of `declared` types the `texts` refer to, transitively, in order of first use. */
function relatedTypes(texts: readonly string[], declared: ReadonlyMap<string, string>): string[] {
  const found = new Set<string>();
  const visit = (text: string) => {
    for (const [, name] of text.matchAll(TYPE_TOKEN)) {
      if (name === undefined || found.has(name) || !declared.has(name)) continue;
      found.add(name);
      visit(declared.get(name)!);
    }
  };
  texts.forEach(visit);
  return [...found];
}
