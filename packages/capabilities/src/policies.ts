/**
 * The `policies` config key (docs/policies.md): what the host does with each capability call before it runs —
 * allow, ask a person, or deny; how long a person may take; rate limits; which secrets are redacted; the audit log.
 */
import type { RateLimit } from './define-tool.js';
import { isEnvName } from './placeholders.js';
import { RATE_PERIODS, isRatePeriod } from './rate-periods.js';
import { canonicalHost, emailAddresses, normalizeText } from './policy-text.js';
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

/** One host name, e-mail address or domain, or a list of them (any of which matches). */
export type OneOrMore = string | readonly string[];

/**
 * A test on one param: a plain value matches when equal; an object matches when every operator it holds matches
 * (`{ startsWith: '/tmp/', includes: 'log' }`). String operators never match a non-string value. Strings are compared
 * normalized (docs/policies.md, "How values are compared"): NFKC, invisible characters removed, whitespace collapsed,
 * trimmed.
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
      /** A regular expression the normalized string is searched with (`RegExp.test`); needs `ignoreCase`. */
      matches?: string;
      /**
       * Whether the string operators of this matcher ignore case (`'Straße'` equals `'STRASSE'`). Required with
       * `matches`, so every pattern says it; default false elsewhere.
       */
      ignoreCase?: boolean;
      /**
       * Path inside this folder once symbolic links, `.` and `..` are resolved on both sides; a path that cannot be
       * resolved (relative, a dangling or looping link, …) gets the call denied.
       */
      within?: string;
      /** A host name (or the host of a URL) equal to one of these; case, trailing dots, ports and IDN forms do not count. */
      host?: OneOrMore;
      /** A host name (or the host of a URL) equal to one of these domains or under it (`api.example.com` is under `example.com`). */
      domain?: OneOrMore;
      /** E-mail address(es) equal to one of these (case-insensitive; `Name <a@b>`, `mailto:` and lists are read). */
      email?: OneOrMore;
      /** E-mail address(es) whose host is one of these domains or under it. */
      emailDomain?: OneOrMore;
      lt?: number;
      lte?: number;
      gt?: number;
      gte?: number;
      /** `true`: the param is present; `false`: it is absent. */
      exists?: boolean;
    };

/**
 * A test on the principal a call is made for (a call without one is `local`): every key given must match (AND), any
 * value of a key may (OR). `users` matches the principal's `subject` or its `id` (`alice`, `user:alice`, `local`,
 * `token:…`), `groups` and `scopes` any of the principal's, `clients` its `clientId`.
 */
export interface PrincipalMatch {
  users?: OneOrMore;
  groups?: OneOrMore;
  scopes?: OneOrMore;
  clients?: OneOrMore;
}

/**
 * Who may answer an approval request (docs/policies.md, "Who may approve"): `others: true` — not the principal who
 * made the call; `groups` — only a principal in one of them. The host's operator (`agent-spaces approvals` on the host,
 * `space.approvals.resolve`) may always answer.
 */
export interface ApproversConfig {
  others?: boolean;
  groups?: OneOrMore;
}

/**
 * One rule: it applies when every `when` entry matches (no `when` always matches), `who` (if any) matches the call's
 * principal and `except` (if any) does not; then `then` decides. Keys of `when` are param paths (`to`, `address.city`).
 * An `ask` rule may say who may answer (`approvers`, over `policies.approvers`).
 */
export interface PolicyRule {
  when?: Readonly<Record<string, ParamMatcher>>;
  who?: PrincipalMatch;
  except?: PrincipalMatch;
  then: PolicyAction;
  approvers?: ApproversConfig;
}

/** The `policies` config key; every field is optional. */
export interface PoliciesConfig {
  /** Default `tool`; see {@link ToolPermission}. */
  toolPermission?: ToolPermission;
  /**
   * Keyed by `'<capability>.<function>'`, `'<capability>'` or `'*'` (capability id or export name, function name as
   * generated or as in its source). A plain action applies to every call; a list is tried in order and the first
   * matching rule decides. The most specific key with a matching rule wins; when none matches, the function's own
   * `requiresApproval` decides (`ask` or `allow`). A space refuses keys that name none of its capabilities or functions.
   */
  rules?: Readonly<Record<string, PolicyAction | readonly PolicyRule[]>>;
  /** How long a pending approval waits before it counts as denied, in ms (default 300 000). */
  approvalTimeoutMs?: number;
  /** Who may answer approval requests (default: anyone who may answer them today); a rule's `approvers` replaces it. */
  approvers?: ApproversConfig;
  /** Rate limits by `'<capability>'` or `'<capability>.<function>'`; they replace the definition's `config.rateLimit`. */
  rateLimits?: Readonly<Record<string, RateLimit>>;
  /** How long a call over a rate limit may wait for a free slot before it fails with `RATE_LIMITED` (default 0). */
  rateLimitMaxWaitMs?: number;
  /** Names of environment variables whose values are redacted (those used as `${VAR}` by capabilities always are). */
  secrets?: readonly string[];
  /**
   * The audit log `<outDir>/audit/<space>.jsonl`: `true` (default) writes each line whole before the call returns (it
   * survives a `kill -9` of the host), `'fsync'` also flushes it to disk (survives power loss; ~0.2 ms per call),
   * `false` turns it off; an {@link AuditConfig} sets its rotation (the file is rotated by size, 64 MiB by default).
   */
  audit?: boolean | 'fsync' | AuditConfig;
  /** Ask for approval of the whole script, showing its code, before it runs (default false). */
  approveScripts?: boolean;
}

