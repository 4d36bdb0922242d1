/**
 * The compiler options agent code is checked with, in tsconfig form: one object for the pre-run typechecker and the
 * generated editor `tsconfig.json`, so an editor and `check` judge a script alike.
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
  noEmit: true,
} as const;
