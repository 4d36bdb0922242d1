import { Ajv, type ErrorObject, type ValidateFunction } from 'ajv';
import { AgentSpacesError, type ObjectSchema } from '@agent-spaces/capabilities';

/** One problem with a tool's or prompt's arguments: the field (`destination`, `options.limit`, or `` for the whole). */
export interface ArgumentIssue {
  field: string;
  problem: string;
}

/** Validates tool arguments against JSON Schemas, compiling each schema once. */
export class ArgumentsValidator {
  readonly #ajv = new Ajv({ strict: false, allErrors: true, logger: false });
  readonly #compiled = new WeakMap<ObjectSchema, ValidateFunction>();

  /**
   * Returns `args` (`{}` when absent) when it matches `schema`; else throws `INVALID_ARGUMENTS` whose message names
   * every wrong or missing field and whose `data.errors` lists them as {@link ArgumentIssue}s.
   */
  check(tool: string, schema: ObjectSchema, args: unknown): Record<string, unknown> {
    let validate = this.#compiled.get(schema);
    if (!validate) {
      validate = this.#ajv.compile(schema);
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
