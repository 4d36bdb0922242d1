import { posix } from 'node:path';
import type { ParamMatcher, PolicyAction, PolicyRule, PoliciesConfig } from '@agent-spaces/capabilities';
import type { PendingCall } from './types.js';

/** What the rules decided for a call, and which rule did (`policies.rules["mail.send"][0]`). */
interface RuleMatch {
  action: PolicyAction;
  by: string;
}

/** Finds the deciding rule for a call, or undefined when no rule matches. */
export type RuleSet = (call: PendingCall) => RuleMatch | undefined;

type Test = (params: Record<string, unknown>) => boolean;
interface CompiledRule {
  test: Test;
  action: PolicyAction;
  by: string;
}

/**
 * Compiles `policies.rules` (checked by `findPoliciesProblem`) into a lookup: rules under `'<capability>.<function>'`
 * are tried first, then `'<capability>'`, then `'*'`; within a key, in order; the first matching rule decides.
 */
export function compileRules(rules: PoliciesConfig['rules'] = {}): RuleSet {
  const byKey = new Map<string, CompiledRule[]>();
  for (const [key, entry] of Object.entries(rules)) {
    const at = `policies.rules[${JSON.stringify(key)}]`;
    const list: readonly PolicyRule[] = typeof entry === 'string' ? [{ then: entry }] : entry;
    byKey.set(
      key,
      list.map((rule, index) => ({
        test: compileWhen(rule.when),
        action: rule.then,
        by: typeof entry === 'string' ? at : `${at}[${index}]`,
      })),
    );
  }
  if (byKey.size === 0) return () => undefined;
  return (call) => {
    const capabilityNames = unique([call.capability.id, call.capability.exportName]);
    const functionNames = unique([call.function.name, call.function.sourceName]);
    const keys = [
      ...capabilityNames.flatMap((c) => functionNames.map((f) => `${c}.${f}`)),
      ...capabilityNames,
      '*',
    ];
    for (const key of keys) {
      for (const rule of byKey.get(key) ?? []) {
        if (rule.test(call.params)) return { action: rule.action, by: rule.by };
      }
    }
    return undefined;
  };
}

function compileWhen(when: PolicyRule['when']): Test {
  if (when === undefined) return () => true;
  const tests = Object.entries(when).map(([path, matcher]) => {
    const segments = path.split('.');
    const test = compileMatcher(matcher);
    return (params: Record<string, unknown>) => test(lookup(params, segments));
  });
  return (params) => tests.every((test) => test(params));
}

/** Reads a param by path through own properties only (`constructor`, `__proto__` never reach a prototype). */
function lookup(params: Record<string, unknown>, segments: readonly string[]): { found: boolean; value: unknown } {
  let current: unknown = params;
  for (const segment of segments) {
    if (typeof current !== 'object' || current === null || !Object.hasOwn(current, segment)) return { found: false, value: undefined };
    current = (current as Record<string, unknown>)[segment];
  }
  return { found: true, value: current };
}

type ValueTest = (param: { found: boolean; value: unknown }) => boolean;

function compileMatcher(matcher: ParamMatcher): ValueTest {
  if (typeof matcher !== 'object' || matcher === null) return ({ found, value }) => found && value === matcher;
  const tests: ValueTest[] = [];
  const str = (check: (value: string) => boolean): ValueTest => ({ value }) => typeof value === 'string' && check(value);
  const num = (check: (value: number) => boolean): ValueTest => ({ value }) => typeof value === 'number' && check(value);
  const m = matcher;
  if (m.exists !== undefined) tests.push(({ found }) => found === m.exists);
  if (Object.hasOwn(m, 'equals')) tests.push(({ found, value }) => found && isEqual(value, m.equals));
  if (m.oneOf !== undefined) tests.push(({ found, value }) => found && m.oneOf!.some((option) => isEqual(value, option)));
  if (m.startsWith !== undefined) tests.push(str((v) => v.startsWith(m.startsWith!)));
  if (m.endsWith !== undefined) tests.push(str((v) => v.endsWith(m.endsWith!)));
  if (m.includes !== undefined) tests.push(str((v) => v.includes(m.includes!)));
  if (m.matches !== undefined) {
    const pattern = new RegExp(m.matches);
    tests.push(str((v) => pattern.test(v)));
  }
  if (m.within !== undefined) tests.push(str((v) => isWithin(v, m.within!)));
  if (m.lt !== undefined) tests.push(num((v) => v < m.lt!));
  if (m.lte !== undefined) tests.push(num((v) => v <= m.lte!));
  if (m.gt !== undefined) tests.push(num((v) => v > m.gt!));
  if (m.gte !== undefined) tests.push(num((v) => v >= m.gte!));
  return (param) => tests.every((test) => test(param));
}

/** True when `path` is absolute and is `folder` or inside it once `.` and `..` are resolved (relative paths never are). */
function isWithin(path: string, folder: string): boolean {
  if (!path.startsWith('/') || path.includes('\0')) return false;
  const resolved = posix.resolve(path);
  const base = posix.resolve(folder);
  return resolved === base || resolved.startsWith(base.endsWith('/') ? base : `${base}/`);
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
