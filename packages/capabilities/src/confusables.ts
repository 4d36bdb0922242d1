/**
 * Look-alike letters in host names (docs/policies.md, "How values are compared"): which letters of other scripts read
 * as a Latin one, and which labels mix scripts in a way no legitimate name does. Internal to the policy reading of
 * hosts and e-mail addresses (policy-text.ts).
 */

/**
 * Letters that render like an ASCII letter, by the ASCII letter (UTS #39 confusables, the entries whose prototype is
 * one ASCII letter): Cyrillic, Greek, Armenian and Latin IPA / dotless letters. Upper-case forms keep their case.
 */
const LOOK_ALIKES: Record<string, string> = {
  a: 'аɑα',
  b: 'Ьᖯ',
  c: 'сϲᴄ',
  d: 'ԁ',
  e: 'еҽ',
  g: 'ɡց',
  h: 'һհ',
  i: 'іıɩιӏ',
  j: 'јϳȷ',
  k: 'κ',
  l: 'Ӏӏ',
  n: 'ոη',
  o: 'оοօσ',
  p: 'рρ',
  q: 'ԛզ',
  r: 'гᴦ',
  s: 'ѕ',
  u: 'υսʋ',
  v: 'νѵ',
  w: 'ԝѡ',
  x: 'хχ',
  y: 'уүγ',
  A: 'АΑ',
  B: 'ВΒ',
  C: 'СϹ',
  E: 'ЕΕ',
  H: 'НΗ',
  I: 'ІΙ',
  J: 'Ј',
  K: 'КΚ',
  M: 'МΜ',
  N: 'Ν',
  O: 'ОΟՕ',
  P: 'РΡ',
  Q: 'Ԛ',
  S: 'ЅՏ',
  T: 'ТΤ',
  U: 'Ս',
  X: 'ХΧ',
  Y: 'УҮΥ',
  Z: 'Ζ',
};

const TO_LATIN = new Map(Object.entries(LOOK_ALIKES).flatMap(([latin, others]) => [...others].map((other) => [other, latin] as const)));
const LOOK_ALIKE = new RegExp(`[${[...TO_LATIN.keys()].join('')}]`, 'gu');

/** `text` with each look-alike letter replaced by the ASCII letter it renders like (`rіval` with a Cyrillic `і` is `rival`). */
export function latinSkeleton(text: string): string {
  return text.replace(LOOK_ALIKE, (letter) => TO_LATIN.get(letter) ?? letter);
}

/** Scripts told apart in a label; letters of any other script count as one more. */
const SCRIPTS: ReadonlyArray<readonly [string, RegExp]> = [
  ['Latin', /\p{Script=Latin}/u],
  ['Cyrillic', /\p{Script=Cyrillic}/u],
  ['Greek', /\p{Script=Greek}/u],
  ['Armenian', /\p{Script=Armenian}/u],
  ['Han', /\p{Script=Han}/u],
  ['Hiragana', /\p{Script=Hiragana}/u],
  ['Katakana', /\p{Script=Katakana}/u],
  ['Hangul', /\p{Script=Hangul}/u],
  ['Bopomofo', /\p{Script=Bopomofo}/u],
];
/** The mixes UTS #39 "highly restrictive" allows in one label: Latin with the scripts written beside it in East Asia. */
const ALLOWED_MIXES: ReadonlyArray<ReadonlySet<string>> = [
  new Set(['Latin', 'Han', 'Hiragana', 'Katakana']),
  new Set(['Latin', 'Han', 'Bopomofo']),
  new Set(['Latin', 'Han', 'Hangul']),
];
const LETTER = /\p{L}/u;

/**
 * True when the label `label` (in Unicode) holds letters of two scripts that are not one of UTS #39's "highly
 * restrictive" mixes: `rivаl` with a Cyrillic `а`, `cοm` with a Greek `ο`. Digits, hyphens and marks belong to no script.
 */
export function mixesScripts(label: string): boolean {
  const scripts = new Set<string>();
  for (const char of label) {
    if (!LETTER.test(char)) continue;
    scripts.add(SCRIPTS.find(([, pattern]) => pattern.test(char))?.[0] ?? 'Other');
  }
  return scripts.size > 1 && !ALLOWED_MIXES.some((mix) => [...scripts].every((script) => mix.has(script)));
}
