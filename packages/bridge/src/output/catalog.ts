import { existsSync } from 'node:fs';
import {
  AgentSpacesError,
  CAPABILITY_FILES,
  CAPABILITY_PREFIX,
  CATALOG_VERSION,
  CATALOG_WORD_KINDS,
  builtFile,
  isRecord,
  type CatalogEntry,
  type CatalogWords,
} from '@agent-spaces/capabilities';
import { FieldReader } from './fields.js';
import { readBuiltJson } from './files.js';

/**
 * The searchable functions of capability `id` in `dir` (a `capabilitiesDir`), from its `catalog.json`. A capability
 * built before the compiler wrote that file (or with another version of it) fails with `CAPABILITY_STALE` saying to
 * rebuild; a file of the wrong shape with `INVALID_DEFINITION` naming the field; otherwise as `readBuiltJson`.
 */
export function readCatalog(dir: string, id: string): CatalogEntry[] {
  const file = builtFile(dir, id, CAPABILITY_FILES.catalog);
  const stale = (why: string) =>
    new AgentSpacesError('CAPABILITY_STALE', `Capability '${id}' was built by an older agent-spaces: ${file} ${why} (rebuild: \`agent-spaces capabilities build --force\`)`, {
      id,
      file,
    });
  let value: unknown;
  try {
    value = readBuiltJson(dir, id, CAPABILITY_FILES.catalog);
  } catch (error) {
    const missing = error instanceof AgentSpacesError && error.code === 'CAPABILITY_NOT_FOUND';
    if (missing && existsSync(builtFile(dir, id, CAPABILITY_FILES.meta))) throw stale('does not exist');
    throw error;
  }
  if (isRecord(value) && value.version !== CATALOG_VERSION) throw stale(`has format version ${JSON.stringify(value.version)}, not ${CATALOG_VERSION}`);
  return catalogEntries(new FieldReader(file), value, CAPABILITY_PREFIX + id);
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((v) => typeof v === 'string');
}

/** Checks the shape of a `catalog.json` and joins each function's related names to their declarations. */
function catalogEntries(fields: FieldReader, value: unknown, module: string): CatalogEntry[] {
  const root = fields.object(value, '');
  const types = root.types;
  if (!isRecord(types) || !Object.values(types).every((t) => typeof t === 'string')) fields.fail('/types', 'must map type names to declarations');
  return fields.array(root.functions, '/functions').map((raw, index): CatalogEntry => {
    const at = `/functions/${index}`;
    const fn = fields.object(raw, at);
    for (const key of ['path', 'signature', 'summary', 'doc']) if (typeof fn[key] !== 'string') fields.fail(`${at}/${key}`, 'must be a string');
    if (fn.function !== undefined && typeof fn.function !== 'string') fields.fail(`${at}/function`, 'must be a string');
    const related = fn.related;
    if (!isStrings(related) || !related.every((name) => Object.hasOwn(types, name))) fields.fail(`${at}/related`, 'must list names of /types');
    const words = fn.words;
    if (!isRecord(words) || !CATALOG_WORD_KINDS.every((kind) => isStrings(words[kind]))) {
      fields.fail(`${at}/words`, `must hold the word lists ${CATALOG_WORD_KINDS.join(', ')}`);
    }
    const { path, signature, summary, doc } = fn as Record<string, string>;
    return {
      module,
      path,
      ...(typeof fn.function === 'string' ? { function: fn.function } : {}),
      signature,
      summary,
      doc,
      related: related.map((name) => types[name] as string),
      words: Object.fromEntries(CATALOG_WORD_KINDS.map((kind) => [kind, words[kind]])) as unknown as CatalogWords,
    };
  });
}
