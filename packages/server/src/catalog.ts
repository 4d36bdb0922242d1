import type ts from 'typescript';
import { CAPABILITY_PREFIX, STD_MODULE } from '@agent-spaces/capabilities';

/** One function agent code can call, as read from the space's declarations. */
export interface CatalogEntry {
  /** Module to import it from (`@capabilities/train-schedule`). */
  module: string;
  /** How agent code calls it (`trainSchedule.getSchedule`). */
  path: string;
  /** One line: the call with local parameter types inlined (`trainSchedule.getSchedule(params?: { station?: string }): Promise<Trip[]>`). */
  signature: string;
  /** The doc comment's first sentence. */
  summary: string;
  /** The whole doc comment. */
  doc: string;
  /** Declarations of the module's own types the signature refers to, transitively (for `detail: 'full'`). */
  related: string[];
  /** Lower-case search words of the name, the module and the doc. */
  words: { name: string[]; module: string[]; doc: string[] };
}

/** The searchable functions of a space and the `.d.ts` text of each module. */
export interface Catalog {
  entries: CatalogEntry[];
  /** Module specifier → its declarations. */
  modules: ReadonlyMap<string, string>;
}

const GLOBALS_FILE = 'sandbox-globals.d.ts';
const STD_FILE = 'agent-spaces-std.d.ts';

/**
 * Reads a space's declarations (`Space.declarations()`: file name → `.d.ts` text) into a catalog. Handles both a
 * `declare module '…' { … }` wrapper and a bare module file; exported functions, objects of methods (`export const x:
 * { f(): … }` or an interface) and namespaces become entries. Loads TypeScript on first use.
 */
export async function buildCatalog(files: ReadonlyMap<string, string>): Promise<Catalog> {
  const { default: typescript } = await import('typescript');
  const entries: CatalogEntry[] = [];
  const modules = new Map<string, string>();
  for (const [file, text] of files) {
    if (file === GLOBALS_FILE) continue;
    const fallback = file === STD_FILE ? STD_MODULE : CAPABILITY_PREFIX + file.replace(/\.d\.ts$/, '');
    const source = typescript.createSourceFile(file, text, typescript.ScriptTarget.Latest, true);
    const wrapped = source.statements.filter(
      (s): s is ts.ModuleDeclaration => typescript.isModuleDeclaration(s) && typescript.isStringLiteral(s.name),
    );
    if (wrapped.length === 0) {
      modules.set(fallback, text);
      entries.push(...new ModuleReader(typescript, source, fallback).read(source.statements));
    }
    for (const declaration of wrapped) {
      const name = (declaration.name as ts.StringLiteral).text;
      modules.set(name, text.slice(declaration.getStart(source), declaration.end));
      const body = declaration.body && typescript.isModuleBlock(declaration.body) ? declaration.body.statements : [];
      entries.push(...new ModuleReader(typescript, source, name).read(body));
    }
  }
  return { entries, modules };
}

type Signed = ts.MethodSignature | ts.FunctionDeclaration | ts.FunctionTypeNode;

/** Walks one module's statements into entries. */
class ModuleReader {
  readonly #ts: typeof ts;
  readonly #source: ts.SourceFile;
  readonly #module: string;
  readonly #locals = new Map<string, ts.InterfaceDeclaration | ts.TypeAliasDeclaration | ts.EnumDeclaration>();
  readonly #printer: ts.Printer;

  constructor(typescript: typeof ts, source: ts.SourceFile, module: string) {
    this.#ts = typescript;
    this.#source = source;
    this.#module = module;
    this.#printer = typescript.createPrinter({ removeComments: true, newLine: typescript.NewLineKind.LineFeed });
  }

  read(statements: readonly ts.Statement[]): CatalogEntry[] {
    const t = this.#ts;
    for (const s of statements) {
      if ((t.isInterfaceDeclaration(s) || t.isTypeAliasDeclaration(s) || t.isEnumDeclaration(s)) && !this.#locals.has(s.name.text)) {
        this.#locals.set(s.name.text, s);
      }
    }
    const entries = this.#statements(statements, '');
    // The compiler exports each function both as a member of the capability object and alone: keep the member.
    const members = new Set(entries.filter((e) => e.path.includes('.')).map((e) => e.path.split('.').at(-1)));
    return entries.filter((e) => e.path.includes('.') || !members.has(e.path));
  }

