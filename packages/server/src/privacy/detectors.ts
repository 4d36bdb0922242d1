import type { BuiltinDetector, PrivacySettings } from './settings.js';
import { BUILTIN_DETECTORS } from './settings.js';

/** One value found in a text: `[start, end)` in UTF-16 units and the kind its token names (`EMAIL`, a pattern's name). */
export interface Found {
  start: number;
  end: number;
  kind: string;
}

/** Finds the personal data in one text: every detector of a space's settings, overlaps resolved ({@link findAll}). */
export type Detect = (text: string) => Found[];

/** The longest local part and domain of an address taken around an `@`. */
const MAX_LOCAL = 64;
const MAX_DOMAIN = 253;
const LOCAL_CHAR = /[A-Za-z0-9._%+-]/;
const DOMAIN_CHAR = /[A-Za-z0-9.-]/;
const DOMAIN = /^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/**
 * E-mail addresses (`local@domain.tld`, ASCII): each `@` is widened over the characters an address may hold (bounded,
 * so the scan is linear) and the domain checked label by label.
 */
export function findEmails(text: string): Found[] {
  const found: Found[] = [];
  for (let at = text.indexOf('@'); at !== -1; at = text.indexOf('@', at + 1)) {
    let start = at;
    while (start > 0 && at - start < MAX_LOCAL && LOCAL_CHAR.test(text[start - 1]!)) start--;
    while (start < at && text[start] === '.') start++;
    let end = at + 1;
    while (end < text.length && end - at <= MAX_DOMAIN && DOMAIN_CHAR.test(text[end]!)) end++;
    while (end > at + 1 && /[.-]/.test(text[end - 1]!)) end--;
    if (start < at && DOMAIN.test(text.slice(at + 1, end))) {
      found.push({ start, end, kind: 'EMAIL' });
      at = end - 1;
    }
  }
  return found;
}

/** Runs of digits, single spaces or dashes between groups. */
const DIGIT_RUN = /(?<![\d.])\d+(?:[ -]\d+)*/g;
/** The longest card number with a separator between every two digits. */
const MAX_CARD_CHARS = 37;

/**
 * Payment card numbers: 13 to 19 digits (groups split by single spaces or dashes) that start as the card networks'
 * numbers do (2 to 6) and pass the Luhn checksum; a run holding more groups gives the longest leading groups that pass.
 */
export function findCards(text: string): Found[] {
  return findChecked(text, DIGIT_RUN, MAX_CARD_CHARS, 'CARD', (candidate) => {
    const digits = candidate.replace(/[ -]/g, '');
    return digits.length >= 13 && digits.length <= 19 && /^[2-6]/.test(digits) && luhn(digits);
  });
}

/** True when the digits pass the Luhn (mod 10) checksum. */
export function luhn(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) digit = digit * 2 > 9 ? digit * 2 - 9 : digit * 2;
    sum += digit;
  }
  return sum % 10 === 0;
}

/** A country code, two check digits and the account, in groups split by single spaces. */
const IBAN_RUN = /(?<![A-Za-z0-9])[A-Za-z]{2}\d{2}[A-Za-z0-9]*(?: [A-Za-z0-9]+)*/g;
/** The longest IBAN (34 characters) in groups of four. */
const MAX_IBAN_CHARS = 42;

/** IBANs, in either case, grouped or not: the country's length and format and the mod-97 check digits (ibantools). */
function findIbans(text: string, isValidIBAN: (iban: string) => boolean): Found[] {
  return findChecked(text, IBAN_RUN, MAX_IBAN_CHARS, 'IBAN', (candidate) => isValidIBAN(candidate.replace(/ /g, '').toUpperCase()));
}

/**
 * The matches of `run` (a global pattern of groups split by single separators) that `valid` accepts: the first
 * `maxChars` of each, cut down group by group from its end until it is accepted (a card number followed by a year is
 * still found). The cut is bounded, so the scan stays linear.
 */
function findChecked(text: string, run: RegExp, maxChars: number, kind: string, valid: (candidate: string) => boolean): Found[] {
  const found: Found[] = [];
  for (const match of text.matchAll(run)) {
    let candidate = match[0].slice(0, maxChars);
    while (candidate.length > 0 && !valid(candidate)) {
      const cut = candidate.search(/[ ./-][^ ./-]*$/);
      candidate = cut === -1 ? '' : candidate.slice(0, cut);
    }
    if (candidate.length > 0) found.push({ start: match.index, end: match.index + candidate.length, kind });
  }
  return found;
}

