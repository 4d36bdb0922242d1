import {
  addressSpellings,
  canonicalHost,
  emailAddresses,
  foldCase,
  hostOf,
  hostSkeleton,
  LOCAL_PRINCIPAL,
  normalizeText,
  type ApproversConfig,
  type OneOrMore,
  type ParamMatcher,
  type PolicyAction,
  type PolicyRule,
  type PoliciesConfig,
  type Principal,
  type PrincipalMatch,
} from '@agent-spaces/capabilities';
import { isInside, realPathOf } from './real-path.js';
import type { HostFunction, PendingCall } from './types.js';

/**
 * What the rules decided for a call, and which rule did (`policies.rules["mail.send"][0]`). `reason` is set when a
 * test could not be made (a path that cannot be resolved): the call is then denied, saying why.
 */
interface RuleMatch {
  action: PolicyAction;
  by: string;
  reason?: string;
  /** Who may answer, when the deciding rule says (`ask` rules only). */
  approvers?: ApproversConfig;
}

/** Finds the deciding rule for a call, or undefined when no rule matches. */
export type RuleSet = (call: PendingCall) => RuleMatch | undefined;

type Param = { found: boolean; value: unknown };
type ValueTest = (param: Param) => boolean;
type Test = (params: Record<string, unknown>) => boolean;
type PrincipalTest = (principal: Principal) => boolean;
interface CompiledRule {
  test: Test;
  /** Whether the rule applies to the call's principal (`who` and `except`); absent: to everyone. */
  applies?: PrincipalTest;
  action: PolicyAction;
  by: string;
  approvers?: ApproversConfig;
}

/** Thrown by a test that cannot be made for this call: the call is denied with `reason`. */
class Unresolvable {
  constructor(readonly reason: string) {}
}

const MAX_VALUE_IN_REASON = 200;

/**
 * Compiles `policies.rules` (checked by `findPoliciesProblem`) into a lookup: rules under `'<capability>.<function>'`
 * are tried first, then `'<capability>'`, then `'*'`; within a key, in order; the first matching rule decides.
 * Normalization never widens what a rule lets through: an `allow` rule's string tests must hold for the value as given
 * and for its normalized form, a `deny` or `ask` rule's for either (docs/policies.md, "How values are compared").
 */
export function compileRules(rules: PoliciesConfig['rules'] = {}): RuleSet {
  const byKey = new Map<string, CompiledRule[]>();
  for (const [key, entry] of Object.entries(rules)) {
    const at = `policies.rules[${JSON.stringify(key)}]`;
    const list: readonly PolicyRule[] = typeof entry === 'string' ? [{ then: entry }] : entry;
    byKey.set(
      key,
      list.map((rule, index) => {
        const applies = compileWho(rule.who, rule.except);
        return {
          test: compileWhen(rule.when, rule.then === 'allow'),
          ...(applies ? { applies } : {}),
          action: rule.then,
          by: typeof entry === 'string' ? at : `${at}[${index}]`,
          ...(rule.approvers ? { approvers: rule.approvers } : {}),
        };
      }),
    );
  }
  if (byKey.size === 0) return () => undefined;
  // The rules that apply to a function, most specific key first: found once per function.
  const applicable = new WeakMap<HostFunction, CompiledRule[]>();
  const rulesFor = (call: PendingCall): CompiledRule[] => {
    let list = applicable.get(call.function);
    if (!list) {
      const capabilityNames = unique([call.capability.id, call.capability.exportName]);
      const functionNames = unique([call.function.name, call.function.sourceName]);
      const keys = [...capabilityNames.flatMap((c) => functionNames.map((f) => `${c}.${f}`)), ...capabilityNames, '*'];
      list = keys.flatMap((key) => byKey.get(key) ?? []);
      applicable.set(call.function, list);
    }
    return list;
  };
  return (call) => {
    const principal = call.principal ?? LOCAL_PRINCIPAL;
    for (const rule of rulesFor(call)) {
      if (rule.applies && !rule.applies(principal)) continue;
      try {
        if (rule.test(call.params)) return { action: rule.action, by: rule.by, ...(rule.approvers ? { approvers: rule.approvers } : {}) };
      } catch (error) {
        if (!(error instanceof Unresolvable)) throw error;
        return { action: 'deny', by: rule.by, reason: `${rule.by}: ${error.reason}` };
      }
    }
    return undefined;
  };
}

