import { Ajv, type ErrorObject, type Options, type ValidateFunction } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { ObjectSchema } from '@agent-spaces/capabilities';

/** One failed constraint: JSON pointer into the params (`''` is the params object itself) and ajv's message. */
export interface ParamIssue {
  path: string;
  message: string;
}

/** A compiled params check: `undefined` when the params are valid, else the issues. */
export type ParamsCheck = (params: unknown) => ParamIssue[] | undefined;

const AJV_OPTIONS: Options = { strict: false, allErrors: true, logger: false };
const DRAFT_2020 = /json-schema\.org\/draft\/2020-12\//;
const addFormats = formats.default;

/**
 * Compiles params schemas with one ajv instance per draft (draft-07, the default, and 2020-12 chosen by `$schema`),
 * each created on first need and owned by one bridge.
 */
export class SchemaCompiler {
  #draft7: Ajv | undefined;
  #draft2020: Ajv2020 | undefined;

  /** Compiles `schema`; throws ajv's error when the schema itself is invalid. */
  compile(schema: ObjectSchema): ParamsCheck {
    const validate = this.#ajvFor(schema).compile(schema);
    return (params) => (validate(params) ? undefined : toIssues(validate));
  }

  #ajvFor(schema: ObjectSchema): Ajv | Ajv2020 {
    if (typeof schema.$schema === 'string' && DRAFT_2020.test(schema.$schema)) {
      return (this.#draft2020 ??= withFormats(new Ajv2020(AJV_OPTIONS)));
    }
    return (this.#draft7 ??= withFormats(new Ajv(AJV_OPTIONS)));
  }
}

function withFormats<T extends Ajv | Ajv2020>(ajv: T): T {
  addFormats(ajv);
  return ajv;
}

function toIssues(validate: ValidateFunction): ParamIssue[] {
  return (validate.errors ?? []).map(toIssue);
}

function toIssue(error: ErrorObject): ParamIssue {
  const params = error.params as { missingProperty?: unknown; additionalProperty?: unknown; allowedValues?: unknown };
  const property = params.missingProperty ?? params.additionalProperty;
  const path = typeof property === 'string' ? `${error.instancePath}/${escapePointer(property)}` : error.instancePath;
  const message = error.message ?? 'is invalid';
  return {
    path,
    message: Array.isArray(params.allowedValues)
      ? `${message}: ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`
      : message,
  };
}

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}
