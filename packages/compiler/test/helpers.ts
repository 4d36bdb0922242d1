import { join, relative } from 'node:path';
import type { CapabilityIR, Diagnostic, FunctionIR, ObjectSchema } from '@agent-spaces/capabilities';
import type { SourceContext } from '../src/sources/types.js';

/** The context a reader gets for a project rooted at `rootDir`. */
export function sourceContext(rootDir: string): SourceContext {
  return { rootDir, outDir: join(rootDir, '.agent-spaces'), relative: (file) => relative(rootDir, file).split('\\').join('/') };
}

/** A one-function capability IR for emitter tests: `fn(params)` returning `returns`. */
export function capabilityWith(parameters: Record<string, unknown>, returns?: unknown, fn: Partial<FunctionIR> = {}): CapabilityIR {
  return {
    id: 'demo',
    exportName: 'demo',
    sourceName: 'demo',
    version: '1.0.0',
    source: { kind: 'json', file: 'capabilities/demo.json' },
    functions: [
      {
        name: 'run',
        sourceName: 'run',
        parameters: { type: 'object', ...parameters } as ObjectSchema,
        ...(returns !== undefined ? { returns: returns as FunctionIR['returns'] } : {}),
        pointer: '/functions/0',
        ...fn,
      },
    ],
    config: {},
    executor: { kind: 'runtime' },
  };
}

/** `code pointer` of each diagnostic, for compact assertions. */
export function codes(diagnostics: readonly Diagnostic[]): string[] {
  return diagnostics.map((d) => `${d.code} ${d.pointer ?? ''}`.trim());
}
