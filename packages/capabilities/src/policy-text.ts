/**
 * How policy rules read strings (docs/policies.md, "How values are compared"): one reading shared by the config check
 * (rule operands) and the bridge (call params), so a rule and the value it is tested on are read the same way.
 */

/** Printable ASCII without spaces: already normal, and the common case (ids, e-mail addresses, paths). */
const PLAIN = /^[\x21-\x7e]*$/;
/** Code points that render as nothing: zero-width spaces and joiners, soft hyphen, bidi marks, variation selectors, tags… */
const IGNORABLE = /\p{Default_Ignorable_Code_Point}/gu;
const SPACES = /\s+/g;
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
 * variation selectors, tag characters) removed, Unicode NFKC (full-width letters, ligatures, mathematical and circled
 * letters become plain ones), runs of whitespace made one space, trimmed.
 * @example
 * normalizeText(' ｒｉｖａｌ\u200b.com ') // 'rival.com'
 */
export function normalizeText(text: string): string {
  if (PLAIN.test(text)) return text;
  return text.replace(IGNORABLE, '').normalize('NFKC').replace(IGNORABLE, '').replace(SPACES, ' ').trim();
}

/** `text` with case folded (`'Straße'` and `'STRASSE'` both give `'strasse'`), for `ignoreCase` and host names. */
export function foldCase(text: string): string {
  return text.toUpperCase().toLowerCase();
}

/**
 * A host name as DNS sees it, or undefined when `text` is not one: normalized ({@link normalizeText}), lower case,
 * internationalized names in their ASCII (punycode) form, trailing dots and a `:port` removed, IP addresses in their
 * canonical form (`0x7f.1` is `127.0.0.1`).
 * @example
 * canonicalHost('Bücher.EXAMPLE.') // 'xn--bcher-kva.example'
 */
export function canonicalHost(text: string): string | undefined {
  const plain = trimDots(text);
  if (HOST_NAME.test(plain) && plain[0] !== '[' && !plain.includes('xn--') && !NUMBER_LABEL.test(plain.slice(plain.lastIndexOf('.') + 1))) {
    return plain; // already canonical: skip the URL parser
  }
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
  const text = normalizeText(value);
  if (!URL_WITH_AUTHORITY.test(text)) return canonicalHost(text);
  try {
    return canonicalHost(new URL(text).hostname);
  } catch {
    return undefined;
  }
}

/**
 * The e-mail addresses a value holds, each as `local@host` (local part case-folded, host canonical), or undefined
 * when any of them cannot be read. Reads `bob@example.com`, `Bob <bob@example.com>`, `mailto:bob@example.com?subject=…`
 * (percent-decoded) and lists separated by `,` or `;` (outside quoted names).
 */
export function emailAddresses(value: string): string[] | undefined {
  let text = normalizeText(value);
  if (/^mailto:/i.test(text)) {
    text = text.slice('mailto:'.length).split('?', 1)[0]!;
    try {
      text = normalizeText(decodeURIComponent(text));
    } catch {
      return undefined;
    }
  }
  const addresses: string[] = [];
  for (const part of splitList(text)) {
    const angled = /<([^<>]*)>$/.exec(part);
    const address = (angled ? angled[1]! : part).trim();
    const at = address.lastIndexOf('@');
    const host = at > 0 ? canonicalHost(address.slice(at + 1)) : undefined;
    if (host === undefined) return undefined;
    addresses.push(`${foldCase(address.slice(0, at))}@${host}`);
  }
  return addresses;
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
