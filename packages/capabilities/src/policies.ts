/**
 * The `policies` config key (docs/policies.md): what the host does with each capability call before it runs —
 * allow, ask a person, or deny; how long a person may take; rate limits; which secrets are redacted; the audit log.
 */
import type { RateLimit } from './define-tool.js';
import { isEnvName } from './placeholders.js';
import { RATE_PERIODS, isRatePeriod } from './rate-periods.js';
import { isRecord } from './shape.js';

/** What a rule decides for a call. */
export type PolicyAction = 'allow' | 'ask' | 'deny';

/**
 * When a person is asked (seed 000's `toolPermission`): `never` runs every call no rule denies, without asking;
 * `tool` (default) asks for calls whose function, capability or rule says so; `always` asks for every call.
 * Without an approver (headless) asking means denying, so `never` runs everything not denied, `tool` only calls that
 * need no approval, and `always` nothing.
 */
export type ToolPermission = 'never' | 'tool' | 'always';

/**
 * A test on one param: a plain value matches when equal; an object matches when every operator it holds matches
 * (`{ startsWith: '/tmp/', includes: 'log' }`). String operators never match a non-string value.
 */
export type ParamMatcher =
  | string
  | number
  | boolean
  | null
  | {
      equals?: unknown;
      oneOf?: readonly unknown[];
      startsWith?: string;
      endsWith?: string;
      includes?: string;
      /** A regular expression the whole string is searched with (`RegExp.test`). */
      matches?: string;
      /** Path inside this folder once `.`/`..` segments are resolved (`/tmp/../etc` is not within `/tmp`). */
      within?: string;
      lt?: number;
      lte?: number;
      gt?: number;
      gte?: number;
      /** `true`: the param is present; `false`: it is absent. */
      exists?: boolean;
    };

/** One rule: when every `when` entry matches (no `when` always matches), `then` decides. Keys of `when` are param paths (`to`, `address.city`). */
export interface PolicyRule {
  when?: Readonly<Record<string, ParamMatcher>>;
  then: PolicyAction;
}

/** The `policies` config key; every field is optional. */
export interface PoliciesConfig {
  /** Default `tool`; see {@link ToolPermission}. */
  toolPermission?: ToolPermission;
  /**
   * Keyed by `'<capability>.<function>'`, `'<capability>'` or `'*'` (capability id or export name, function name as
   * generated or as in its source). A plain action applies to every call; a list is tried in order and the first
   * matching rule decides. The most specific key with a matching rule wins; when none matches, the function's own
   * `requiresApproval` decides (`ask` or `allow`).
   */
  rules?: Readonly<Record<string, PolicyAction | readonly PolicyRule[]>>;
  /** How long a pending approval waits before it counts as denied, in ms (default 300 000). */
  approvalTimeoutMs?: number;
  /** Rate limits by `'<capability>'` or `'<capability>.<function>'`; they replace the definition's `config.rateLimit`. */
  rateLimits?: Readonly<Record<string, RateLimit>>;
  /** How long a call over a rate limit may wait for a free slot before it fails with `RATE_LIMITED` (default 0). */
  rateLimitMaxWaitMs?: number;
  /** Names of environment variables whose values are redacted (those used as `${VAR}` by capabilities always are). */
  secrets?: readonly string[];
  /**
   * The audit log `<outDir>/audit/<space>.jsonl`: `true` (default) writes each line whole before the call returns (it
   * survives a `kill -9` of the host), `'fsync'` also flushes it to disk (survives power loss; ~0.2 ms per call),
   * `false` turns it off.
   */
  audit?: boolean | 'fsync';
  /** Ask for approval of the whole script, showing its code, before it runs (default false). */
  approveScripts?: boolean;
}

const ACTIONS: readonly string[] = ['allow', 'ask', 'deny'];
const PERMISSIONS: readonly string[] = ['never', 'tool', 'always'];
const STRING_OPERATORS = ['startsWith', 'endsWith', 'includes', 'matches', 'within'] as const;
const NUMBER_OPERATORS = ['lt', 'lte', 'gt', 'gte'] as const;
const OPERATORS: readonly string[] = [...STRING_OPERATORS, ...NUMBER_OPERATORS, 'equals', 'oneOf', 'exists'];
const KEYS: readonly string[] = [
  'toolPermission',
  'rules',
  'approvalTimeoutMs',
  'rateLimits',
  'rateLimitMaxWaitMs',
  'secrets',
  'audit',
  'approveScripts',
];

/**
 * Checks a `policies` value; returns what is wrong with the first bad field, naming it
 * (`policies.rules["mail.send"][0].when.to: unknown operator "endWith"`), or undefined when valid.
 */
