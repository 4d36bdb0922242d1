/** `schema.json` (what the host validates calls against) and `meta.json` (what was built, from what) of a capability. */
import { createHash } from 'node:crypto';
import type { CapabilityIR, CapabilityMeta, CapabilitySchemaFile } from '@agent-spaces/capabilities';

/** The `schema.json` of `capability`: parameters and result schemas by function name (`FunctionIR.name`). */
export function emitSchemaFile(capability: CapabilityIR): CapabilitySchemaFile {
  const functions: CapabilitySchemaFile['functions'] = {};
  for (const fn of capability.functions) {
    functions[fn.name] = { parameters: fn.parameters, ...(fn.returns !== undefined ? { returns: fn.returns } : {}) };
  }
  return { id: capability.id, functions };
}

/**
 * The content hash of a build: sha256 over the compiler version and every input's path and content hash, so any
 * change to a file the capability was built from, or to the compiler, changes it.
 */
function contentHash(compilerVersion: string, inputs: Record<string, string>): string {
  const hash = createHash('sha256').update(`agent-spaces-compiler@${compilerVersion}\n`);
  for (const file of Object.keys(inputs).sort()) hash.update(`${file}\0${inputs[file]}\n`);
  return hash.digest('hex');
}

/** What {@link emitMeta} needs besides the IR. */
export interface MetaOptions {
  compilerVersion: string;
  /** sha256 of every input, by path relative to the config folder. */
  inputs: Record<string, string>;
  builtAt: Date;
}

/** The `meta.json` of `capability`. */
export function emitMeta(capability: CapabilityIR, options: MetaOptions): CapabilityMeta {
  return {
    id: capability.id,
    exportName: capability.exportName,
    sourceName: capability.sourceName,
    ...(capability.description !== undefined ? { description: capability.description } : {}),
    version: capability.version,
    source: capability.source,
    contentHash: contentHash(options.compilerVersion, options.inputs),
    compilerVersion: options.compilerVersion,
    inputs: options.inputs,
    config: capability.config,
    executor: capability.executor,
    functions: capability.functions.map((fn) => ({
      name: fn.name,
      sourceName: fn.sourceName,
      ...(fn.requiresApproval !== undefined ? { requiresApproval: fn.requiresApproval } : {}),
      ...(fn.approvalMessage !== undefined ? { approvalMessage: fn.approvalMessage } : {}),
      ...(fn.hostApprovalMessage ? { hostApprovalMessage: true } : {}),
      ...(fn.task !== undefined ? { task: fn.task } : {}),
    })),
    ...(capability.package ? { package: capability.package } : {}),
    ...(capability.dependencies ? { dependencies: capability.dependencies } : {}),
    builtAt: options.builtAt.toISOString(),
  };
}
