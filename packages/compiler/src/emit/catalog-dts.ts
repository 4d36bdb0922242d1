/**
 * Catalog entries of hand-written declarations (`@agent-spaces/std`'s), which no build compiles: read with the
 * TypeScript compiler API, loaded on first use. Built capabilities have theirs in `catalog.json` (./catalog.ts).
 */
import type ts from 'typescript';
import type { CatalogEntry } from '@agent-spaces/capabilities';
import { searchFields } from './catalog.js';

/**
 * The functions agent code can call in the declarations `text`: those of every `declare module '…' { … }` in it, or of
 * the whole file as module `module` when it has none. Exported functions, objects of methods (`export const x:
 * { f(): … }` or an interface) and namespaces become entries, with local parameter interfaces inlined in signatures.
 */
export async function declarationsCatalog(text: string, module: string): Promise<CatalogEntry[]> {
  const { default: typescript } = await import('typescript');
  const source = typescript.createSourceFile('declarations.d.ts', text, typescript.ScriptTarget.Latest, true);
  const wrapped = source.statements.filter(
    (s): s is ts.ModuleDeclaration => typescript.isModuleDeclaration(s) && typescript.isStringLiteral(s.name),
  );
  if (wrapped.length === 0) return new ModuleReader(typescript, source, module).read(source.statements);
  return wrapped.flatMap((declaration) => {
    const body = declaration.body && typescript.isModuleBlock(declaration.body) ? declaration.body.statements : [];
    return new ModuleReader(typescript, source, (declaration.name as ts.StringLiteral).text).read(body);
  });
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
    const fieldNames = node.parameters.flatMap((p) => [p.name.getText(this.#source), ...this.#memberNames(p.type)]);
    for (const part of [...node.parameters.map((p) => p.type), node.type]) if (part) this.#collect(part, related);
    return {
      module: this.#module,
      path,
      signature: `${path}${typeParams}(${params.join(', ')}): ${returns}`,
      ...searchFields(this.#module, path, doc, context, fieldNames),
      doc,
      related: [...related.values()],
    };
  }

  /** The member names of a parameter's type literal, or of the local interface it names. */
  #memberNames(type: ts.TypeNode | undefined): string[] {
    if (!type) return [];
    const t = this.#ts;
    const members = t.isTypeLiteralNode(type) ? type.members : this.#interfaceMembers(type);
    return (members ?? []).flatMap((m) => (m.name && (t.isIdentifier(m.name) || t.isStringLiteral(m.name)) ? [m.name.text] : []));
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