/** `policies.audit` as an object: the audit log on, with these settings (docs/policies.md, "The audit log"). */
export interface AuditConfig {
  /** Also flush each line to disk, as `audit: 'fsync'` (default false). */
  fsync?: boolean;
  /** Size in bytes past which the file is rotated to `<space>.jsonl.1` (default 64 MiB; at least 4096). */
  maxBytes?: number;
  /** Rotated files kept, `.1` the newest (default 4; 0 keeps none). */
  keep?: number;
}

const ACTIONS: readonly string[] = ['allow', 'ask', 'deny'];
const PERMISSIONS: readonly string[] = ['never', 'tool', 'always'];
const STRING_OPERATORS = ['startsWith', 'endsWith', 'includes', 'matches', 'within'] as const;
const NUMBER_OPERATORS = ['lt', 'lte', 'gt', 'gte'] as const;
/** Operators whose operand is one or more host names, domains or e-mail addresses, and how each operand is read. */
const NAME_OPERATORS: Readonly<Record<string, { what: string; read: (text: string) => unknown }>> = {
  host: { what: 'a host name', read: canonicalHost },
  domain: { what: 'a domain name', read: canonicalHost },
  email: { what: 'one e-mail address', read: (text) => (emailAddresses(text)?.length === 1 ? true : undefined) },
  emailDomain: { what: 'a domain name', read: canonicalHost },
};
const OPERATORS: readonly string[] = [...STRING_OPERATORS, ...NUMBER_OPERATORS, ...Object.keys(NAME_OPERATORS), 'equals', 'oneOf', 'ignoreCase', 'exists'];
const KEYS: readonly string[] = [
  'toolPermission',
  'rules',
  'approvalTimeoutMs',
  'approvers',
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
    case 'approvers':
      return checkApprovers(item, 'approvers');
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
      return typeof item === 'boolean' || item === 'fsync' ? undefined : checkAudit(item);
    default:
      return typeof item === 'boolean' ? undefined : `${key}: must be a boolean`;
  }
}

