import { searchWords, type CatalogEntry } from '@agent-spaces/capabilities';

/** Words of TypeScript's own syntax and types: in every signature, so they tell no function from another. */
const TYPESCRIPT_WORDS = new Set(
  searchWords(
    'export interface type declare readonly params promise string number boolean integer unknown any null undefined void ' +
      'array record partial true false param returns example mcp tool result data text content',
  ),
);

/**
 * English function words that a query written as a question or a task carries ("how big are the files in this
 * folder") and that tell no function from another; left out of a query unless nothing else is left.
 */
const QUERY_STOP_WORDS = new Set(
  searchWords(
    'what which who whom whose when where why how are was were be been being do does did can could should would will ' +
      'shall may might must i me my mine you your we our us they them their this that these those there here some any ' +
      'every each one two three several many much more most few up down out about over after before again than then ' +
      'so just only also very not no has have had want need please',
  ),
);

/** The words of `query` worth searching for: its search words without {@link QUERY_STOP_WORDS} (all of them when nothing else is left), once each. */
export function queryTerms(query: string): string[] {
  const words = [...new Set(searchWords(query))];
  const kept = words.filter((word) => !QUERY_STOP_WORDS.has(word));
  return kept.length > 0 ? kept : words;
}

const typeWordsCache = new WeakMap<CatalogEntry, readonly string[]>();

/**
 * The words of what a function's declarations say beyond its name and doc: its signature's parameters and result
 * (enum values such as `"fahrenheit"`, type names such as `WeatherResult`) and the types it refers to (their field
 * names and doc comments). Computed once per entry.
 */
export function typeWords(entry: CatalogEntry): readonly string[] {
  let words = typeWordsCache.get(entry);
  if (words === undefined) {
    const parameters = entry.signature.slice(entry.signature.indexOf('('));
    words = [...new Set(searchWords(`${parameters}\n${entry.related.join('\n')}`))].filter((w) => !TYPESCRIPT_WORDS.has(w) && !/^\d+$/.test(w));
    typeWordsCache.set(entry, words);
  }
  return words;
}

/** How much a match in an entry's doc and in its {@link typeWords} counts for their length (1 at the catalog's average). */
export interface LengthNorm {
  doc: number;
  types: number;
}

/** BM25's length weight: how much a long text's matches are discounted (0 never, 1 in proportion to its length). */
const LENGTH_DISCOUNT = 0.5;

/**
 * BM25's length normalisation of each entry's doc and {@link typeWords}: a word found in a long description (a
 * tool that explains everything it could be used for) says less about the function than one in a short one. Computed
 * once per catalog.
 */
export function lengthNorms(entries: readonly CatalogEntry[]): readonly LengthNorm[] {
  let norms = lengthNormsCache.get(entries);
  if (norms === undefined) {
    norms = computeLengthNorms(entries);
    lengthNormsCache.set(entries, norms);
  }
  return norms;
}

const lengthNormsCache = new WeakMap<readonly CatalogEntry[], readonly LengthNorm[]>();

function computeLengthNorms(entries: readonly CatalogEntry[]): LengthNorm[] {
  const average = (lengths: number[]) => Math.max(1, lengths.reduce((sum, n) => sum + n, 0) / Math.max(1, lengths.length));
  const docs = entries.map((entry) => new Set(entry.words.doc).size);
  const types = entries.map((entry) => typeWords(entry).length);
  const [docAverage, typesAverage] = [average(docs), average(types)];
  const norm = (length: number, mean: number) => 1 / (1 - LENGTH_DISCOUNT + (LENGTH_DISCOUNT * length) / mean);
  return entries.map((_, e) => ({ doc: norm(docs[e]!, docAverage), types: norm(types[e]!, typesAverage) }));
}