  #statements(statements: readonly ts.Statement[], prefix: string): CatalogEntry[] {
    const t = this.#ts;
    const entries: CatalogEntry[] = [];
    for (const s of statements) {
      if (t.isFunctionDeclaration(s) && s.name) entries.push(this.#entry(prefix + s.name.text, s, s, ''));
      else if (t.isVariableStatement(s)) {
        for (const d of s.declarationList.declarations) {
          if (t.isIdentifier(d.name) && d.type) entries.push(...this.#typed(prefix + d.name.text, d.type, s, this.#doc(s)));
        }
      } else if (t.isModuleDeclaration(s) && t.isIdentifier(s.name) && s.body && t.isModuleBlock(s.body)) {
        entries.push(...this.#statements(s.body.statements, `${prefix}${s.name.text}.`));
      }
    }
    return entries;
  }

  /** Entries of a value of type `type` reachable as `path`; `context` is the doc of the object holding it. */
  #typed(path: string, type: ts.TypeNode, docNode: ts.Node, context: string): CatalogEntry[] {
    const t = this.#ts;
    if (t.isFunctionTypeNode(type)) return [this.#entry(path, type, docNode, context)];
    const members = t.isTypeLiteralNode(type) ? type.members : this.#interfaceMembers(type);
    const entries: CatalogEntry[] = [];
    for (const member of members ?? []) {
      if (!member.name || !(t.isIdentifier(member.name) || t.isStringLiteral(member.name))) continue;
      const name = `${path}.${member.name.text}`;
      if (t.isMethodSignature(member)) entries.push(this.#entry(name, member, member, context));
      else if (t.isPropertySignature(member) && member.type) entries.push(...this.#typed(name, member.type, member, context));
    }
    return entries;
  }

  #interfaceMembers(type: ts.TypeNode): readonly ts.TypeElement[] | undefined {
    const local = this.#local(type);
    return local && this.#ts.isInterfaceDeclaration(local) ? local.members : undefined;
  }

  #local(type: ts.TypeNode) {
    const t = this.#ts;
    return t.isTypeReferenceNode(type) && t.isIdentifier(type.typeName) ? this.#locals.get(type.typeName.text) : undefined;
  }

  #entry(path: string, node: Signed, docNode: ts.Node, context: string): CatalogEntry {
    const doc = this.#doc(docNode);
    const params = node.parameters.map((p) => {
      const name = p.name.getText(this.#source);
      const type = p.type ? this.#print(this.#inlined(p.type)) : 'unknown';
      return `${p.dotDotDotToken ? '...' : ''}${name}${p.questionToken ? '?' : ''}: ${type}`;
    });
    const returns = node.type ? this.#print(node.type) : 'unknown';
    const typeParams = node.typeParameters ? `<${node.typeParameters.map((p) => this.#print(p)).join(', ')}>` : '';
    const related = new Map<string, string>();
    for (const part of [...node.parameters.map((p) => p.type), node.type]) if (part) this.#collect(part, related);
    return {
      module: this.#module,
      path,
      signature: `${path}${typeParams}(${params.join(', ')}): ${returns}`,
      summary: firstSentence(doc),
      doc,
      related: [...related.values()],
      words: { name: words(path.split('.').at(-1) ?? path), module: words(`${this.#module} ${path}`), doc: words(`${doc} ${context}`) },
    };
  }

  /** A parameter type naming a plain local interface is shown as its body, so one line tells what to pass. */
  #inlined(type: ts.TypeNode): ts.TypeNode {
    const t = this.#ts;
    const local = this.#local(type);
    if (!local || !t.isInterfaceDeclaration(local) || local.typeParameters || local.heritageClauses) return type;
    return t.factory.createTypeLiteralNode(local.members);
  }

  /** Adds the text (with docs) of every local type `node` refers to, transitively. */
  #collect(node: ts.Node, into: Map<string, string>): void {
    const t = this.#ts;
    if (t.isTypeReferenceNode(node) && t.isIdentifier(node.typeName)) {
      const name = node.typeName.text;
      const local = this.#locals.get(name);
      if (local && !into.has(name)) {
        into.set(name, this.#source.text.slice(local.getFullStart(), local.end).trim());
        this.#collect(local, into);
      }
    }
    t.forEachChild(node, (child) => this.#collect(child, into));
  }

  #print(node: ts.Node): string {
    return this.#printer
      .printNode(this.#ts.EmitHint.Unspecified, node, this.#source)
      .replace(/\s*\n\s*/g, ' ')
      .replace(/;\s*}/g, ' }');
  }

  #doc(node: ts.Node): string {
    const text = this.#source.text;
    const ranges = this.#ts.getLeadingCommentRanges(text, node.getFullStart()) ?? [];
    const jsdoc = ranges.filter((r) => text.startsWith('/**', r.pos)).at(-1);
    if (!jsdoc) return '';
    return text
      .slice(jsdoc.pos + 3, jsdoc.end - 2)
      .split('\n')
      .map((line) => line.replace(/^\s*\*\s?/, '').trimEnd())
      .join('\n')
      .trim();
  }
}

function firstSentence(doc: string): string {
  const line = doc.split(/\n\s*\n|\n@/)[0]!.replace(/\s+/g, ' ').trim();
  const end = line.search(/[.!?](\s|$)/);
  return end === -1 ? line : line.slice(0, end + 1);
}

const STOP_WORDS = new Set(['a', 'an', 'and', 'as', 'at', 'by', 'for', 'from', 'in', 'into', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'with']);

/** Lower-case, stemmed words of `text`: camelCase, snake_case, kebab-case and punctuation all split. */
export function words(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((w) => w.length > 0 && !STOP_WORDS.has(w))
    .map(stem);
}

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}
