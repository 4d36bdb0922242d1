import type { ErrorObject, ValidateFunction } from 'ajv';
import { compileSchema } from '@agent-spaces/bridge';
import { AgentSpacesError, type ObjectSchema } from '@agent-spaces/capabilities';

/** One problem with a tool's or prompt's arguments: the field (`destination`, `options.limit`, or `` for the whole). */
export interface ArgumentIssue {
  field: string;
  problem: string;
}

/** Validates tool arguments against JSON Schemas, compiling each schema once (with the bridge's ajv, loaded on first use). */
export class ArgumentsValidator {
  readonly #compiled = new WeakMap<ObjectSchema, ValidateFunction>();

  /**
   * Resolves to `args` (`{}` when absent) when it matches `schema`; else rejects with `INVALID_ARGUMENTS` whose message
   * names every wrong or missing field and whose `data.errors` lists them as {@link ArgumentIssue}s.
   */
  async check(tool: string, schema: ObjectSchema, args: unknown): Promise<Record<string, unknown>> {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      validate = await compileSchema(schema);
      this.#compiled.set(schema, validate);
    }
    const value = args ?? {};
    if (validate(value)) return value as Record<string, unknown>;
    throw invalidArguments(tool, (validate.errors ?? []).map(toIssue));
  }
}

/** The `INVALID_ARGUMENTS` error for `issues` of `target` (a tool or prompt name). */
export function invalidArguments(target: string, issues: ArgumentIssue[]): AgentSpacesError {
  const text = issues.map((i) => (i.field ? `"${i.field}" ${i.problem}` : i.problem)).join('; ');
  return new AgentSpacesError('INVALID_ARGUMENTS', `Invalid arguments for ${target}: ${text}`, { errors: issues });
}

function toIssue(error: ErrorObject): ArgumentIssue {
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown; allowedValues?: unknown };
  const base = error.instancePath.split('/').slice(1).map(unescapePointer);
  if (typeof params.missingProperty === 'string') return { field: [...base, params.missingProperty].join('.'), problem: 'is required' };
  if (typeof params.additionalProperty === 'string') {
    return { field: [...base, params.additionalProperty].join('.'), problem: 'is not a known argument' };
  }
  const allowed = Array.isArray(params.allowedValues) ? `: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}` : '';
  return { field: base.join('.'), problem: `${error.message ?? 'is invalid'}${allowed}` };
}

function unescapePointer(segment: string): string {
  return segment.replace(/~1/g, '/').replace(/~0/g, '~');
}
