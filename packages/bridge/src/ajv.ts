/**
 * The ajv instances of the process, one per JSON Schema draft, each with the formats plugin. `validate.ts` imports
 * this module on its first compile: the build bundles ajv into this module's chunk (a package of many CommonJS files
 * loads about three times faster as one), and processes that never validate a call never load it.
 */
import { Ajv, type Options } from 'ajv';
import { Ajv2020 } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';

/** A draft-07 ajv with the formats plugin. */
export function createDraft7(options: Options): Ajv {
  return formats.default(new Ajv(options));
}

/** A draft 2020-12 ajv with the formats plugin. */
export function createDraft2020(options: Options): Ajv2020 {
  return formats.default(new Ajv2020(options));
}
