import { ServiceTypechecker } from './service.js';
import type { Typechecker, TypecheckerOptions } from './types.js';

export {
  createBoundedTypechecker,
  preloadTypechecker,
  type BoundedTypechecker,
  type BoundedTypecheckerOptions,
  type PreloadTypecheckerOptions,
} from './bounded.js';
export { formatDiagnostics } from './format.js';
export type { FunctionHint, TypecheckDiagnostic, Typechecker, TypecheckerOptions, TypecheckSession } from './types.js';

/**
 * Creates a typechecker for agent code against the given declarations (compiled `@capabilities/*` modules,
 * `@agent-spaces/std`, sandbox globals). TypeScript is loaded here, on first use, never when this module loads;
 * lib files are parsed once per process and shared by every typechecker. Checks that wait together (`checkBatched`,
 * sessions) are checked in one program.
 * @example
 * const checker = await createTypechecker({ declarations: new Map([['train-schedule.d.ts', dts]]) });
 * const diagnostics = await checker.checkBatched(code);
 * if (diagnostics.length > 0) console.error(formatDiagnostics(code, diagnostics));
 */
export async function createTypechecker(options: TypecheckerOptions): Promise<Typechecker> {
  const { default: typescript } = await import('typescript');
  return new ServiceTypechecker(typescript, options.declarations);
}
