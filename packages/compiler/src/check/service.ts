import type ts from 'typescript';
import { AgentSpacesError } from '@agent-spaces/capabilities';
import { Batcher } from './batch.js';
import { collectBindings } from './bindings.js';
import { explainDiagnostic } from './explain.js';
import { fitDiagnostic } from './lean.js';
import { CHECK_COMPILER_OPTIONS } from './options.js';
import { sharedLibraries, type SharedLibraries } from './lib-files.js';
import { MIXED_RESULT_CODE, MIXED_RESULT_MESSAGE, prepareScript, type PreparedScript } from './script.js';
import { BatchedSession, type CheckRequest, type CheckResult } from './session.js';
import type { TypecheckDiagnostic, Typechecker, TypecheckSession } from './types.js';

const ROOT = '/agent-spaces';
const DECLARATIONS_DIR = `${ROOT}/declarations`;
/** The virtual path of the `index`th agent file of a batch. */
const agentPath = (index: number) => `${ROOT}/agent-${index}.ts`;
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
 * A {@link Typechecker} over one TypeScript language service whose host serves the agent files and the declarations
 * from memory and the lib files from the installed typescript package (shared by all instances of the process).
 * A batch of scripts is one program: one agent file per script, each checked with its own `getSemanticDiagnostics`.
 */
export class ServiceTypechecker implements Typechecker {
  readonly #ts: typeof ts;
  readonly #libs: SharedLibraries;
  readonly #files = new Map<string, VirtualFile>();
  readonly #service: ts.LanguageService;
  readonly #batches = new Batcher<CheckRequest, CheckResult>((requests) => this.#checkAll(requests));
  #agentFiles = 0;
  #projectVersion = 0;
  /**
   * Module resolutions of the programs since the set of files last changed: each check's new program resolves its
   * imports from here rather than walking the virtual folders again. Only the set of file paths decides a resolution
   * (nothing else exists), so a file added or removed starts a new cache.
   */
  #resolutions: ts.ModuleResolutionCache;
  #declarationDiagnostics: TypecheckDiagnostic[] | undefined;
  #disposed = false;

  constructor(typescript: typeof ts, declarations: ReadonlyMap<string, string>) {
    this.#ts = typescript;
    this.#libs = sharedLibraries(typescript);
    this.#resolutions = this.#newResolutions();
    this.setDeclarations(declarations);
    this.#service = typescript.createLanguageService(this.#host(), this.#libs.registry);
  }

  check(code: string): TypecheckDiagnostic[] {
    return this.checkRequests([{ code }])[0]!.diagnostics;
  }

  /** Checks the requests now, in one program, and answers each in order (the typecheck worker's entry point). */
  checkRequests(requests: readonly CheckRequest[]): CheckResult[] {
    return this.#checkAll(requests);
  }

