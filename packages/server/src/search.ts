import { searchWords, type CatalogEntry } from '@agent-spaces/capabilities';
import type { Catalog } from './catalog.js';

/** How much of each matching function `search_capabilities` shows. */
export type SearchDetail = 'names' | 'signatures' | 'full';

/** The detail levels, in order of size. */
export const SEARCH_DETAILS: readonly SearchDetail[] = ['names', 'signatures', 'full'];

/** A scored match. */
export interface SearchHit {
  entry: CatalogEntry;
  score: number;
}

const WEIGHTS = { name: 3, module: 2, doc: 1 } as const;
/** Hits scoring under this share of the best hit are noise (one common word in a doc comment) and are left out. */
const RELEVANCE = 0.5;

/**
 * Scores every entry against the query's words: a word found in the function's name counts 3, in its module or object
 * path 2, in its doc 1; a word starting with the query word (3+ letters) counts half. Best first; entries matching nothing, or scoring
 * under half the best, are left out.
 */
export function searchCatalog(catalog: Catalog, query: string): SearchHit[] {
  const terms = [...new Set(searchWords(query))];
  if (terms.length === 0) return [];
  const hits: SearchHit[] = [];
  for (const entry of catalog.entries) {
    let score = 0;
    let matched = 0;
    for (const term of terms) {
      const best = Math.max(
        match(term, entry.words.name) * WEIGHTS.name,
        match(term, entry.words.module) * WEIGHTS.module,
        match(term, entry.words.doc) * WEIGHTS.doc,
      );
      if (best > 0) matched++;
      score += best;
    }
    // Matching every word of the query beats matching one word many times.
    if (score > 0) hits.push({ entry, score: score * (matched / terms.length) });
  }
  hits.sort((a, b) => b.score - a.score || a.entry.path.localeCompare(b.entry.path));
  const best = hits[0]?.score ?? 0;
  return hits.filter((hit) => hit.score >= best * RELEVANCE);
}

function match(term: string, candidates: readonly string[]): number {
  let best = 0;
  for (const word of candidates) {
    if (word === term) return 1;
    if (term.length >= 3 && word.startsWith(term)) best = 0.5;
  }
  return best;
}

/**
 * The text answer of `search_capabilities`: matches grouped by module under a `// from '<module>'` line, each as a
 * name, a one-line signature with its summary, or its doc comment, signature and the types it uses.
 */
export function formatSearch(query: string, hits: readonly SearchHit[], detail: SearchDetail, limit: number, catalog: Catalog): string {
  if (hits.length === 0) {
    return `No function matches "${query}". Modules: ${[...catalog.modules.keys()].join(', ')}. Try other words, or describe_capabilities.`;
  }
  const shown = hits.slice(0, limit);
  const lines: string[] = [];
  for (const [module, group] of groupBy(shown, (h) => h.entry.module)) {
    lines.push(`// from '${module}'`);
    for (const { entry } of group) lines.push(...formatEntry(entry, detail));
  }
  if (hits.length > shown.length) lines.push(`// ${hits.length - shown.length} more match: raise limit or refine the query`);
  return lines.join('\n');
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
