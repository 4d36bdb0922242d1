import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentSpacesError, type HandlerContext } from '@agent-spaces/capabilities';
import type { Executor, ExecutorContext, FunctionRef } from './executor.js';

/** File name of a capability's bundled host module inside its build folder. */
export const HOST_MODULE = 'host.mjs';

type Handler = (params: Record<string, unknown>, context: HandlerContext) => unknown;
type MessageFn = (params: Record<string, unknown>) => string;

/**
 * The `module` executor: imports `<dir>/host.mjs` on the first call (or at once through {@link ModuleExecutor.load}).
 * With `exportName`, that export is a `defineTool()` value whose `functions[sourceName].handler` runs the call;
 * without it, the module's export named `sourceName` does.
 */
export class ModuleExecutor implements Executor {
  readonly #file: string;
  readonly #exportName: string | undefined;
  readonly #capability: string;
  #loading: Promise<Record<string, unknown>> | undefined;
  #namespace: Record<string, unknown> | undefined;

  constructor(context: ExecutorContext, exportName: string | undefined) {
    this.#file = join(context.dir, HOST_MODULE);
    this.#exportName = exportName;
    this.#capability = context.id;
  }

  /** Imports the host module once; a failed import is retried on the next call. */
  load(): Promise<Record<string, unknown>> {
    this.#loading ??= import(pathToFileURL(this.#file).href).then(
      (namespace: Record<string, unknown>) => (this.#namespace = namespace),
      (error: unknown) => {
        this.#loading = undefined;
        throw new AgentSpacesError(
          'HANDLER_ERROR',
          `Cannot load ${this.#file}: ${error instanceof Error ? error.message : String(error)}`,
          { file: this.#file },
        );
      },
    );
    return this.#loading;
  }

  execute(fn: FunctionRef): (params: Record<string, unknown>, context: HandlerContext) => Promise<unknown> {
    let handler: Handler | undefined;
    return async (params, context) => {
      handler ??= this.#handler(await this.load(), fn);
      return handler(params, context);
    };
  }

  /** The `defineTool()` function's `approvalMessage`; available once the module is loaded. */
  approvalMessage(fn: FunctionRef): MessageFn | undefined {
    if (!this.#namespace || this.#exportName === undefined) return undefined;
    const message = this.#definitionOf(this.#namespace, fn)?.approvalMessage;
    return typeof message === 'function' ? (message as MessageFn) : undefined;
  }

  #handler(namespace: Record<string, unknown>, fn: FunctionRef): Handler {
    const candidate =
      this.#exportName === undefined ? namespace[fn.sourceName] : this.#definitionOf(namespace, fn)?.handler;
    if (typeof candidate !== 'function') {
      const where = this.#exportName === undefined ? `export '${fn.sourceName}'` : `${this.#exportName}.functions.${fn.sourceName}.handler`;
      throw new AgentSpacesError('NO_HANDLER', `${this.#file} has no function ${where} for ${this.#capability}.${fn.name}`, {
        file: this.#file,
      });
    }
    return candidate as Handler;
  }

  #definitionOf(namespace: Record<string, unknown>, fn: FunctionRef): Record<string, unknown> | undefined {
    const tool = this.#exportName === undefined ? undefined : ownRecord(namespace, this.#exportName);
    const functions = tool && ownRecord(tool, 'functions');
    return functions && ownRecord(functions, fn.sourceName);
  }
}

function ownRecord(value: Record<string, unknown>, key: string): Record<string, unknown> | undefined {
  if (!Object.hasOwn(value, key)) return undefined;
  const field = value[key];
  return typeof field === 'object' && field !== null ? (field as Record<string, unknown>) : undefined;
}