/** The principal test of a rule's `who` and `except`: `who` matches and `except` does not; undefined when it has neither. */
function compileWho(who: PrincipalMatch | undefined, except: PrincipalMatch | undefined): PrincipalTest | undefined {
  const included = who && compilePrincipalMatch(who);
  const excluded = except && compilePrincipalMatch(except);
  if (included && excluded) return (principal) => included(principal) && !excluded(principal);
  if (excluded) return (principal) => !excluded(principal);
  return included;
}

/**
 * A {@link PrincipalMatch} as a test: each key given must match (set lookups), any of its values may. `users` names
 * principal ids (`local`, `user:<sub>`, `token:<hash>`) or, any other name, a user's subject — so a user whose `sub`
 * is `local` or `token:…` is never taken for that principal. `groups` / `scopes` match any of the principal's.
 */
function compilePrincipalMatch(match: PrincipalMatch): PrincipalTest {
  const setOf = (names: OneOrMore | undefined) => (names === undefined ? undefined : new Set(list(names)));
  const users = setOf(match.users && list(match.users).map((name) => (isPrincipalId(name) ? name : `user:${name}`)));
  const groups = setOf(match.groups);
  const scopes = setOf(match.scopes);
  const clients = setOf(match.clients);
  const anyOf = (set: Set<string>, values: readonly string[]) => values.some((value) => set.has(value));
  return (principal) =>
    (!users || users.has(principal.id)) &&
    (!groups || anyOf(groups, principal.groups)) &&
    (!scopes || anyOf(scopes, principal.scopes)) &&
    (!clients || (principal.clientId !== undefined && clients.has(principal.clientId)));
}

/** Whether a `users` entry names a principal id rather than a user's subject. */
function isPrincipalId(name: string): boolean {
  return name === LOCAL_PRINCIPAL.id || name.startsWith('user:') || name.startsWith('token:');
}

/** `strict`: the rule allows, so a test must hold for every reading of a value (see {@link compileRules}). */
function compileWhen(when: PolicyRule['when'], strict: boolean): Test {
  if (when === undefined) return () => true;
  const tests = Object.entries(when).map(([path, matcher]) => {
    const segments = path.split('.');
    const test = compileMatcher(matcher, strict, path);
    return (params: Record<string, unknown>) => test(lookup(params, segments));
  });
  return (params) => tests.every((test) => test(params));
}

/** Reads a param by path through own properties only (`constructor`, `__proto__` never reach a prototype). */
function lookup(params: Record<string, unknown>, segments: readonly string[]): Param {
  let current: unknown = params;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[segment];
  }
  return { found: true, value: current };
}

