import type ts from 'typescript';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { sharedLibraries, type SharedLibraries } from './lib-files.js';
import { prepareScript } from './script.js';
import { MIXED_RESULT_CODE, type TypecheckDiagnostic, type Typechecker } from './types.js';

const ROOT = '/agent-spaces';
const AGENT_FILE = `${ROOT}/agent.ts`;
const DECLARATIONS_DIR = `${ROOT}/declarations`;
/**
 * Script versions are unique across every typechecker of the process: the document registry is shared, and a
 * per-instance version would hand a new typechecker another one's file of the same path (a rebuilt `.d.ts`).
 */
let lastScriptVersion = 0;

interface VirtualFile {
  text: string;
  version: number;
  snapshot: ts.IScriptSnapshot;
}

/**
 * A {@link Typechecker} over one TypeScript language service whose host serves the agent file and the declarations
 * from memory and the lib files from the installed typescript package (shared by all instances of the process).
 */
export class ServiceTypechecker implements Typechecker {
  readonly #ts: typeof ts;
  readonly #libs: SharedLibraries;
  readonly #files = new Map<string, VirtualFile>();
  readonly #service: ts.LanguageService;
  #projectVersion = 0;
  #declarationDiagnostics: TypecheckDiagnostic[] | undefined;
  #disposed = false;

  constructor(typescript: typeof ts, declarations: ReadonlyMap<string, string>) {
    this.#ts = typescript;
    this.#libs = sharedLibraries(typescript);
    this.setDeclarations(declarations);
    this.#setFile(AGENT_FILE, '');
    this.#service = typescript.createLanguageService(this.#host(), this.#libs.registry);
  }