function checkRules(value: unknown): string | undefined {
  if (!isRecord(value)) return 'rules: must be an object';
  for (const [key, entry] of Object.entries(value)) {
    const at = `rules[${JSON.stringify(key)}]`;
    if (key.split('.').includes('')) return `${at}: the key must be '*', '<capability>' or '<capability>.<function>'`;
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

const RULE_KEYS: readonly string[] = ['when', 'who', 'except', 'then', 'approvers'];
const PRINCIPAL_KEYS: readonly string[] = ['users', 'groups', 'scopes', 'clients'];

function checkRule(rule: unknown): string | undefined {
  if (!isRecord(rule)) return ': must be an object { when?, who?, except?, then, approvers? }';
  for (const key of Object.keys(rule)) if (!RULE_KEYS.includes(key)) return `: unknown key "${key}" (known: ${RULE_KEYS.join(', ')})`;
  if (!ACTIONS.includes(rule.then as string)) return '.then: must be allow, ask or deny';
  for (const key of ['who', 'except'] as const) {
    const problem = rule[key] === undefined ? undefined : checkPrincipalMatch(rule[key], key);
    if (problem) return `.${problem}`;
  }
  if (rule.approvers !== undefined) {
    if (rule.then !== 'ask') return '.approvers: only an ask rule has approvers';
    const problem = checkApprovers(rule.approvers, 'approvers');
    if (problem) return `.${problem}`;
  }
  if (rule.when === undefined) return undefined;
  if (!isRecord(rule.when)) return '.when: must be an object of param paths';
  for (const [path, matcher] of Object.entries(rule.when)) {
    const problem = checkMatcher(matcher);
    if (problem) return `.when[${JSON.stringify(path)}]: ${problem}`;
  }
  return undefined;
}

/** Checks a `who` / `except` value (`at` names it). */
function checkPrincipalMatch(value: unknown, at: string): string | undefined {
  if (!isRecord(value)) return `${at}: must be an object { users?, groups?, scopes?, clients? }`;
  const keys = Object.keys(value);
  if (keys.length === 0) return `${at}: needs at least one of ${PRINCIPAL_KEYS.join(', ')}`;
  for (const key of keys) {
    if (!PRINCIPAL_KEYS.includes(key)) return `${at}.${key}: unknown key (known: ${PRINCIPAL_KEYS.join(', ')})`;
    if (!isNames(value[key])) return `${at}.${key}: must be a non-empty string or a non-empty list of them`;
  }
  return undefined;
}

/** Checks a `policies.approvers` or rule `approvers` value (`at` names it). */
function checkApprovers(value: unknown, at: string): string | undefined {
  if (!isRecord(value)) return `${at}: must be an object { others?, groups? }`;
  for (const [key, item] of Object.entries(value)) {
    if (key === 'others') {
      if (typeof item !== 'boolean') return `${at}.others: must be a boolean`;
    } else if (key === 'groups') {
      if (!isNames(item)) return `${at}.groups: must be a non-empty string or a non-empty list of them`;
    } else {
      return `${at}.${key}: unknown key (known: others, groups)`;
    }
  }
  return undefined;
}

/** A non-empty string, or a non-empty list of non-empty strings. */
function isNames(value: unknown): boolean {
  const list: unknown[] = Array.isArray(value) ? value : [value];
  return list.length > 0 && list.every((item) => typeof item === 'string' && item !== '');
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
    if ((key === 'startsWith' || key === 'endsWith' || key === 'includes') && normalizeText(operand as string) === '') {
      return `${key} is empty once normalized (invisible characters and surrounding spaces are not compared; find them with matches)`;
    }
    if ((NUMBER_OPERATORS as readonly string[]).includes(key) && (typeof operand !== 'number' || Number.isNaN(operand))) return `${key} must be a number`;
    if (key === 'oneOf' && !Array.isArray(operand)) return 'oneOf must be an array';
    if ((key === 'exists' || key === 'ignoreCase') && typeof operand !== 'boolean') return `${key} must be a boolean`;
    if (key === 'within' && (!(operand as string).startsWith('/') || (operand as string).includes('\0'))) return 'within must be an absolute path';
    const names = NAME_OPERATORS[key];
    if (names) {
      const list: unknown[] = Array.isArray(operand) ? operand : [operand];
      if (list.length === 0) return `${key} must be ${names.what} or a non-empty list of them`;
      const bad = list.find((item) => typeof item !== 'string' || names.read(item) === undefined);
      if (bad !== undefined) return `${key} must be ${names.what} or a list of them, not ${JSON.stringify(bad)}`;
    }
  }
  if (matcher.matches !== undefined) {
    if (typeof matcher.ignoreCase !== 'boolean') {
      return 'matches needs ignoreCase: true or false (a case-sensitive pattern lets "x@RIVAL.com" past "rival")';
    }
    try {
      new RegExp(matcher.matches as string, matcher.ignoreCase ? 'i' : '');
    } catch (error) {
      return `matches is not a regular expression: ${(error as Error).message}`;
    }
  }
  return undefined;
}

function checkAudit(audit: unknown): string | undefined {
  if (!isRecord(audit)) return 'audit: must be true, false, "fsync" or { fsync?, maxBytes?, keep? }';
  for (const [key, value] of Object.entries(audit)) {
    if (key === 'fsync') {
      if (typeof value !== 'boolean') return 'audit.fsync: must be a boolean';
    } else if (key === 'maxBytes') {
      if (!Number.isSafeInteger(value) || (value as number) < 4096) return 'audit.maxBytes: must be an integer of at least 4096 (bytes)';
    } else if (key === 'keep') {
      if (!Number.isSafeInteger(value) || (value as number) < 0) return 'audit.keep: must be an integer >= 0';
    } else {
      return `audit.${key}: unknown key (known: fsync, maxBytes, keep)`;
    }
  }
  return undefined;
}

function checkRateLimit(limit: unknown): string | undefined {
  if (!isRecord(limit)) return ': must be { requests, period, per? }';
  if (limit.per !== undefined && limit.per !== 'space' && limit.per !== 'user') return '.per: must be "space" or "user"';
  if (!Number.isInteger(limit.requests) || !((limit.requests as number) > 0)) return '.requests: must be a positive integer';
  if (!isRatePeriod(limit.period)) {
    return `.period: must be a positive number of ms or one of ${RATE_PERIODS.join(', ')}`;
  }
  return undefined;
}

function isPositive(value: unknown): boolean {
  return typeof value === 'number' && value > 0 && Number.isFinite(value);
}
