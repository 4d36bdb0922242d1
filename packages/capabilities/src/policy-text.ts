import { domainToUnicode } from 'node:url';
import { latinSkeleton, mixesScripts } from './confusables.js';

/**
 * How policy rules read strings (docs/policies.md, "How values are compared"): one reading shared by the config check
 * (rule operands) and the bridge (call params), so a rule and the value it is tested on are read the same way.
 */

/** Printable ASCII without spaces: already normal, and the common case (ids, e-mail addresses, paths). */
const PLAIN = /^[\x21-\x7e]*$/;
/** Code points that render as nothing: zero-width spaces and joiners, soft hyphen, bidi marks, variation selectors, tags… */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
/** C0 and C1 control characters other than whitespace (NUL, ESC, DEL, …): they render as nothing. */
const CONTROLS = /(?![\t\n\v\f\r])\p{Cc}/gu;
const HAS_CONTROL = /(?![\t\n\v\f\r])\p{Cc}/u;
const SPACES = /\s+/g;
/** Full stops a host name may be written with (ideographic, full-width, half-width): each is a dot to DNS. */
const FULL_STOPS = /[\u3002\uff0e\uff61]/g;
/** A local part that needs no quotes (RFC 5322 dot-atom, with the letters SMTPUTF8 allows). */
const DOT_ATOM = /^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*$/u;
/** Characters a host name cannot hold (a URL's path, user info, query or fragment, or whitespace). */
const NOT_IN_HOST = /[\s/\\@?#]/;
/** One label of a host name (`api`, `xn--bcher-kva`); written so that matching it never backtracks. */
const LABEL = '[a-z0-9_]+(?:-+[a-z0-9_]+)*';
/** A host name as {@link canonicalHost} returns it: ASCII labels, or a bracketed IPv6 address. */
const HOST_NAME = new RegExp(`^(?:${LABEL}(?:\\.${LABEL})*|\\[[0-9a-f:.]+\\])$`);
/** A last label that makes a host an IPv4 address in some form (`127.1`, `0x7f.1`, `2130706433`). */
const NUMBER_LABEL = /^(?:[0-9]+|0x[0-9a-f]*)$/;
const URL_WITH_AUTHORITY = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * `text` as string rules compare it: default-ignorable code points (zero-width characters, soft hyphens, bidi marks,
 * variation selectors, tag characters) and control characters (NUL, ESC, DEL, …) removed, Unicode NFKC (full-width
 * letters, ligatures, mathematical and circled letters become plain ones), runs of whitespace made one space, trimmed.
 * @example
 * normalizeText(' ｒｉｖａｌ\u200b.com\0 ') // 'rival.com'
 */
export function normalizeText(text: string): string {
  if (PLAIN.test(text)) return text;
  return text.replace(IGNORABLE, '').replace(CONTROLS, '').normalize('NFKC').replace(IGNORABLE, '').replace(SPACES, ' ').trim();
}

/** `text` with case folded (`'Straße'` and `'STRASSE'` both give `'strasse'`), for `ignoreCase` and host names. */
export function foldCase(text: string): string {
  return text.toUpperCase().toLowerCase();
}

/**
 * A host name as DNS sees it, or undefined when `text` is not one: normalized ({@link normalizeText}), lower case,
 * internationalized names in their ASCII (punycode) form, trailing dots and a `:port` removed, IP addresses in their
 * canonical form (`0x7f.1` is `127.0.0.1`). A name with a control character, or with a label that mixes scripts
 * (`rivаl` with a Cyrillic `а`: see `mixesScripts`), is not one.
 * @example
 * canonicalHost('Bücher.EXAMPLE.') // 'xn--bcher-kva.example'
 */
export function canonicalHost(text: string): string | undefined {
  const plain = trimDots(text);
  if (HOST_NAME.test(plain) && plain[0] !== '[' && !plain.includes('xn--') && !NUMBER_LABEL.test(plain.slice(plain.lastIndexOf('.') + 1))) {
    return plain; // already canonical: skip the URL parser
  }
  if (HAS_CONTROL.test(text)) return undefined;
  const host = parseHost(text);
  return host === undefined || host.split('.').some((label) => label.startsWith('xn--') && mixesScripts(domainToUnicode(label))) ? undefined : host;
}

/**
 * The host names a deny or ask rule also tests for `host` (canonical): the same with every look-alike letter of
 * another script read as the Latin one (`xn--rivl-73d.com`, `rivаl.com` with a Cyrillic `а`, is also `rival.com`).
 */
export function hostSkeleton(host: string): string {
  if (!host.includes('xn--')) return host;
  return parseHost(latinSkeleton(domainToUnicode(host))) ?? host;
}

/** `text` read as a host name by the URL parser (IDNA), without the checks {@link canonicalHost} adds. */
function parseHost(text: string): string | undefined {
  const host = normalizeText(text);
  if (host === '' || NOT_IN_HOST.test(host)) return undefined;
  let parsed: string;
  try {
    parsed = new URL(`http://${host}/`).hostname;
  } catch {
    return undefined;
  }
  const name = trimDots(parsed);
  return HOST_NAME.test(name) ? name : undefined;
}

/**
 * The host a value names: the host of an absolute URL (`https://api.example.com/x`), else the value read as a host
 * name (`api.example.com`, `api.example.com:443`); undefined when it names none.
 */
export function hostOf(value: string): string | undefined {
  if (HAS_CONTROL.test(value)) return undefined;
  const text = normalizeText(value);
  if (!URL_WITH_AUTHORITY.test(text)) return canonicalHost(text);
  try {
    return canonicalHost(new URL(text).hostname);
  } catch {
    return undefined;
  }
}

/**
 * The e-mail addresses a value holds, each as `local@host` (local part unquoted when it needs no quotes and case-folded,
 * host canonical), or undefined when any of them cannot be read (a control character anywhere is unreadable). Reads
 * `bob@example.com`, `"bob"@example.com`, `Bob <bob@example.com>`, `mailto:bob@example.com?subject=…`
 * (percent-decoded) and lists separated by `,` or `;` (outside quoted names).
 */
export function emailAddresses(value: string): string[] | undefined {
  const parts = addressParts(value, true);
  if (parts === undefined) return undefined;
  const addresses: string[] = [];
  for (const { local, host } of parts) {
    const name = canonicalHost(host);
    if (name === undefined) return undefined;
    addresses.push(`${foldCase(unquote(local))}@${name}`);
  }
  return addresses;
}

/**
 * The other spellings a deny or ask rule's string tests also try on `value`, when it reads as e-mail addresses or a
 * host name: each address or host as mail and DNS read it, case kept — trailing dots removed, ideographic and
 * full-width full stops as dots, punycode labels decoded, look-alike letters of other scripts as the Latin ones, a
 * local part that needs no quotes unquoted. `x@rival.com.`, `"x"@rival.com` and `x@rivаl.com` (Cyrillic `а`) are
 * all spelled `x@rival.com`. A value with a NUL is also read up to it, as software written in C reads it
 * (`x@rival.com\0.evil.org` is also `x@rival.com`). Empty when the value reads as none.
 */
export function addressSpellings(value: string): string[] {
  const nul = value.indexOf('\0');
  if (nul !== -1) return [...addressSpellings(value.slice(0, nul)), ...addressSpellings(value.replaceAll('\0', ''))];
  const parts = addressParts(value);
  if (parts !== undefined) return parts.map(({ local, host }) => `${unquote(local)}@${spellHost(host)}`);
  const text = normalizeText(value);
  return text === '' || NOT_IN_HOST.test(text) ? [] : [spellHost(text)];
}

/** `host` spelled as {@link addressSpellings} says, case kept. */
function spellHost(host: string): string {
  const labels = host.replace(FULL_STOPS, '.').split('.');
  const decoded = labels.map((label) => (/^xn--/i.test(label) ? domainToUnicode(label.toLowerCase()) || label : label));
  return trimDots(latinSkeleton(decoded.join('.')));
}

/** A quoted local part without its quotes when it needs none (`"bob"` is `bob`), else quoted once, escapes made plain. */
function unquote(local: string): string {
  if (local.length < 2 || !local.startsWith('"') || !local.endsWith('"')) return local;
  const inner = local.slice(1, -1).replace(/\\(.)/gu, '$1');
  return DOT_ATOM.test(inner) ? inner : `"${inner.replace(/["\\]/g, '\\$&')}"`;
}

/**
 * The local part and host of each address in `value` (normalized, `mailto:` read), or undefined when one has none;
 * with `strict`, also when a control character is there (percent-encoded ones included).
 */
function addressParts(value: string, strict = false): Array<{ local: string; host: string }> | undefined {
  if (strict && HAS_CONTROL.test(value)) return undefined;
  let text = normalizeText(value);
  if (/^mailto:/i.test(text)) {
    text = text.slice('mailto:'.length).split('?', 1)[0]!;
    try {
      text = decodeURIComponent(text);
    } catch {
      return undefined;
    }
    if (strict && HAS_CONTROL.test(text)) return undefined;
    text = normalizeText(text);
  }
  const parts: Array<{ local: string; host: string }> = [];
  for (const part of splitList(text)) {
    const angled = /<([^<>]*)>$/.exec(part);
    const address = (angled ? angled[1]! : part).trim();
    const at = address.lastIndexOf('@');
    if (at <= 0) return undefined;
    parts.push({ local: address.slice(0, at), host: address.slice(at + 1) });
  }
  return parts;
}

/** `text` split at each `,` or `;` outside double quotes (`"Doe, J" <j@example.com>` is one address), in one pass. */
function splitList(text: string): string[] {
  const parts: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i];
    if (char === '"') quoted = !quoted;
    else if (!quoted && (char === ',' || char === ';')) {
      parts.push(text.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(text.slice(start));
  return parts;
}

/** `text` without its trailing dots (a loop: a regular expression would take quadratic time on a long run of dots). */
function trimDots(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === '.') end--;
  return text.slice(0, end);
}
