import { statSync } from 'node:fs';
import type ts from 'typescript';

/**
 * Compiler options for reading `defineTool()` sources: resolution like esbuild's (`Bundler`), JS and JSON imports
 * allowed, only the ES lib loaded. Nothing is emitted and nothing is reported from the program
 * itself; it is only asked what the names in `returns` types refer to.
 */
function compilerOptions(typescript: typeof ts): ts.CompilerOptions {
  return {
    target: typescript.ScriptTarget.ES2022,
    module: typescript.ModuleKind.ESNext,
    moduleResolution: typescript.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts'],
    // Not even @types/node (it would double the cost): result types are what sandboxed agent code sees, where
    // Node's globals do not exist.
    types: [],
    allowJs: true,
    checkJs: false,
    resolveJsonModule: true,
    allowImportingTsExtensions: true,
    strict: true,
    skipLibCheck: true,
    noEmit: true,
  };
}

/** One language service per process over every `defineTool()` source read so far. */
export interface SourcePrograms {
  /** Makes `file` (absolute path) part of the next program without building it yet. */
  register(file: string): void;
  /** A program containing `file` (absolute path), up to date with the files on disk. */
  programFor(file: string): ts.Program;
}

let shared: SourcePrograms | undefined;

/**
 * The process-wide {@link SourcePrograms}. Building a `ts.Program` from scratch costs about half a second (parsing the
 * lib files); the language service keeps parsed files and only re-reads files whose mtime or size
 * changed, so the second and later sources of a build (and later builds) reuse them.
 */
export function sourcePrograms(typescript: typeof ts): SourcePrograms {
  shared ??= createSourcePrograms(typescript);
  return shared;
}

function createSourcePrograms(typescript: typeof ts): SourcePrograms {
  const options = compilerOptions(typescript);
  const roots = new Set<string>();
  const libDir = typescript.getDefaultLibFilePath(options).replace(/[\\/][^\\/]*$/, '');
  const snapshots = new Map<string, { version: string; snapshot: ts.IScriptSnapshot }>();

  const versionOf = (fileName: string): string | undefined => {
    if (fileName.startsWith(libDir)) return 'lib';
    try {
      const stat = statSync(fileName);
      return `${stat.mtimeMs}:${stat.size}`;
    } catch {
      return undefined;
    }
  };

  const host: ts.LanguageServiceHost = {
    getCompilationSettings: () => options,
    getScriptFileNames: () => [...roots],
    getScriptVersion: (fileName) => versionOf(fileName) ?? 'missing',
    getScriptSnapshot(fileName) {
      const version = versionOf(fileName);
      if (version === undefined) return undefined;
      const cached = snapshots.get(fileName);
      if (cached?.version === version) return cached.snapshot;
      const text = typescript.sys.readFile(fileName);
      if (text === undefined) return undefined;
      const snapshot = typescript.ScriptSnapshot.fromString(text);
      snapshots.set(fileName, { version, snapshot });
      return snapshot;
    },
    getCurrentDirectory: () => process.cwd(),
    getDefaultLibFileName: (settings) => typescript.getDefaultLibFilePath(settings),
    fileExists: (fileName) => typescript.sys.fileExists(fileName),
    readFile: (fileName, encoding) => typescript.sys.readFile(fileName, encoding),
    readDirectory: (...args) => typescript.sys.readDirectory(...args),
    directoryExists: (dir) => typescript.sys.directoryExists(dir),
    getDirectories: (dir) => typescript.sys.getDirectories(dir),
    realpath: (path) => typescript.sys.realpath?.(path) ?? path,
    useCaseSensitiveFileNames: () => typescript.sys.useCaseSensitiveFileNames,
  };
  const service = typescript.createLanguageService(host, typescript.createDocumentRegistry());

  return {
    register(file) {
      roots.add(file);
    },
    programFor(file) {
      for (const root of roots) if (versionOf(root) === undefined) roots.delete(root);
      roots.add(file);
      const program = service.getProgram();
      if (!program) throw new Error('the TypeScript language service returned no program');
      return program;
    },
  };
}
