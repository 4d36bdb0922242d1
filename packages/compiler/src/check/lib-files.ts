import type ts from 'typescript';

/** The lib files of the installed typescript package, read and parsed once per process. */
export interface SharedLibraries {
  /** Folder of the `lib.*.d.ts` files, without a trailing slash. */
  readonly dir: string;
  /** Document registry for every language service; it never releases lib SourceFiles, so new services reuse them. */
  readonly registry: ts.DocumentRegistry;
  /**
   * How the registry parses JSDoc, which a language service host using it must declare too: as tsc does, only where it
   * can change a type error (in TypeScript files, `@see` and `@link` tags), which parses the lib files in about half the time.
   */
  readonly jsDocParsingMode: ts.JSDocParsingMode;
  /** Snapshot of a lib file, read from disk once; `undefined` when there is no such file. */
  snapshot(fileName: string): ts.IScriptSnapshot | undefined;
}

let shared: SharedLibraries | undefined;

/** The process-wide {@link SharedLibraries}, created on first use. */
export function sharedLibraries(typescript: typeof ts): SharedLibraries {
  shared ??= createSharedLibraries(typescript);
  return shared;
}

function createSharedLibraries(typescript: typeof ts): SharedLibraries {
  const defaultLib = typescript.getDefaultLibFilePath({});
  const dir = defaultLib.slice(0, defaultLib.lastIndexOf('/'));
  const snapshots = new Map<string, ts.IScriptSnapshot | undefined>();
  const jsDocParsingMode = typescript.JSDocParsingMode.ParseForTypeErrors;
  const base = typescript.createDocumentRegistry(true, undefined, jsDocParsingMode);
  const registry: ts.DocumentRegistry = {
    ...base,
    releaseDocumentWithKey(
      path: ts.Path,
      key: ts.DocumentRegistryBucketKey,
      scriptKind?: ts.ScriptKind,
      impliedNodeFormat?: ts.ResolutionMode,
    ) {
      // Lib files never change: keeping them parsed (and bound) is what makes the next check and the next
      // Typechecker fast. The arguments pass through as given (`scriptKind` is only absent in a deprecated form).
      if (!path.startsWith(`${dir}/`)) base.releaseDocumentWithKey(path, key, scriptKind as ts.ScriptKind, impliedNodeFormat);
    },
  };
  return {
    dir,
    registry,
    jsDocParsingMode,
    snapshot(fileName) {
      if (!snapshots.has(fileName)) {
        const text = typescript.sys.readFile(fileName);
        snapshots.set(fileName, text === undefined ? undefined : typescript.ScriptSnapshot.fromString(text));
      }
      return snapshots.get(fileName);
    },
  };
}
