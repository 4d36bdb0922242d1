/**
 * The JSON source reader: a capability definition file (see `json-definition.ts` for the formats). A handler
 * module named by `executor: { kind: 'module' }` is bundled with esbuild into the capability's `host.mjs`.
 */
import { readFileSync } from 'node:fs';
import { basename, dirname, extname, resolve } from 'node:path';
import type { Diagnostic } from '@agent-spaces/capabilities';
import { bundleModule, formatBuildError } from '../bundle.js';
import { kebabCase } from '../ir/names.js';
import { readJsonDefinition } from './json-definition.js';
import { findJsonSyntaxError } from './json-syntax.js';
import type { SourceReader, SourceResult } from './types.js';

/** Reads one `.json` definition file into one capability. */
export const readJsonSource: SourceReader = async (file, context) => {
  const shown = context.relative(file);
  const result: SourceResult = { capabilities: [], diagnostics: [], inputs: [file], hostModules: {} };
  const fail = (diagnostic: Omit<Diagnostic, 'severity' | 'file'>): SourceResult => {
    result.diagnostics.push({ severity: 'error', file: shown, ...diagnostic });
    return result;
  };
  let text: string;
  try {
    // Synchronous: definition files are small, and a build reads them by the thousand.
    text = readFileSync(file, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    const missing = (error as NodeJS.ErrnoException).code === 'ENOENT';
    return fail({ code: missing ? 'SOURCE_NOT_FOUND' : 'SOURCE_UNREADABLE', message: `cannot read ${shown}: ${(error as Error).message}` });
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const at = findJsonSyntaxError(text);
    const where = at ? `line ${at.line}, column ${at.column}: ${at.message}` : (error as Error).message;
    return fail({ code: 'INVALID_JSON', message: `invalid JSON at ${where}` });
  }
  const baseName = basename(file, extname(file));
  const definition = readJsonDefinition(value, { file: shown, id: kebabCase(baseName), baseName });
  result.diagnostics.push(...definition.diagnostics);
  const { capability, executor } = definition;
  if (!capability || !executor) return result;
  if (executor.kind === 'module') {
    const handlers = resolve(dirname(file), executor.module);
    try {
      const bundle = await bundleModule(handlers, { packages: 'bundle' });
      result.hostModules[capability.id] = bundle.code;
      result.inputs.push(...bundle.inputs.filter((input) => input !== file));
      if (bundle.dependencies.length > 0) capability.dependencies = bundle.dependencies;
    } catch (error) {
      return fail({
        code: 'INVALID_DEFINITION',
        pointer: '/executor/module',
        message: `cannot bundle the handler module ${executor.module}: ${formatBuildError(error)}`,
      });
    }
  }
  result.capabilities.push(capability);
  return result;
};
