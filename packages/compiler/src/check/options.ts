/**
 * The compiler options agent code is checked with, in tsconfig form: one object for the pre-run typechecker and the
 * generated editor `tsconfig.json`, so an editor, plain `tsc` and `check` judge a script alike.
 */
export const CHECK_COMPILER_OPTIONS = {
  strict: true,
  target: 'es2022',
  module: 'esnext',
  moduleResolution: 'bundler',
  // The runtime runs agent code as a module even without imports: top-level await, no accidental globals.
  moduleDetection: 'force',
  // The sandbox has the ECMAScript built-ins and its own globals only: no DOM, no Node types.
  lib: ['es2023'],
  // Agent code sees the declarations it is given and nothing else: no @types, and an import never pulls a file of
  // node_modules into the program (`@agent-spaces/std` is the sandbox's module, not the host package of that name;
  // any other package is not importable, TS2307 as at run time).
  types: [],
  noResolve: true,
  // The given declarations are checked: an invalid one is an error, as the compiler generated it.
  skipLibCheck: false,
  noEmit: true,
} as const;