/**
 * Where a phone number may be: a digit (after `+` or `(`) and 6 to 25 more characters of digits and single separators
 * (space, `.`, `/`, `-`, brackets). Bounded, so finding them is linear.
 */
const PHONE_RUN = /(?<![\d+])\+?\(?\d(?:[ ()./-]{0,2}\d){6,18}/g;
/** The longest candidate read as one number. */
const MAX_PHONE_CHARS = 26;
/** Dates and times, which are never phone numbers. */
const DATE_LIKE = /^\d{4}-\d{2}-\d{2}|^\d{1,2}[./]\d{1,2}[./]\d{2,4}/;

/** What {@link findPhones} needs of libphonenumber-js: whether a text is a valid number (of `region`, without `+`). */
type PhoneCheck = (text: string, region?: string) => boolean;

/**
 * Phone numbers valid for their country (libphonenumber-js's metadata): written with `+` and a country code, and,
 * with a `region`, that region's numbers written without one. Dates are left alone.
 */
function findPhones(text: string, valid: PhoneCheck, region: string | undefined): Found[] {
  return findChecked(text, PHONE_RUN, MAX_PHONE_CHARS, 'PHONE', (candidate) => {
    if (!candidate.startsWith('+') && (region === undefined || DATE_LIKE.test(candidate))) return false;
    return valid(candidate, region);
  });
}

/** What a compiled custom pattern gives: its matches' `[start, end)`. */
type PatternMatcher = (text: string) => Array<[number, number]>;

/**
 * Every detector `settings` turns on, as one {@link Detect}. The libraries load here, once per settings: ibantools,
 * libphonenumber-js (only with `phone`) and re2js (only with custom patterns).
 */
export async function createDetect(settings: PrivacySettings): Promise<Detect> {
  const kinds = new Set<BuiltinDetector>(settings.detectors ?? BUILTIN_DETECTORS);
  const finders: Array<(text: string) => Found[]> = [];
  for (const pattern of await compilePatterns(settings)) finders.push(pattern);
  if (kinds.has('email')) finders.push(findEmails);
  if (kinds.has('iban')) {
    const { isValidIBAN } = await import('ibantools');
    finders.push((text) => findIbans(text, isValidIBAN));
  }
  if (kinds.has('card')) finders.push(findCards);
  if (kinds.has('phone')) {
    const { isValidPhoneNumber } = await import('libphonenumber-js');
    const valid: PhoneCheck = (candidate, region) => isValidPhoneNumber(candidate, region as Parameters<typeof isValidPhoneNumber>[1]);
    finders.push((text) => findPhones(text, valid, settings.phoneRegion));
  }
  return (text) => findAll(text, finders);
}

/** The custom patterns of `settings` as finders, compiled by re2js (linear-time matching). */
async function compilePatterns(settings: PrivacySettings): Promise<Array<(text: string) => Found[]>> {
  if (!settings.patterns?.length) return [];
  const { RE2JS } = await import('re2js');
  return settings.patterns.map(({ name, pattern, ignoreCase }) => {
    const compiled = RE2JS.compile(pattern, ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    const matches: PatternMatcher = (text) => {
      const out: Array<[number, number]> = [];
      const matcher = compiled.matcher(text);
      while (matcher.find()) if (matcher.end() > matcher.start()) out.push([matcher.start(), matcher.end()]);
      return out;
    };
    return (text: string) => matches(text).map(([start, end]) => ({ start, end, kind: name }));
  });
}

/**
 * The values every finder found in `text`, without overlaps: the one starting first wins, then the longest, then the
 * finder listed first (custom patterns, then email, IBAN, card, phone).
 */
export function findAll(text: string, finders: ReadonlyArray<(text: string) => Found[]>): Found[] {
  const all = finders.flatMap((find, order) => find(text).map((found) => ({ ...found, order })));
  all.sort((a, b) => a.start - b.start || b.end - a.end || a.order - b.order);
  const kept: Found[] = [];
  let reached = 0;
  for (const { start, end, kind } of all) {
    if (start < reached) continue;
    kept.push({ start, end, kind });
    reached = end;
  }
  return kept;
}