function compileMatcher(matcher: ParamMatcher, strict: boolean, path: string): ValueTest {
  if (typeof matcher !== 'object' || matcher === null) return compileMatcher({ equals: matcher }, strict, path);
  const m = matcher;
  const ignoreCase = m.ignoreCase === true;
  const asWritten = ignoreCase ? foldCase : (text: string) => text;
  const normal = ignoreCase ? (text: string) => foldCase(normalizeText(text)) : normalizeText;
  /** A string test with an operand read both ways: as written against the value as given, normalized against normalized. */
  const text = <T>(operand: (read: (text: string) => string) => T, check: (value: string, operand: T) => boolean): ValueTest =>
    textTest(strict, asWritten, normal, operand(asWritten), operand(normal), check);
  // A deny or ask rule also reads host names with their look-alike letters as Latin ones (see `hostSkeleton`).
  const hostNames = strict ? readHosts : readHostSkeletons;
  const emails = strict ? readEmails : readEmailSkeletons;
  const num = (check: (value: number) => boolean): ValueTest => ({ value }) => typeof value === 'number' && check(value);
  const tests: ValueTest[] = [];
  if (m.exists !== undefined) tests.push(({ found }) => found === m.exists);
  if (Object.hasOwn(m, 'equals')) {
    const operand = m.equals;
    if (typeof operand === 'string') tests.push(text((read) => read(operand), (v, o) => v === o));
    else tests.push(({ found, value }) => found && isEqual(value, operand));
  }
  if (m.oneOf !== undefined) {
    const strings = m.oneOf.filter((option): option is string => typeof option === 'string');
    const others = m.oneOf.filter((option) => typeof option !== 'string');
    const oneOfText = text((read) => new Set(strings.map(read)), (v, options) => options.has(v));
    tests.push((param) => (typeof param.value === 'string' ? oneOfText(param) : param.found && others.some((option) => isEqual(param.value, option))));
  }
  if (m.startsWith !== undefined) tests.push(text((read) => read(m.startsWith!), (v, o) => v.startsWith(o)));
  if (m.endsWith !== undefined) tests.push(text((read) => read(m.endsWith!), (v, o) => v.endsWith(o)));
  if (m.includes !== undefined) tests.push(text((read) => read(m.includes!), (v, o) => v.includes(o)));
  if (m.matches !== undefined) {
    const pattern = new RegExp(m.matches, ignoreCase ? 'i' : '');
    tests.push(text(() => pattern, (v, o) => o.test(v)));
  }
  if (m.within !== undefined) tests.push(withinTest(m.within, path));
  if (m.host !== undefined) {
    const hosts = new Set(hostsOf(m.host));
    tests.push(nameTest(strict, hostNames, (host) => hosts.has(host)));
  }
  if (m.domain !== undefined) {
    const domains = hostsOf(m.domain);
    tests.push(nameTest(strict, hostNames, (host) => isUnder(host, domains)));
  }
  if (m.email !== undefined) {
    const addresses = new Set(list(m.email).flatMap((email) => emailAddresses(email) ?? []));
    tests.push(nameTest(strict, emails, (address) => addresses.has(address)));
  }
  if (m.emailDomain !== undefined) {
    const domains = hostsOf(m.emailDomain);
    tests.push(nameTest(strict, emails, (address) => isUnder(address.slice(address.lastIndexOf('@') + 1), domains)));
  }
  if (m.lt !== undefined) tests.push(num((v) => v < m.lt!));
  if (m.lte !== undefined) tests.push(num((v) => v <= m.lte!));
  if (m.gt !== undefined) tests.push(num((v) => v > m.gt!));
  if (m.gte !== undefined) tests.push(num((v) => v >= m.gte!));
  return (param) => tests.every((test) => test(param));
}

/**
 * A test on a string param, made on the value as given (against the operand as written) and on its normalized form
 * (against the normalized operand): both must hold when `strict` (an `allow` rule), either otherwise. One check is
 * made when neither reading changes anything. A `deny` or `ask` rule also tries the spellings of the e-mail addresses
 * or host name the value reads as (`addressSpellings`: `x@rival.com.` is also `x@rival.com`), normalized.
 */
function textTest<T>(
  strict: boolean,
  asWritten: (text: string) => string,
  normal: (text: string) => string,
  writtenOperand: T,
  normalOperand: T,
  check: (value: string, operand: T) => boolean,
): ValueTest {
  const sameOperand = isSame(writtenOperand, normalOperand);
  return ({ found, value }) => {
    if (!found || typeof value !== 'string') return false;
    const given = asWritten(value);
    const normalized = normal(value);
    const same = sameOperand && given === normalized;
    if (strict) return check(given, writtenOperand) && (same || check(normalized, normalOperand));
    if (check(given, writtenOperand) || (!same && check(normalized, normalOperand))) return true;
    return spellingsOf(value).some((spelling) => check(normal(spelling), normalOperand));
  };
}

/** True when two readings of an operand are the same (strings, sets of strings, or one pattern). */
function isSame(a: unknown, b: unknown): boolean {
  if (a instanceof Set && b instanceof Set) return a.size === b.size && [...a].every((item) => b.has(item));
  return a === b;
}

