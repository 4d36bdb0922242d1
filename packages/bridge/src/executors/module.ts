import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { AgentSpacesError, type HandlerContext } from '@agent-spaces/capabilities';
import type { Executor, ExecutorContext, FunctionRef } from './executor.js';

/** File name of a capability's bundled host module inside its build folder. */
export const HOST_MODULE = 'host.mjs';

type Handler = (params: Record<string, unknown>, context: HandlerContext) => unknown;
type MessageFn = (params: Record<string, unknown>) => string;

/**
 * The generation of host code of the module executors sharing it (a space's): after {@link HostModules.reload}, each
 * executor reads its `host.mjs` again on its next call, so later calls run the build's current handler code.
 */
export class HostModules {
  #generation = 0;

  /** Bumped by each {@link reload}. */
  get generation(): number {
    return this.#generation;
  }

  /** Makes the next call of every executor sharing this object load its host module as it is now. */
  reload(): void {
    this.#generation++;
  }
}

/**
 * The `module` executor: imports `<dir>/host.mjs` on the first call (or at once through {@link ModuleExecutor.load}).
 * With `exportName`, that export is a `defineTool()` value whose `functions[sourceName].handler` runs the call;
 * without it, the module's export named `sourceName` does.
 *
 * The module is imported under a URL naming its content's hash (`host.mjs?v=<sha256 prefix>`). Node never unloads a
 * module, so this is what makes a rebuilt handler (the bundle holds the capability's own imports, packages
 * included) load afresh in a new space or after {@link HostModules.reload}, while an unchanged one is the module
 * already loaded: only an edited handler costs memory, once per edit.
 */
export class ModuleExecutor implements Executor {
  readonly #file: string;
  readonly #exportName: string | undefined;
  readonly #capability: string;
  readonly #modules: HostModules | undefined;
  #loading: Promise<Record<string, unknown>> | undefined;
  #loadedAt = 0;
  #namespace: Record<string, unknown> | undefined;

  /** `modules`: the generation of host code this executor follows (none: it loads its module once). */
  constructor(context: ExecutorContext, exportName: string | undefined, modules?: HostModules) {
    this.#file = join(context.dir, HOST_MODULE);
    this.#exportName = exportName;
    this.#capability = context.id;
    this.#modules = modules;
  }

  /**
   * Imports the host module once per generation of {@link HostModules}; a failed import is retried on the next call.
   * Rejects `HANDLER_ERROR` naming the file when it cannot be read or imported.
   */
  load(): Promise<Record<string, unknown>> {
    const generation = this.#modules?.generation ?? 0;
    if (generation !== this.#loadedAt) this.#loading = undefined;
    this.#loadedAt = generation;
    this.#loading ??= this.#import().then(
      (namespace) => (this.#namespace = namespace),
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

  /** Imports the module as its content is now (a URL of its own per content). */
  async #import(): Promise<Record<string, unknown>> {
    const hash = createHash('sha256').update(await readFile(this.#file)).digest('hex').slice(0, 16);
    return (await import(`${pathToFileURL(this.#file).href}?v=${hash}`)) as Record<string, unknown>;
  }

  execute(fn: FunctionRef): (params: Record<string, unknown>, context: HandlerContext) => Promise<unknown> {
    return async (params, context) => this.#handler(await this.load(), fn)(params, context);
  }

  /**
   * The `defineTool()` function's `approvalMessage` (available once the module is loaded), read from the module
   * loaded at the time of each call.
   */
  approvalMessage(fn: FunctionRef): MessageFn | undefined {
    if (!this.#namespace || this.#exportName === undefined) return undefined;
    const first = this.#messageOf(this.#namespace, fn);
    return first && ((params) => (this.#messageOf(this.#namespace!, fn) ?? first)(params));
  }

  #messageOf(namespace: Record<string, unknown>, fn: FunctionRef): MessageFn | undefined {
    const message = this.#definitionOf(namespace, fn)?.approvalMessage;
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
