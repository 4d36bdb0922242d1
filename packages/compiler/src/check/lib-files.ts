import type ts from 'typescript';
import { CHECK_COMPILER_OPTIONS } from './options.js';

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
  /**
   * Snapshot of a lib file, read from disk once; `undefined` when there is no such file. The lib file of the check
   * options ({@link joinedLibText}) holds every lib file it references.
   */
  snapshot(fileName: string): ts.IScriptSnapshot | undefined;
}

// A tuple of one: a second lib would need a file of its own (two joined files would declare the shared ones twice).
const [CHECKED_LIB]: readonly [string] = CHECK_COMPILER_OPTIONS.lib;
/** The file name of the lib the checks use (`lib.es2023.d.ts`), as tsc names it. */
const CHECKED_LIB_FILE = `lib.${CHECKED_LIB}.d.ts`;
/** A `/// <reference lib="…" />` line of a lib file. */
const LIB_REFERENCE = /^\/\/\/[ \t]*<reference[ \t]+lib="[^"]*"[ \t]*\/>[ \t]*$/gm;

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
  const read = (fileName: string) => (fileName.startsWith(`${dir}/`) ? typescript.sys.readFile(fileName) : undefined);
  return {
    dir,
    registry,
    jsDocParsingMode,
    snapshot(fileName) {
      if (!snapshots.has(fileName)) {
        const text = fileName === `${dir}/${CHECKED_LIB_FILE}` ? joinedLibText(typescript, dir, read) : read(fileName);
        snapshots.set(fileName, text === undefined ? undefined : typescript.ScriptSnapshot.fromString(text));
      }
      return snapshots.get(fileName);
    },
  };
}

/**
 * The checked lib file (`lib.es2023.d.ts`) with every lib file it references, as one text: each file in the order a
 * program puts them (the order its globals merge in, so overloads and declarations keep theirs), without its
 * `/// <reference lib />` lines. A program then holds one lib SourceFile, not 61: each check's new program and type
 * checker set it up once (reuse of the old SourceFile, the merge of its globals) rather than per file.
 * The order is TypeScript's own: a program over stand-ins that hold only each file's reference lines.
 */
function joinedLibText(typescript: typeof ts, dir: string, read: (fileName: string) => string | undefined): string | undefined {
  const texts = new Map<string, string>();
  const root = `${dir}/${CHECKED_LIB_FILE}.order.ts`;
  const host: ts.CompilerHost = {
    getSourceFile(fileName, languageVersion) {
      const text = fileName === root ? '' : read(fileName);
      if (text === undefined) return undefined;
      texts.set(fileName, text);
      return typescript.createSourceFile(fileName, (text.match(LIB_REFERENCE) ?? []).join('\n'), languageVersion);
    },
    getDefaultLibFileName: (options) => `${dir}/${typescript.getDefaultLibFileName(options)}`,
    getDefaultLibLocation: () => dir,
    writeFile: () => undefined,
    getCurrentDirectory: () => dir,
    getCanonicalFileName: (fileName) => fileName,
    useCaseSensitiveFileNames: () => true,
    getNewLine: () => '\n',
    fileExists: (fileName) => read(fileName) !== undefined,
    readFile: read,
  };
  const program = typescript.createProgram({ rootNames: [root], options: { lib: [CHECKED_LIB_FILE], types: [], noResolve: true, noEmit: true }, host });
  const libs = program.getSourceFiles().filter((file) => program.isSourceFileDefaultLibrary(file));
  if (libs.length === 0) return undefined;
  return libs.map((file) => texts.get(file.fileName)!.replace(LIB_REFERENCE, '')).join('\n');
}