/**
 * A test on host names or e-mail addresses in a string param or an array of strings. `read` gives the names a string
 * holds, or undefined when it cannot be read: such a value never lets an `allow` rule match and always lets a `deny`
 * or `ask` rule match. Several names (a list of addresses, an array) match an `allow` rule when every one does, a
 * `deny` or `ask` rule when any does.
 */
function nameTest(strict: boolean, read: (text: string) => readonly string[] | undefined, match: (name: string) => boolean): ValueTest {
  return ({ found, value }) => {
    const items = typeof value === 'string' ? [value] : Array.isArray(value) ? value : undefined;
    if (!found || items === undefined || items.length === 0 || !items.every((item) => typeof item === 'string')) return false;
    for (const item of items as string[]) {
      const names = read(item);
      if (names === undefined) return !strict;
      for (const name of names) if (match(name) !== strict) return !strict;
    }
    return strict;
  };
}

/** `within`: the param's real path is the folder's real path or inside it; a path that cannot be resolved is refused. */
function withinTest(folder: string, path: string): ValueTest {
  return ({ found, value }) => {
    if (!found || typeof value !== 'string') return false;
    // Resolved at each call, not cached: the folder (or a link on its way) may be created or retargeted after the
    // first check, and a cached target would let a `deny … within` miss paths under where the folder leads now.
    const base = realPathOf(folder);
    if ('problem' in base) throw new Unresolvable(`the folder ${JSON.stringify(folder)} of "within" ${base.problem}`);
    const target = realPathOf(value);
    if ('problem' in target) {
      const shown = value.length > MAX_VALUE_IN_REASON ? `${value.slice(0, MAX_VALUE_IN_REASON)}…` : value;
      throw new Unresolvable(`params.${path} ${JSON.stringify(shown)} ${target.problem}, so it cannot be checked against within ${JSON.stringify(folder)}`);
    }
    return isInside(target.path, base.path);
  };
}

/** The host a param names, as a list; the last reading is kept, as the rules of a call read the same param in turn. */
const readHosts = lastOf((text: string): string[] | undefined => {
  const host = hostOf(text);
  return host === undefined ? undefined : [host];
});

/** The e-mail addresses a param holds (see {@link readHosts}). */
const readEmails = lastOf(emailAddresses);

/** {@link readHosts}, and each host's skeleton when it differs: what a `deny` or `ask` rule tests. */
const readHostSkeletons = lastOf((text: string): string[] | undefined => {
  const host = hostOf(text);
  return host === undefined ? undefined : withSkeletons([host], (name) => hostSkeleton(name));
});

/** {@link readEmails}, and each address with its host's skeleton when it differs. */
const readEmailSkeletons = lastOf((text: string): string[] | undefined => {
  const addresses = emailAddresses(text);
  return addresses && withSkeletons(addresses, (address) => {
    const at = address.lastIndexOf('@');
    return `${address.slice(0, at)}@${hostSkeleton(address.slice(at + 1))}`;
  });
});

/** The spellings of the addresses or host a param reads as (see {@link textTest}). */
const spellingsOf = lastOf(addressSpellings);

/** `names`, each followed by its skeleton when that differs. */
function withSkeletons(names: string[], skeleton: (name: string) => string): string[] {
  return names.flatMap((name) => {
    const other = skeleton(name);
    return other === name ? [name] : [name, other];
  });
}

/** `read` remembering its last argument and result. */
function lastOf<T>(read: (text: string) => T): (text: string) => T {
  let last: { text: string; value: T } | undefined;
  return (text) => {
    if (last?.text !== text) last = { text, value: read(text) };
    return last.value;
  };
}

function hostsOf(names: OneOrMore): string[] {
  return list(names).flatMap((name) => canonicalHost(name) ?? []);
}

function isUnder(host: string, domains: readonly string[]): boolean {
  return domains.some((domain) => host === domain || host.endsWith(`.${domain}`));
}

function list(names: OneOrMore): readonly string[] {
  return typeof names === 'string' ? [names] : names;
}

function isEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  try {
    return JSON.stringify(a) === JSON.stringify(b);
  } catch {
    return false;
  }
}

function unique(values: string[]): string[] {
  return [...new Set(values)];
}
