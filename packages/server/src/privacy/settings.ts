import { createRequire } from 'node:module';

/** The built-in detectors of `spaces[].privacy` (docs/privacy.md), by the kind their tokens name. */
export const BUILTIN_DETECTORS = ['email', 'phone', 'iban', 'card'] as const;

/** One built-in detector. */
export type BuiltinDetector = (typeof BUILTIN_DETECTORS)[number];

/** A custom detector: values matching `pattern` (RE2 syntax: linear time, no lookaround or backreferences) become `[<name>_n]`. */
interface PrivacyPattern {
  /** The kind its tokens name: upper-case letters, digits and `_`, a letter first (`EMPLOYEE_ID` → `[EMPLOYEE_ID_1]`). */
  name: string;
  /** At most 200 characters (the config schema's bound). */
  pattern: string;
  ignoreCase?: boolean;
}

/**
 * `spaces[].privacy` as an object: which built-in detectors run (default all four), the region whose national phone
 * numbers count too (without it, only numbers written with `+` and a country code), and custom patterns.
 */
export interface PrivacySettings {
  detectors?: BuiltinDetector[];
  /** ISO 3166-1 alpha-2 region (`US`, `DE`) whose phone numbers written without a country code are found too. */
  phoneRegion?: string;
  patterns?: PrivacyPattern[];
}

/** What a custom pattern's name looks like. */
const PATTERN_NAME = /^[A-Z][A-Z0-9_]{0,31}$/;

/** The settings `privacy` stands for: `true` is every built-in detector; `false` or nothing is off (undefined). */
export function privacySettingsOf(privacy: boolean | PrivacySettings | undefined): PrivacySettings | undefined {
  if (privacy === undefined || privacy === false) return undefined;
  return privacy === true ? {} : privacy;
}

/**
 * Checks what the config schema cannot: custom pattern names unique and not a built-in kind, each pattern compiling
 * as RE2 (so matching takes linear time). `fail(key, problem)` throws the config error.
 */
export function checkPrivacySettings(settings: PrivacySettings, at: string, fail: (key: string, problem: string) => never): void {
  const names = new Set<string>(BUILTIN_DETECTORS.map((kind) => kind.toUpperCase()));
  settings.patterns?.forEach((pattern, i) => {
    const key = `${at}.patterns[${i}]`;
    if (!PATTERN_NAME.test(pattern.name)) fail(`${key}.name`, 'must be upper-case letters, digits and "_", a letter first (at most 32)');
    if (names.has(pattern.name)) fail(`${key}.name`, `"${pattern.name}" is already a detector of this space`);
    names.add(pattern.name);
    const problem = re2Problem(pattern);
    if (problem !== undefined) fail(`${key}.pattern`, `is not an RE2 pattern (no lookaround or backreferences): ${problem}`);
  });
}

/** Why `pattern` does not compile as RE2, or undefined when it does. */
function re2Problem(pattern: PrivacyPattern): string | undefined {
  // Loaded only for a config with custom patterns: the CLI's other paths never pay for it.
  const { RE2JS } = createRequire(import.meta.url)('re2js') as typeof import('re2js');
  try {
    RE2JS.compile(pattern.pattern, pattern.ignoreCase ? RE2JS.CASE_INSENSITIVE : 0);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
