/** Names close to a name that matched nothing, for the error that says so (`closest: …`). */
/**
 * Up to `count` of `candidates` closest to `name`: fewest edits ignoring case, then fewest edits; only those within
 * half the name's length of edits, so a suggestion is never a random name.
 */
export function closestNames(name: string, candidates: readonly string[], count = 3): string[] {
  const lower = name.toLowerCase();
  const scored = [...new Set(candidates)].map((candidate) => {
    const folded = editDistance(lower, candidate.toLowerCase());
    return { candidate, folded, score: folded * 1000 + editDistance(name, candidate) };
  });
  return scored
    .filter((s) => s.folded <= Math.max(2, Math.ceil(name.length / 2)))
    .sort((a, b) => a.score - b.score || (a.candidate < b.candidate ? -1 : 1))
    .slice(0, count)
    .map((s) => s.candidate);
}

/** Levenshtein distance between `a` and `b`. */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}
