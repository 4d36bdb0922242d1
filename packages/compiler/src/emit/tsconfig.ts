/**
 * `.agent-spaces/tsconfig.json`: the fragment an agent folder's `tsconfig.json` extends, so plain `tsc` and editors
 * judge agent code as `check` does.
 */
import { CAPABILITY_FILES, CAPABILITY_PREFIX, EDITOR_PLUGIN, OUTPUT_FILES } from '@agent-spaces/capabilities';
import { CHECK_COMPILER_OPTIONS } from '../check/options.js';

/** The folder, in the output folder's `types` folder, of the sandbox's own declaration files. */
export const SANDBOX_TYPES_DIR = `${OUTPUT_FILES.types}/agent-spaces`;

/**
 * The fragment for the built capabilities `ids` and the sandbox declaration files `sandboxFiles` (names in
 * {@link SANDBOX_TYPES_DIR}): `check`'s compiler options (no Node or DOM types; `noResolve`, so no file of
 * node_modules enters the program), `@capabilities/*`, and as `files` exactly the declarations `check` is given — each
 * built module's and the sandbox's (`@agent-spaces/std`, the globals). An extending file that sets its own `include`
 * keeps these `files`. Editors also load {@link EDITOR_PLUGIN} (tsc loads no plugins: a top-level `return` is TS1108
 * there).
 */
export function emitTsconfigFragment(ids: readonly string[], sandboxFiles: readonly string[]): string {
  const fragment = {
    compilerOptions: {
      ...CHECK_COMPILER_OPTIONS,
      paths: { [`${CAPABILITY_PREFIX}*`]: [`./${OUTPUT_FILES.capabilities}/*/${CAPABILITY_FILES.declarations}`] },
      plugins: [{ name: EDITOR_PLUGIN }],
    },
    files: [
      ...[...ids].sort().map((id) => `./${OUTPUT_FILES.capabilities}/${id}/${CAPABILITY_FILES.declarations}`),
      ...[...sandboxFiles].sort().map((name) => `./${SANDBOX_TYPES_DIR}/${name}`),
    ],
  };
  return `${JSON.stringify(fragment, null, 2)}\n`;
}
