import { AgentSpacesError } from '@agent-spaces/capabilities';

/**
 * Imports one of the AI SDK's packages (`ai`, `@ai-sdk/*`), optional peer dependencies used only by agent runs and
 * `spaceTool()`, with `load` (a literal `import()` of `name`). When it is not installed, throws
 * `MODEL_LIBRARY_MISSING` naming every package of `needed` (what the caller needs, `name` among them) and the
 * `npm install` line that adds them; any other failure is rethrown as it is.
 */
export async function importModelLibrary<T>(name: string, needed: readonly string[], load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isMissingPackage(error, name)) throw error;
    const install = `npm install ${needed.join(' ')}`;
    throw new AgentSpacesError(
      'MODEL_LIBRARY_MISSING',
      `${needed.join(' and ')} ${needed.length > 1 ? 'are' : 'is'} needed to call a model but ${name} is not installed: run \`${install}\` in your project`,
      { packages: [...needed], missing: name, install },
    );
  }
}

/** True when `error` is Node's "cannot find package `name`" (not a package that failed to load, nor one it imports). */
function isMissingPackage(error: unknown, name: string): boolean {
  const { code, message } = error as { code?: unknown; message?: unknown };
  return code === 'ERR_MODULE_NOT_FOUND' && typeof message === 'string' && message.includes(`'${name}'`);
}
