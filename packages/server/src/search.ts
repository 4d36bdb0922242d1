import { CATALOG_WORD_KINDS, searchWords, type CatalogEntry } from '@agent-spaces/capabilities';
import type { Catalog } from './catalog.js';
import { lengthNorms, queryTerms, typeWords, type LengthNorm } from './search-signals.js';

/** How much of each matching function `search_capabilities` shows. */
export type SearchDetail = 'names' | 'signatures' | 'full';

/** The detail levels, in order of size. */
export const SEARCH_DETAILS: readonly SearchDetail[] = ['names', 'signatures', 'full'];

/**
 * The one sentence explaining what an MCP tool without an output schema resolves to, given wherever such a function is
 * shown (instructions, the `inject` prompt, search answers), so an agent never has to look the shape up.
 */
export const MCP_RESULT_NOTE =
  '`McpToolResult` is `{ text, content, data? }`: `text` joins the text blocks, `data` is their JSON parsed (or ' +
  '`structuredContent`), `content` has every block; `McpDataResult<T>` has `data: T`, inferred from results seen.';

/** True when one of `entries` resolves to an MCP tool result, so {@link MCP_RESULT_NOTE} is worth its tokens. */
export function returnsMcpResult(entries: readonly Pick<CatalogEntry, 'signature'>[]): boolean {
  return entries.some((e) => /\bMcp(Tool|Data)Result\b/.test(e.signature));
}

/** A scored match. */
export interface SearchHit {
  entry: CatalogEntry;
  score: number;
}

/** What a query word found in each list of a function's words is worth. */
const WEIGHTS: Readonly<Record<CatalogWordKind, number>> = { name: 3, module: 2, fields: 1.5, doc: 1, context: 0.25 };
/** What a query word found in the rest of a function's declarations ({@link typeWords}) is worth. */
const TYPE_WEIGHT = 0.75;
/** Hits scoring under this share of the best hit are noise (one common word in a doc comment) and are left out. */
const RELEVANCE = 0.5;
/** A query word of this many letters or more also matches a word one typo away (one letter added, dropped, changed or swapped). */
const TYPO_MIN_LENGTH = 4;
/** A function's word of this many letters or more also matches a longer query word starting with it (relationship → relation). */
const DERIVED_MIN_LENGTH = 5;
/** What a query word's synonym found in a function's words is worth, against the word itself. */
const SYNONYM_MATCH = 0.6;

/**
 * Words agents and tool authors use for the same thing, one group a line: general software and data vocabulary, not
 * any one server's. A query word also matches the other words of its groups, exactly, at {@link SYNONYM_MATCH}.
 */
const SYNONYM_GROUPS = [
  'folder directory dir',
  'file document',
  'text txt',
  'image picture photo img',
  'show list ls display view',
  'read open load view',
  'write save store put',
  'delete remove erase forget drop',
  'create make new',
  'find search lookup look query',
  'all every entire whole everything',
  'remember memorize store record',
  'fact observation note memo',
  'customer client account',
  'person people someone user contact entity',
  'connect link relate relation associate',
  'move rename',
  'edit modify change update replace',
  'sum total add plus',
  'message msg',
  'info information metadata detail stat',
  'size length',
  'config configuration setting option',
  'run execute start launch',
  'stop cancel abort kill',
  'send post submit',
  'tree structure hierarchy',
  'keyword term',
  'environment env',
  'repo repository',
  'time date timestamp',
  'issue ticket bug problem',
  'pr pull merge',
  'email mail',
  'event meeting appointment',
  'channel room',
];

/** Each stemmed word of {@link SYNONYM_GROUPS} → the other words of its groups. */
const SYNONYMS: ReadonlyMap<string, readonly string[]> = (() => {
  const synonyms = new Map<string, Set<string>>();
  for (const group of SYNONYM_GROUPS) {
    const words = searchWords(group);
    for (const word of words) {
      const others = synonyms.get(word) ?? new Set<string>();
      for (const other of words) if (other !== word) others.add(other);
      synonyms.set(word, others);
    }
  }
  return new Map([...synonyms].map(([word, others]) => [word, [...others]]));
})();

type CatalogWordKind = (typeof CATALOG_WORD_KINDS)[number];

/**
 * Scores every entry against the query's words (stemmed as the catalog's are): a word found in the function's name
 * counts 3, in its module or object path 2, among its parameter and result field names 1.5, in its doc 1, in the rest
 * of its declarations ({@link typeWords}: enum values, type names, the types' fields and doc comments)
 * {@link TYPE_WEIGHT}, in its capability's own description 0.25; a word starting with the query word (3+ letters)
 * counts half, a word one typo away (4+ letters) or a synonym ({@link SYNONYM_GROUPS}) 0.6. Matches in a doc or
 * declarations longer than the catalog's average count less ({@link lengthNorms}); the question words of a query
 * ("how", "which") are left out ({@link queryTerms}). The sum is weighted by the share of the query's words the entry
 * covers. Best first; entries matching nothing, or scoring under half the best, are left out.
 */