  check(code: string): TypecheckDiagnostic[] {
    this.#assertOpen();
    const declarationDiagnostics = this.#declarationsDiagnostics();
    const script = prepareScript(this.#ts, code);
    this.#setFile(AGENT_FILE, script.text);
    // Like tsc: semantic diagnostics only once the code parses.
    const syntactic = this.#service.getSyntacticDiagnostics(AGENT_FILE);
    const raw = syntactic.length > 0 ? syntactic : this.#service.getSemanticDiagnostics(AGENT_FILE);
    const mixed = script.mixedExportDefaults.map((position) => ({
      code: MIXED_RESULT_CODE,
      category: 'error' as const,
      message: "This script also has a top-level 'return': give its result with either 'export default' or 'return', not both.",
      ...script.locate(position),
    }));
    const own = raw.map((d) => ({
      code: d.code,
      category: this.#category(d),
      message: this.#message(d),
      ...script.locate(d.start ?? 0),
    }));
    return [...declarationDiagnostics, ...[...mixed, ...own].sort((a, b) => a.line - b.line || a.column - b.column)];
  }

  sessionBindings(code: string): Map<string, string> {
    this.#assertOpen();
    const typescript = this.#ts;
    this.#setFile(AGENT_FILE, prepareScript(typescript, code).text);
    const program = this.#service.getProgram();
    const file = program?.getSourceFile(AGENT_FILE);
    if (!program || !file) return new Map();
    const checker = program.getTypeChecker();
    const main = file.statements.find((s): s is ts.FunctionDeclaration => typescript.isFunctionDeclaration(s) && s.name?.text === '__main__');
    const statements = main?.body?.statements ?? file.statements;
    const names: ts.Identifier[] = [];
    const collect = (name: ts.BindingName): void => {
      if (typescript.isIdentifier(name)) names.push(name);
      else for (const element of name.elements) if (!typescript.isOmittedExpression(element)) collect(element.name);
    };
    for (const statement of statements) {
      if (typescript.isVariableStatement(statement)) statement.declarationList.declarations.forEach((d) => collect(d.name));
      else if ((typescript.isFunctionDeclaration(statement) || typescript.isClassDeclaration(statement)) && statement.name) names.push(statement.name);
    }
    const flags = typescript.TypeFormatFlags.NoTruncation | typescript.TypeFormatFlags.UseFullyQualifiedType;
    const bindings = new Map(names.map((name) => [name.text, checker.typeToString(checker.getTypeAtLocation(name), undefined, flags)]));
    // Keep only types that mean the same outside the script: check them in a scratch declaration file.
    const entries = [...bindings];
    const scratch = `${DECLARATIONS_DIR}/__session_bindings__.d.ts`;
    this.#setFile(scratch, entries.map(([, type], i) => `declare var __binding${i}: ${type};`).join('\n'));
    try {
      const scratchFile = this.#service.getProgram()?.getSourceFile(scratch);
      for (const d of [...this.#service.getSyntacticDiagnostics(scratch), ...this.#service.getSemanticDiagnostics(scratch)]) {
        if (!scratchFile || d.start === undefined) continue;
        const [name] = entries[typescript.getLineAndCharacterOfPosition(scratchFile, d.start).line] ?? [];
        if (name !== undefined) bindings.set(name, 'any');
      }
    } finally {
      this.#files.delete(scratch);
      this.#projectVersion++;
    }
    return bindings;
  }

  setDeclarations(declarations: ReadonlyMap<string, string>): void {
    this.#assertOpen();
    const next = new Map<string, string>();
    for (const [name, text] of declarations) next.set(declarationPath(name, text), text);
    const before = this.#projectVersion;
    for (const path of this.#files.keys()) {
      if (path !== AGENT_FILE && !next.has(path)) {
        this.#files.delete(path);
        this.#projectVersion++;
      }
    }
    for (const [path, text] of next) this.#setFile(path, text);
    if (this.#projectVersion !== before) this.#declarationDiagnostics = undefined;
  }

  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    this.#service.dispose();
    this.#files.clear();
  }

  /** The language service's current program; tests use it to see that lib SourceFiles are reused, not re-parsed. */
  getProgram(): ts.Program | undefined {
    this.#assertOpen();
    return this.#service.getProgram();
  }

  /**
   * Problems inside the declarations, each on line 1 naming the file. They are computed with an empty agent file,
   * so they do not depend on agent code and hold until the declarations change.
   */
  #declarationsDiagnostics(): TypecheckDiagnostic[] {
    if (this.#declarationDiagnostics) return this.#declarationDiagnostics;
    this.#setFile(AGENT_FILE, '');
    const diagnostics: TypecheckDiagnostic[] = [];
    for (const path of this.#files.keys()) {
      if (path === AGENT_FILE) continue;
      const name = path.slice(DECLARATIONS_DIR.length + 1);
      const raw = [...this.#service.getSyntacticDiagnostics(path), ...this.#service.getSemanticDiagnostics(path)];
      for (const d of raw) {
        const at = d.file && d.start !== undefined ? this.#ts.getLineAndCharacterOfPosition(d.file, d.start) : undefined;
        const where = at ? `${name}:${at.line + 1}:${at.character + 1}` : name;
        diagnostics.push({
          code: d.code,
          category: this.#category(d),
          message: `In the declarations, ${where}: ${this.#message(d)} (the capability compiler generated invalid declarations)`,
          line: 1,
          column: 1,
        });
      }
    }
    this.#declarationDiagnostics = diagnostics;
    return diagnostics;
  }

  #setFile(path: string, text: string): void {
    const current = this.#files.get(path);
    if (current?.text === text) return;
    const snapshot = this.#ts.ScriptSnapshot.fromString(text);
    this.#files.set(path, { text, version: ++lastScriptVersion, snapshot });
    this.#projectVersion++;
  }

  #host(): ts.LanguageServiceHost {
    const typescript = this.#ts;
    const libs = this.#libs;
    const isLib = (path: string) => path.startsWith(`${libs.dir}/`);
    const options: ts.CompilerOptions = {
      strict: true,
      target: typescript.ScriptTarget.ES2022,
      module: typescript.ModuleKind.ESNext,
      moduleResolution: typescript.ModuleResolutionKind.Bundler,
      // The runtime runs agent code as a module even without imports: top-level await, no accidental globals.
      moduleDetection: typescript.ModuleDetectionKind.Force,
      lib: ['lib.es2023.d.ts'],
      types: [],
      noEmit: true,
      skipLibCheck: false,
    };
    return {
      getCompilationSettings: () => options,
      getProjectVersion: () => String(this.#projectVersion),
      getScriptFileNames: () => [...this.#files.keys()],
      getScriptVersion: (path) => String(this.#files.get(path)?.version ?? 0),
      getScriptSnapshot: (path) => this.#files.get(path)?.snapshot ?? (isLib(path) ? libs.snapshot(path) : undefined),
      getCurrentDirectory: () => ROOT,
      getDefaultLibFileName: (o) => `${libs.dir}/${typescript.getDefaultLibFileName(o)}`,
      useCaseSensitiveFileNames: () => true,
      // Nothing outside the virtual files and the libs exists: no node_modules, no @types.
      fileExists: (path) => this.#files.has(path) || (isLib(path) && libs.snapshot(path) !== undefined),
      readFile: (path) => {
        const snapshot = this.#files.get(path)?.snapshot ?? (isLib(path) ? libs.snapshot(path) : undefined);
        return snapshot?.getText(0, snapshot.getLength());
      },
      directoryExists: (dir) => dir === ROOT || dir === DECLARATIONS_DIR || dir === libs.dir,
      getDirectories: () => [],
    };
  }

  #category(diagnostic: ts.Diagnostic): TypecheckDiagnostic['category'] {
    return diagnostic.category === this.#ts.DiagnosticCategory.Warning ? 'warning' : 'error';
  }

  #message(diagnostic: ts.Diagnostic): string {
    return this.#ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n');
  }

  #assertOpen(): void {
    if (this.#disposed) throw new AgentSpacesError('INTERNAL', 'This typechecker was disposed; create a new one');
  }
}

/** The virtual path of a declaration file; rejects names that are not plain relative `.d.ts` paths. */
function declarationPath(name: unknown, text: unknown): string {
  const valid =
    typeof name === 'string' &&
    name.endsWith('.d.ts') &&
    !name.includes('\\') &&
    name.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');
  if (!valid) {
    throw new AgentSpacesError(
      'INVALID_DECLARATIONS',
      `Declaration file name ${JSON.stringify(name)} must be a relative path ending in .d.ts`,
      { file: String(name) },
    );
  }
  if (typeof text !== 'string') {
    throw new AgentSpacesError('INVALID_DECLARATIONS', `Declaration file ${name} has no text (got ${typeof text})`, {
      file: name,
    });
  }
  return `${DECLARATIONS_DIR}/${name}`;
}
