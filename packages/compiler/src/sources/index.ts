/**
 * The source readers by file-name suffix. Adding a source kind is one reader file and one line here; the longest
 * matching suffix wins, so a compound suffix (`.openapi.json`) can claim files before `.json` does. A key without a
 * leading dot (`action_servers.json`) is a whole file name.
 */
import { basename } from 'node:path';
import { readDefineToolSource } from './define-tool.js';
import { readJsonSource } from './json.js';
import { readOpenApiSourceFile } from './openapi/file.js';
import type { SourceReader } from './types.js';

const READERS: Readonly<Record<string, SourceReader>> = {
  '.json': readJsonSource,
  '.ts': readDefineToolSource,
  '.mts': readDefineToolSource,
  '.mjs': readDefineToolSource,
  '.js': readDefineToolSource,
  '.openapi.json': readOpenApiSourceFile,
  '.openapi.yaml': readOpenApiSourceFile,
  '.openapi.yml': readOpenApiSourceFile,
  'action_servers.json': readOpenApiSourceFile,
};

/** The reader for `file` by its longest matching suffix, or undefined when no source kind reads such files. */
export function readerFor(file: string): SourceReader | undefined {
  const name = basename(file).toLowerCase();
  let match: string | undefined;
  for (const suffix of Object.keys(READERS)) {
    const matches = suffix.startsWith('.') ? name.endsWith(suffix) && name.length > suffix.length : name === suffix;
    if (matches && suffix.length > (match?.length ?? 0)) match = suffix;
  }
  return match === undefined ? undefined : READERS[match];
}