export function searchCatalog(catalog: Catalog, query: string): SearchHit[] {
  const terms = queryTerms(query);
  if (terms.length === 0) return [];
  const lengths = lengthNorms(catalog.entries);
  const hits: SearchHit[] = [];
  catalog.entries.forEach((entry, e) => {
    const scores = terms.map((term) => termScore(term, entry, lengths[e]!));
    const score = scores.reduce((sum, best) => sum + best, 0);
    // A weak match (a doc prefix, a capability's description) covers its query word only in part.
    const matched = scores.reduce((sum, best) => sum + Math.min(best, 1), 0);
    // Matching every word of the query beats matching one word many times.
    if (score > 0) hits.push({ entry, score: score * (matched / terms.length) });
  });
  hits.sort((a, b) => b.score - a.score || a.entry.path.localeCompare(b.entry.path));
  const best = hits[0]?.score ?? 0;
  return hits.filter((hit) => hit.score >= best * RELEVANCE);
}

/** The best a query word `term` finds among `entry`'s words, weighted by where it found it and by the length of long texts. */
function termScore(term: string, entry: CatalogEntry, norm: LengthNorm): number {
  let best = matchOrSynonym(term, typeWords(entry)) * TYPE_WEIGHT * norm.types;
  for (const kind of CATALOG_WORD_KINDS) best = Math.max(best, matchOrSynonym(term, entry.words[kind]) * WEIGHTS[kind] * (kind === 'doc' ? norm.doc : 1));
  return best;
}

/** {@link match}, or {@link SYNONYM_MATCH} when a synonym of `term` is one of `candidates`. */
function matchOrSynonym(term: string, candidates: readonly string[]): number {
  const own = match(term, candidates);
  if (own >= SYNONYM_MATCH) return own;
  return SYNONYMS.get(term)?.some((synonym) => candidates.includes(synonym)) ? SYNONYM_MATCH : own;
}

function match(term: string, candidates: readonly string[]): number {
  let best = 0;
  for (const word of candidates) {
    if (word === term) return 1;
    if (term.length >= 3 && word.startsWith(term)) best = Math.max(best, 0.5);
    // A derived form of a word the function has (relationship → relation, compression → compress).
    if (word.length >= DERIVED_MIN_LENGTH && term.startsWith(word)) best = Math.max(best, 0.5);
    if (term.length >= TYPO_MIN_LENGTH && word.length >= TYPO_MIN_LENGTH && oneTypoApart(term, word)) best = Math.max(best, 0.6);
  }
  return best;
}

/** True when `a` and `b` differ by exactly one letter added, dropped, changed, or two neighbours swapped. */
function oneTypoApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1 || a === b) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  if (a.length === b.length) {
    const swapped = a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
    return swapped || a.slice(i + 1) === b.slice(i + 1);
  }
  const [longer, shorter] = a.length > b.length ? [a, b] : [b, a];
  return longer.slice(i + 1) === shorter.slice(i);
}

/**
 * The text answer of `search_capabilities`: matches grouped by module under their import line, each as a
 * name, a one-line signature with its summary, or its doc comment, signature and the types it uses.
 */
export function formatSearch(query: string, hits: readonly SearchHit[], detail: SearchDetail, limit: number, catalog: Catalog): string {
  if (hits.length === 0) {
    return `No function matches "${query}". Modules: ${[...catalog.modules.keys()].join(', ')}. Try other words, or describe_capabilities.`;
  }
  const shown = hits.slice(0, limit).map((h) => h.entry);
  const lines = formatModules(shown, detail);
  if (hits.length > shown.length) lines.push(`// ${hits.length - shown.length} more match: raise limit or refine the query`);
  if (detail === 'signatures' && returnsMcpResult(shown)) lines.push(`// ${MCP_RESULT_NOTE}`);
  return lines.join('\n');
}

/**
 * `entries` grouped by module under the import line agent code writes for them (`// import { trainSchedule } from
 * '@capabilities/trains'`: the first part of each path), each shown at `detail`.
 */
export function formatModules(entries: readonly CatalogEntry[], detail: SearchDetail): string[] {
  const lines: string[] = [];
  for (const [module, group] of groupBy(entries, (e) => e.module)) {
    lines.push(`// import { ${[...new Set(group.map((e) => e.path.split('.')[0]))].join(', ')} } from '${module}'`);
    for (const entry of group) lines.push(...formatEntry(entry, detail));
  }
  return lines;
}

function formatEntry(entry: CatalogEntry, detail: SearchDetail): string[] {
  switch (detail) {
    case 'names':
      return [entry.path];
    case 'signatures':
      return [entry.summary ? `${entry.signature} // ${entry.summary}` : entry.signature];
    case 'full':
      return [
        ...(entry.doc ? ['/**', ...entry.doc.split('\n').map((l) => ` * ${l}`.trimEnd()), ' */'] : []),
        `${entry.signature};`,
        ...entry.related,
        '',
      ];
    default:
      return assertNever(detail);
  }
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const group = groups.get(k);
    if (group) group.push(item);
    else groups.set(k, [item]);
  }
  return groups;
}

function assertNever(value: never): never {
  throw new Error(`unexpected detail ${String(value)}`);
}
