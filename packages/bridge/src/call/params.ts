import { AgentSpacesError, isPlainObject } from '@agent-spaces/capabilities';
import { compileParamsCheck, paramsCheck, snapshotParams, type ParamIssue, type ParamsCheck } from '../validate.js';
import { errorMessage } from './errors.js';
import type { CallTarget } from './lookup.js';
import { isThenable } from './thenable.js';

/**
 * The validate step: the bridge's private copy of the params (`{}` when absent), checked against the function's
 * schema (a promise only while the schema compiles, on the function's first call). Throws `INVALID_PARAMS` listing
 * every issue, or `INTERNAL` when the schema does not compile.
 */
export function checkedParams(target: CallTarget, raw: unknown): Record<string, unknown> | Promise<Record<string, unknown>> {
  const params = copyParams(target, raw);
  const check = target.check ?? makeCheck(target);
  return isThenable(check) ? Promise.resolve(check).then((compiled) => checked(target, compiled, params)) : checked(target, check, params);
}

function checked(target: CallTarget, check: ParamsCheck, params: Record<string, unknown>): Record<string, unknown> {
  const issues = check(params);
  if (issues) throw invalidParams(target, issues);
  return params;
}

/** The bridge's private copy of the params; throws `INVALID_PARAMS` when they are not plain data. */
function copyParams(target: CallTarget, raw: unknown): Record<string, unknown> {
  const given = raw === undefined ? {} : raw;
  if (!isPlainObject(given)) throw invalidParams(target, [{ path: '', message: 'must be a plain object' }]);
  const snapshot = snapshotParams(given);
  if (!snapshot.ok) throw invalidParams(target, [snapshot.issue]);
  return snapshot.value as Record<string, unknown>;
}

/**
 * The function's params check, made on its first call: from the build's validator at once (so calls keep their order),
 * else by compiling its schema. A schema that does not compile (or a validator that does not load) fails every call
 * `INTERNAL`.
 */
function makeCheck(target: CallTarget): ParamsCheck | Promise<ParamsCheck> {
  if (target.schemaError === undefined) {
    try {
      const built = target.fn.validator?.();
      if (built) return (target.check = paramsCheck(built));
      return compileParamsCheck(target.fn.parameters).then(
        (check) => (target.check = check),
        (error: unknown) => {
          target.schemaError = errorMessage(error);
          throw schemaFailure(target);
        },
      );
    } catch (error) {
      target.schemaError = errorMessage(error);
    }
  }
  throw schemaFailure(target);
}

function schemaFailure(target: CallTarget): AgentSpacesError {
  return new AgentSpacesError('INTERNAL', `The params schema of ${target.capability.id}.${target.fn.name} does not compile: ${target.schemaError}`);
}

function invalidParams(target: CallTarget, issues: ParamIssue[]): AgentSpacesError {
  const text = issues.map((issue) => `params${issue.path}: ${issue.message}`).join('; ');
  return new AgentSpacesError('INVALID_PARAMS', `Invalid params for ${target.capability.id}.${target.fn.name}: ${text}`, { errors: issues });
}