export function findPoliciesProblem(value: unknown): string | undefined {
  if (!isRecord(value)) return 'policies: must be an object';
  for (const [key, item] of Object.entries(value)) {
    if (!KEYS.includes(key)) return `policies.${key}: unknown key (known: ${KEYS.join(', ')})`;
    if (item === undefined) continue;
    const problem = checkField(key, item);
    if (problem) return `policies.${problem}`;
  }
  return undefined;
}

function checkField(key: string, item: unknown): string | undefined {
  switch (key) {
    case 'toolPermission':
      return PERMISSIONS.includes(item as string) ? undefined : `toolPermission: must be one of ${PERMISSIONS.join(', ')}`;
    case 'rules':
      return checkRules(item);
    case 'approvalTimeoutMs':
      return isPositive(item) ? undefined : `${key}: must be a positive number`;
    case 'rateLimitMaxWaitMs':
      return typeof item === 'number' && item >= 0 && Number.isFinite(item) ? undefined : `${key}: must be a number >= 0`;
    case 'rateLimits':
      if (!isRecord(item)) return 'rateLimits: must be an object';
      for (const [name, limit] of Object.entries(item)) {
        const problem = checkRateLimit(limit);
        if (problem) return `rateLimits[${JSON.stringify(name)}]${problem}`;
      }
      return undefined;
    case 'secrets':
      return Array.isArray(item) && item.every(isEnvName)
        ? undefined
        : 'secrets: must be an array of environment variable names';
    case 'audit':
      return typeof item === 'boolean' || item === 'fsync' ? undefined : 'audit: must be true, false or "fsync"';
    default:
      return typeof item === 'boolean' ? undefined : `${key}: must be a boolean`;
  }
}

function checkRules(value: unknown): string | undefined {
  if (!isRecord(value)) return 'rules: must be an object';
  for (const [key, entry] of Object.entries(value)) {
    const at = `rules[${JSON.stringify(key)}]`;
    if (key === '' || key.split('.').length > 2) return `${at}: the key must be '*', '<capability>' or '<capability>.<function>'`;
    if (typeof entry === 'string') {
      if (!ACTIONS.includes(entry)) return `${at}: must be allow, ask, deny or a list of rules`;
      continue;
    }
    if (!Array.isArray(entry)) return `${at}: must be allow, ask, deny or a list of rules`;
    for (const [index, rule] of entry.entries()) {
      const problem = checkRule(rule);
      if (problem) return `${at}[${index}]${problem}`;
    }
  }
  return undefined;
}

function checkRule(rule: unknown): string | undefined {
  if (!isRecord(rule)) return ': must be an object { when?, then }';
  for (const key of Object.keys(rule)) if (key !== 'when' && key !== 'then') return `: unknown key "${key}" (known: when, then)`;
  if (!ACTIONS.includes(rule.then as string)) return '.then: must be allow, ask or deny';
  if (rule.when === undefined) return undefined;
  if (!isRecord(rule.when)) return '.when: must be an object of param paths';
  for (const [path, matcher] of Object.entries(rule.when)) {
    const problem = checkMatcher(matcher);
    if (problem) return `.when[${JSON.stringify(path)}]: ${problem}`;
  }
  return undefined;
}

function checkMatcher(matcher: unknown): string | undefined {
  if (matcher === null || ['string', 'number', 'boolean'].includes(typeof matcher)) return undefined;
  if (!isRecord(matcher)) return 'must be a value or an object of operators';
  const keys = Object.keys(matcher);
  if (keys.length === 0) return `needs at least one operator (${OPERATORS.join(', ')})`;
  for (const key of keys) {
    const operand = matcher[key];
    if (!OPERATORS.includes(key)) return `unknown operator "${key}" (known: ${OPERATORS.join(', ')})`;
    if ((STRING_OPERATORS as readonly string[]).includes(key) && typeof operand !== 'string') return `${key} must be a string`;
    if ((NUMBER_OPERATORS as readonly string[]).includes(key) && (typeof operand !== 'number' || Number.isNaN(operand))) return `${key} must be a number`;
    if (key === 'oneOf' && !Array.isArray(operand)) return 'oneOf must be an array';
    if (key === 'exists' && typeof operand !== 'boolean') return 'exists must be a boolean';
    if (key === 'within' && !(operand as string).startsWith('/')) return 'within must be an absolute path';
    if (key === 'matches') {
      try {
        new RegExp(operand as string);
      } catch (error) {
        return `matches is not a regular expression: ${(error as Error).message}`;
      }
    }
  }
  return undefined;
}

function checkRateLimit(limit: unknown): string | undefined {
  if (!isRecord(limit)) return ': must be { requests, period }';
  if (!Number.isInteger(limit.requests) || !((limit.requests as number) > 0)) return '.requests: must be a positive integer';
  if (!isRatePeriod(limit.period)) {
    return `.period: must be a positive number of ms or one of ${RATE_PERIODS.join(', ')}`;
  }
  return undefined;
}

function isPositive(value: unknown): boolean {
  return typeof value === 'number' && value > 0 && Number.isFinite(value);
}