  /**
   * Checks the declarations themselves ahead of the first script, so a script's check does not pay for it. Without
   * declarations, checks an empty script: the lib files are then parsed and bound, for every later typechecker.
   */
  warm(): void {
    this.#assertOpen();
    if (this.#declarationPaths().length > 0) this.#declarationsDiagnostics();
    else this.#checkAll([{ code: '' }]);
  }

  async checkBatched(code: string): Promise<TypecheckDiagnostic[]> {
    return (await this.#batches.submit({ code })).diagnostics;
  }

  createSession(): TypecheckSession {
    this.#assertOpen();
    return new BatchedSession((request) => this.#batches.submit(request));
  }

  /**
   * Checks the scripts together, in one program, and answers each in order. Bindings are declared after a
   * script's code; problems inside them are left out (a binding whose type does not resolve is then as good as
   * `any`). Code that does not parse is checked again without them, so its syntax errors are its own.
   */
  #checkAll(requests: readonly CheckRequest[]): CheckResult[] {
    this.#assertOpen();
    const typescript = this.#ts;
    const declarationDiagnostics = this.#declarationsDiagnostics();
    const scripts = requests.map((request) => prepareScript(typescript, request.code, request.bindings));
    this.#setAgentFiles(scripts.map((script) => script.text));
    const results: (CheckResult | undefined)[] = scripts.map((script, i) => {
      const path = agentPath(i);
      // Like tsc: semantic diagnostics only once the code parses.
      const syntactic = this.#service.getSyntacticDiagnostics(path);
      if (syntactic.length > 0 && script.bindingsStart < script.text.length) return undefined;
      const raw =
        syntactic.length > 0 ? syntactic : this.#service.getSemanticDiagnostics(path).filter((d) => (d.start ?? 0) < script.bindingsStart);
      const diagnostics = [...declarationDiagnostics, ...this.#located(script, raw, syntactic.length > 0 ? undefined : path)];
      if (!requests[i]!.collectBindings) return { diagnostics, bindings: new Map() };
      const program = this.#service.getProgram()!;
      const file = program.getSourceFile(path)!;
      return { diagnostics, bindings: collectBindings(typescript, program.getTypeChecker(), file, script.statements(file)) };
    });
    const unparsed = results.flatMap((result, i) => (result ? [] : [i]));
    if (unparsed.length > 0) {
      const again = this.#checkAll(unparsed.map((i) => ({ ...requests[i]!, bindings: new Map() })));
      unparsed.forEach((i, k) => (results[i] = again[k]));
    }
    return results as CheckResult[];
  }

  setDeclarations(declarations: ReadonlyMap<string, string>): void {
    this.#assertOpen();
    const next = new Map<string, string>();
    for (const [name, text] of declarations) next.set(declarationPath(name, text), text);
    const before = this.#projectVersion;
    for (const path of this.#declarationPaths()) {
      if (!next.has(path)) this.#deleteFile(path);
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
   * The script's own diagnostics and its mixed-result errors, at the agent's lines and columns, in order; each
   * explained ({@link explainDiagnostic}) when the script at `path` parsed.
   */
  #located(script: PreparedScript, raw: readonly ts.Diagnostic[], path: string | undefined): TypecheckDiagnostic[] {
    const program = path === undefined ? undefined : this.#service.getProgram();
    const file = program?.getSourceFile(path!);
    const isDeclared = (fileName: string) => fileName.startsWith(`${DECLARATIONS_DIR}/`);
    const mixed = script.mixedExportDefaults.map((position) => ({
      code: MIXED_RESULT_CODE,
      category: 'error' as const,
      message: MIXED_RESULT_MESSAGE,
      ...script.locate(position),
    }));
    const own = raw.map((d) => ({
      code: d.code,
      category: this.#category(d),
      message: this.#message(d),
      ...script.locate(d.start ?? 0),
      ...(program && file ? explainDiagnostic(this.#ts, program.getTypeChecker(), file, d, isDeclared) : {}),
    }));
    return [...mixed, ...own].map(fitDiagnostic).sort((a, b) => a.line - b.line || a.column - b.column);
  }

  /**
   * Problems inside the declarations, each on line 1 naming the file. They are computed without agent files, so
   * they do not depend on agent code and hold until the declarations change.
   */
  #declarationsDiagnostics(): TypecheckDiagnostic[] {
    if (this.#declarationDiagnostics) return this.#declarationDiagnostics;
    this.#setAgentFiles([]);
    const diagnostics: TypecheckDiagnostic[] = [];
    for (const path of this.#declarationPaths()) {
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

  /** Makes `texts` the agent files, one per script of a batch; the files of a larger previous batch go. */
  #setAgentFiles(texts: readonly string[]): void {
    texts.forEach((text, i) => this.#setFile(agentPath(i), text));
    for (let i = texts.length; i < this.#agentFiles; i++) this.#deleteFile(agentPath(i));
    this.#agentFiles = texts.length;
  }

  #declarationPaths(): string[] {
    return [...this.#files.keys()].filter((path) => path.startsWith(`${DECLARATIONS_DIR}/`));
  }

  #deleteFile(path: string): void {
    if (!this.#files.delete(path)) return;
    this.#projectVersion++;
    this.#resolutions = this.#newResolutions();
  }

  #setFile(path: string, text: string): void {
    const current = this.#files.get(path);
    if (current?.text === text) return;
    if (!current) this.#resolutions = this.#newResolutions();
    const snapshot = this.#ts.ScriptSnapshot.fromString(text);
    this.#files.set(path, { text, version: ++lastScriptVersion, snapshot });
    this.#projectVersion++;
  }

  #host(): ts.LanguageServiceHost {
    const typescript = this.#ts;
    const libs = this.#libs;
    const isLib = (path: string) => path.startsWith(`${libs.dir}/`);
    const options = typescript.convertCompilerOptionsFromJson(CHECK_COMPILER_OPTIONS, ROOT).options;
    // `getModuleResolutionCache` is the CompilerHost's; the language service passes it on to each program it makes.
    const host: ts.LanguageServiceHost & Pick<ts.CompilerHost, 'getModuleResolutionCache'> = {
      getCompilationSettings: () => options,
      jsDocParsingMode: libs.jsDocParsingMode,
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
      getModuleResolutionCache: () => this.#resolutions,
      resolveModuleNameLiterals: (literals, containingFile, redirected, literalOptions, containingSourceFile) =>
        literals.map((literal) => {
          const mode = typescript.getModeForUsageLocation(containingSourceFile, literal, literalOptions);
          return typescript.resolveModuleName(literal.text, containingFile, literalOptions, host, this.#resolutions, redirected, mode);
        }),
    };
    return host;
  }

  #newResolutions(): ts.ModuleResolutionCache {
    const options = this.#ts.convertCompilerOptionsFromJson(CHECK_COMPILER_OPTIONS, ROOT).options;
    return this.#ts.createModuleResolutionCache(ROOT, (fileName) => fileName, options);
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
