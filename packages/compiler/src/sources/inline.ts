/**
 * Capabilities given as values rather than files (`createSpace({ capabilities: [defineTool({...})] })`): a
 * `defineTool()` value or a JSON definition object. Their calls go to handlers given at run time.
 */
import { isRecord, type CapabilityIR, type Diagnostic } from '@agent-spaces/capabilities';
import type { ConfigSource } from '../build.js';
import { identifier, kebabCase } from '../ir/names.js';
import { toCapability, type Diagnose } from './define-tool.js';
import { readJsonDefinition } from './json-definition.js';
import type { SourceResult } from './types.js';

/** True for a `defineTool()` value: an object whose `functions` is an object of functions with handlers. */
export function isDefineToolValue(value: unknown): value is { name: string; functions: Record<string, { handler: unknown }> } {
  return isRecord(value) && typeof value.name === 'string' && isRecord(value.functions);
}

/**
 * A build source for one capability given as a value, labelled `label` (`inline.calc`). A `defineTool()` value's
 * return types are `unknown` (types exist only in source files); a JSON definition's `returns` schemas are kept. Either
 * way the executor is `runtime`: calls go to the handlers given to `createSpace`, or the `defineTool()` handlers.
 */
export function inlineSource(value: unknown, label: string): ConfigSource {
  return {
    label,
    async read() {
      const diagnostics: Diagnostic[] = [];
      const result: SourceResult = { capabilities: [], diagnostics, inputs: [], hostModules: {} };
      let capability: CapabilityIR | undefined;
      if (isDefineToolValue(value)) {
        const diagnose: Diagnose = (code, message, pointer, severity = 'error') =>
          diagnostics.push({ code, severity, file: label, message, ...(pointer ? { pointer } : {}) });
        const id = kebabCase(value.name) || 'capability';
        capability = toCapability({ exportName: identifier(value.name), value }, id, label, undefined, diagnose);
      } else {
        const name = isRecord(value) && typeof value.name === 'string' ? value.name : 'capability';
        const definition = readJsonDefinition(value, { file: label, id: kebabCase(name) || 'capability', baseName: name });
        diagnostics.push(...definition.diagnostics);
        capability = definition.capability;
        if (definition.executor?.kind === 'module') {
          diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'error', file: label, pointer: '/executor', message: `${label}: an inline definition cannot name a handler module; give handlers to createSpace instead` });
        }
      }
      if (capability) result.capabilities.push({ ...capability, executor: capability.executor.kind === 'http' ? capability.executor : { kind: 'runtime' } });
      return result;
    },
  };
}
