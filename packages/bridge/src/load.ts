import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { ValidateFunction } from 'ajv';
import { AgentSpacesError, CAPABILITY_FILES, builtFile, isAgentSpacesError, type UserCredentials } from '@agent-spaces/capabilities';
import { approvalTemplate } from './approval-template.js';
import { readBuiltCapability, type BuiltCapability } from './built-files.js';
import type { Executor, ExecutorContext } from './executors/executor.js';
import { httpExecutor } from './executors/http.js';
import type { McpClientPool } from '@agent-spaces/mcp';
import { mcpExecutor } from './executors/mcp.js';
import { HOST_MODULE, ModuleExecutor, type HostModules } from './executors/module.js';
import { openApiExecutor } from './executors/openapi.js';
import { runtimeExecutor } from './executors/runtime.js';
import { readBuiltFile } from './output/files.js';
import { placeholderNames } from './redact.js';
import type { HostCapability, HostFunction, RuntimeHandlers } from './types.js';
import { loadValidators } from './validate.js';

/**
 * Reads `meta.json` and `schema.json` of the built capabilities `ids` under `outDir` (`.agent-spaces/capabilities`),
 * with the params validators the build compiled (`validators.cjs`, read on the first call), and binds each to its
 * executor:
 * - `module`: `<outDir>/<id>/host.mjs`, imported on the first call (at load time when a `defineTool()` function needs
 *   approval and has no message template, so its `approvalMessage` is at hand) under a URL naming its content's hash,
 *   so a rebuilt module loads afresh (again after `options.hostModules.reload()`); with `executor.export` that export
 *   is a `defineTool()` value whose `functions[sourceName].handler` runs, without it the export named `sourceName` does;
 * - `http`: `POST url` with `{ capability, function, params }`; a non-2xx status fails with `HANDLER_ERROR`;
 * - `runtime`: `handlers[id]` or `handlers[exportName]`, then `[name]` or `[sourceName]` (`NO_HANDLER` at call time
 *   when missing);
 * - `mcp`: a tool, resource or prompt of an MCP server, called through `options.mcp` (a client pool) (`CAPABILITY_STALE` when the
 *   server's tools changed since the build; `CONFIG_INVALID` at load time without a pool).
 * A JSON `approvalMessage` template (`"Delete {path}?"`) becomes a message function. Missing or corrupt files fail with
 * `CAPABILITY_NOT_FOUND`, `INVALID_JSON` or `INVALID_DEFINITION`, naming the file and field.
 */
export async function loadCapabilities(
  outDir: string,
  ids: readonly string[],
  handlers?: RuntimeHandlers,
  options: LoadOptions = {},
): Promise<HostCapability[]> {
  return Promise.all(ids.map(async (id) => toHostCapability(readBuiltCapability(outDir, id), builtValidators(outDir, id), handlers, options)));
}

/** Run-time services some executors need, owned by the caller. */
export interface LoadOptions {
  /** The MCP client pool `mcp` capabilities call through. */
  mcp?: McpClientPool;
  /**
   * Hears the data of each result of an MCP tool without an output schema: capability id, MCP tool name, data
   * (`undefined` for a result without data; to infer the tool's result type, `ResultRecorder`). Must not throw.
   */
  onMcpToolData?: (id: string, tool: string, data: unknown) => void;
  /** Where `${user:NAME}` in `openapi` auth and headers and `http` headers resolve for the calling principal. */
  userSecrets?: UserCredentials;
  /** Lets the owner make `module` capabilities load their rebuilt host modules (`reload()`); without it, once. */
  hostModules?: HostModules;
}

async function toHostCapability(
  built: BuiltCapability,
  validators: () => ReadonlyMap<string, ValidateFunction>,
  handlers: RuntimeHandlers | undefined,
  options: LoadOptions,
): Promise<HostCapability> {
  const context: ExecutorContext = {
    id: built.id,
    exportName: built.exportName,
    dir: built.dir,
    handlers,
    mcp: options.mcp,
    onMcpToolData: options.onMcpToolData,
    userSecrets: options.userSecrets,
  };
  const executor = await bindExecutor(built, context, options.hostModules);
  const functions = new Map<string, HostFunction>();
  for (const fn of built.functions) {
    const approvalMessage = fn.approvalMessage !== undefined ? approvalTemplate(fn.approvalMessage) : executor.approvalMessage?.(fn);
    functions.set(fn.name, {
      name: fn.name,
      sourceName: fn.sourceName,
      parameters: fn.parameters,
      validator: () => validators().get(fn.name),
      ...(fn.returns ? { returns: fn.returns } : {}),
      requiresApproval: fn.requiresApproval,
      ...(approvalMessage ? { approvalMessage } : {}),
      execute: executor.execute(fn),
    });
  }
  const secrets = placeholderNames(built.executor);
  return { id: built.id, exportName: built.exportName, config: built.config, functions, ...(secrets.length > 0 ? { secrets } : {}) };
}

/**
 * The params validators the build compiled for capability `id` (its validators file), read and evaluated on the first
 * call of any of its functions (a large API's file takes ≈ 100 ms to evaluate, which a space that never calls it
 * should not pay); none when the build wrote none (an older build): its schemas then compile on their first call.
 * Throws `INTERNAL`, naming the file, when the file does not load.
 */
function builtValidators(outDir: string, id: string): () => ReadonlyMap<string, ValidateFunction> {
  let loaded: ReadonlyMap<string, ValidateFunction> | undefined;
  return () => (loaded ??= readValidators(outDir, id));
}

function readValidators(outDir: string, id: string): ReadonlyMap<string, ValidateFunction> {
  let source: string;
  try {
    source = readBuiltFile(outDir, id, CAPABILITY_FILES.validators);
  } catch (error) {
    if (isAgentSpacesError(error) && error.code === 'CAPABILITY_NOT_FOUND') return new Map();
    throw error;
  }
  try {
    return loadValidators(source);
  } catch (error) {
    const file = builtFile(outDir, id, CAPABILITY_FILES.validators);
    throw new AgentSpacesError('INTERNAL', `${file} does not load (rebuild the capability): ${String(error)}`, { file }, { cause: error });
  }
}

async function bindExecutor(built: BuiltCapability, context: ExecutorContext, hostModules: HostModules | undefined): Promise<Executor> {
  const spec = built.executor;
  switch (spec.kind) {
    case 'module': {
      const file = join(built.dir, HOST_MODULE);
      const found = await stat(file).then((s) => s.isFile(), () => false);
      if (!found) {
        throw new AgentSpacesError('CAPABILITY_NOT_FOUND', `Capability '${built.id}' is incomplete: ${file} does not exist (rebuild it)`, {
          id: built.id,
          file,
        });
      }
      const executor = new ModuleExecutor(context, spec.export, hostModules);
      const needsMessages = built.functions.some(
        (fn) => (fn.requiresApproval || built.config.requiresApproval === true) && fn.approvalMessage === undefined,
      );
      if (spec.export !== undefined && needsMessages) await executor.load();
      return executor;
    }
    case 'http':
      return httpExecutor(spec, context);
    case 'runtime':
      return runtimeExecutor(context);
    case 'openapi':
      return openApiExecutor(spec, process.env, {}, context.userSecrets);
    case 'mcp':
      return mcpExecutor(spec, built.id, context.mcp, context.onMcpToolData);
    default:
      return assertNever(spec);
  }
}

function assertNever(value: never): never {
  throw new AgentSpacesError('INVALID_DEFINITION', `Unknown executor ${JSON.stringify(value)}`);
}
