// Precompiles the validators of the published file schemas (ajv's standalone code) into
// dist/config/schema-validators.cjs, which src/config/file-schemas.ts loads instead of compiling the schemas on every
// start. Run from packages/compiler after tsc (its build script does).
import { writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createSchemaSet, FILE_SCHEMAS, fileSchema } from '../dist/config/file-schemas.js';

const standaloneCode = createRequire(import.meta.url)('ajv/dist/standalone/index.js').default;
const ajv = createSchemaSet({ source: true });
const exports = Object.fromEntries(Object.keys(FILE_SCHEMAS).map((format) => [format, fileSchema(format).$id]));
writeFileSync('dist/config/schema-validators.cjs', standaloneCode(ajv, exports));
