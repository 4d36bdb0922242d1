import ts from 'typescript';

/** Type errors of the in-memory files `files` (name → text) compiled together under `tsc --strict`, one line each. */
export function strictErrors(files: Record<string, string>, options: ts.CompilerOptions = {}): string[] {
  const compilerOptions: ts.CompilerOptions = {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.ESNext,
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    lib: ['lib.es2023.d.ts'],
    types: [],
    skipLibCheck: false,
    ...options,
  };
  const host = ts.createCompilerHost(compilerOptions);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.fileExists = (name) => Object.hasOwn(files, name) || fileExists(name);
  host.readFile = (name) => (Object.hasOwn(files, name) ? files[name] : readFile(name));
  host.getSourceFile = (name, version, onError, create) =>
    Object.hasOwn(files, name) ? ts.createSourceFile(name, files[name]!, version, true) : getSourceFile(name, version, onError, create);
  const program = ts.createProgram(Object.keys(files), compilerOptions, host);
  return ts.getPreEmitDiagnostics(program).map((d) => {
    const where = d.file && d.start !== undefined ? `${d.file.fileName}:${d.file.getLineAndCharacterOfPosition(d.start).line + 1}` : '';
    return `${where} ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`;
  });
}
