import type { Detect } from './detectors.js';

/** The most values one vault holds; later values are written as `[KIND]`, which nothing restores. */
const MAX_VALUES = 10_000;
/** How many characters one answer may have scanned; strings past that reach the model as a withheld note. */
export const SCAN_BUDGET = 1 << 20;
/** Deeper than this, a value reaches the model as a withheld note. */
const MAX_DEPTH = 256;
/** A token as the model may write it back: `[EMAIL_1]`, `[EMPLOYEE_ID_12]`. */
const TOKEN = /\[([A-Z][A-Z0-9_]{0,31})_([1-9]\d{0,5})\]/g;
/** Characters a value keeps as they are when it is written into code; any other becomes a `\uXXXX` escape. */
const PLAIN_IN_CODE = /[^A-Za-z0-9 @._+-]/g;

/** What tokenizing and restoring did in one tool call: values tokenized per kind, strings withheld, tokens restored. */
export class Tally {
  readonly tokenized = new Map<string, number>();
  withheld = 0;
  restored = 0;

  /** Total values tokenized. */
  get tokens(): number {
    let total = 0;
    for (const count of this.tokenized.values()) total += count;
    return total;
  }

  /** `EMAIL=2,PHONE=1`: the counts per kind, for the log. */
  kinds(): string {
    return [...this.tokenized].map(([kind, count]) => `${kind}=${count}`).join(',');
  }
}

/** What one scan may still read ({@link SCAN_BUDGET}) and counts into. */
export interface Scan {
  detect: Detect;
  tally: Tally;
  remaining: number;
}

/**
 * The tokens of one scope (a client's connection in one space): the same value always gets the same token, and only
 * tokens this vault gave out are restored. Values live only in memory.
 */
export class PrivacyVault {
  readonly #tokens = new Map<string, string>();
  readonly #values = new Map<string, string>();
  readonly #counts = new Map<string, number>();

  /** `text` with each value `scan.detect` finds replaced by its token (a text past the scan's budget: a withheld note). */
  tokenizeText(text: string, scan: Scan): string {
    if (text.length > scan.remaining) {
      scan.tally.withheld++;
      return `[WITHHELD: ${text.length} characters not scanned for personal data]`;
    }
    scan.remaining -= text.length;
    const found = scan.detect(text);
    if (found.length === 0) return text;
    let out = '';
    let at = 0;
    for (const { start, end, kind } of found) {
      out += text.slice(at, start) + this.#tokenFor(kind, text.slice(start, end));
      scan.tally.tokenized.set(kind, (scan.tally.tokenized.get(kind) ?? 0) + 1);
      at = end;
    }
    return out + text.slice(at);
  }

  /**
   * `value` (JSON data: what `JSON.parse` gives) with every string and object key tokenized; a value nested deeper
   * than {@link MAX_DEPTH} is withheld.
   */
  tokenizeData(value: unknown, scan: Scan, depth = 0): unknown {
    if (typeof value === 'string') return this.tokenizeText(value, scan);
    if (typeof value !== 'object' || value === null) return value;
    if (depth > MAX_DEPTH) {
      scan.tally.withheld++;
      return '[WITHHELD: nested too deeply to scan for personal data]';
    }
    if (Array.isArray(value)) return value.map((item) => this.tokenizeData(item, scan, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[this.tokenizeText(key, scan)] = this.tokenizeData(item, scan, depth + 1);
    return out;
  }

  /**
   * `text` with each token of this vault replaced by its value; `inCode` writes the value so that it reads as itself
   * inside any string or template literal (`\uXXXX` escapes). Unknown tokens stay as they are.
   */
  restoreText(text: string, tally: Tally, inCode = false): string {
    if (!text.includes('[')) return text;
    return text.replace(TOKEN, (token) => {
      const value = this.#values.get(token);
      if (value === undefined) return token;
      tally.restored++;
      return inCode ? value.replace(PLAIN_IN_CODE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`) : value;
    });
  }

  /** `value` (JSON data) with tokens restored in every string and object key. */
  restoreData(value: unknown, tally: Tally, depth = 0): unknown {
    if (typeof value === 'string') return this.restoreText(value, tally);
    if (typeof value !== 'object' || value === null || depth > MAX_DEPTH) return value;
    if (Array.isArray(value)) return value.map((item) => this.restoreData(item, tally, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [key, item] of Object.entries(value)) out[this.restoreText(key, tally)] = this.restoreData(item, tally, depth + 1);
    return out;
  }

  #tokenFor(kind: string, value: string): string {
    const key = `${kind}\u0000${value}`;
    const known = this.#tokens.get(key);
    if (known !== undefined) return known;
    if (this.#values.size >= MAX_VALUES) return `[${kind}]`;
    const n = (this.#counts.get(kind) ?? 0) + 1;
    this.#counts.set(kind, n);
    const token = `[${kind}_${n}]`;
    this.#tokens.set(key, token);
    this.#values.set(token, value);
    return token;
  }
}
