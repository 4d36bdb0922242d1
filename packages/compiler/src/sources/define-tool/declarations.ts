import type ts from 'typescript';
import { pointerJoin } from './shorthand.js';

/** A problem found while reading types, at a JSON pointer inside the definition when it concerns one function. */
export interface TypeProblem {
  severity: 'error' | 'warning';
  pointer?: string;
  message: string;
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/**
 * Renders type nodes to text and collects the local declarations they refer to. A name written differently from
 * its declaration (`import { Trip as T }`, `ns.Trip`) is rewritten to the declared name, and an enum member
 * (`Priority.High`) to its literal, because the declarations are emitted side by side in one module.
 */
export class DeclarationCollector {
  readonly #ts: typeof ts;
  readonly #program: ts.Program;
  readonly #checker: ts.TypeChecker;
  readonly #problems: TypeProblem[];
  readonly #byName = new Map<string, ts.Symbol>();
  readonly #queue: Array<{ symbol: ts.Symbol; name: string; origin: string }> = [];
  readonly #warned = new Set<string>();

  constructor(typescript: typeof ts, program: ts.Program, checker: ts.TypeChecker, problems: TypeProblem[]) {
    this.#ts = typescript;
    this.#program = program;
    this.#checker = checker;
    this.#problems = problems;
  }

  /** Text of `node` from `start`, with names rewritten; queues the local types it refers to. */
  render(node: ts.Node, start: number, origin: string): string {
    const edits: Edit[] = [];
    const visit = (child: ts.Node): void => {
      const t = this.#ts;
      if (t.isTypeReferenceNode(child)) {
        this.#reference(child, child.typeName, origin, edits);
        child.typeArguments?.forEach(visit);
        return;
      }
      if (t.isExpressionWithTypeArguments(child)) {
        this.#reference(child, child.expression, origin, edits);
        child.typeArguments?.forEach(visit);
        return;
      }
      if (t.isTypeQueryNode(child) || t.isImportTypeNode(child)) {
        this.#fail(origin, `"${child.getText()}" in a return type cannot be emitted; declare the type with an interface or type alias`);
        return;
      }
      t.forEachChild(child, visit);
    };
    visit(node);
    const text = node.getSourceFile().text;
    let out = '';
    let at = start;
    for (const edit of edits.sort((a, b) => a.start - b.start)) {
      out += text.slice(at, edit.start) + edit.text;
      at = edit.end;
    }
    return out + text.slice(at, node.end);
  }

  /** Renders every queued declaration (and what they refer to) in discovery order. */
  drain(): string[] {
    const out: string[] = [];
    for (let i = 0; i < this.#queue.length; i++) {
      const { symbol, name, origin } = this.#queue[i]!;
      const rendered = this.#declaration(symbol, name, origin);
      if (rendered !== undefined) out.push(rendered);
    }
    return out;
  }

  #reference(node: ts.Node, name: ts.Node, origin: string, edits: Edit[]): void {
    const t = this.#ts;
    const written = name.getText();
    const identifier = t.isQualifiedName(name) ? name.right : t.isPropertyAccessExpression(name) ? name.name : name;
    const symbol = this.#checker.getSymbolAtLocation(identifier);
    if (!symbol) return this.#fail(origin, `cannot resolve type "${written}"`);
    const packageName = this.#packageOf(symbol) ?? this.#packageOf(this.#checker.getSymbolAtLocation(leftmost(t, name)));
    const target = symbol.flags & t.SymbolFlags.Alias ? this.#checker.getAliasedSymbol(symbol) : symbol;
    if (target.flags & t.SymbolFlags.TypeParameter) return;
    const declarations = target.declarations ?? [];
    if (declarations.length === 0) return this.#fail(origin, `cannot resolve type "${written}"`);
    if (packageName !== undefined) {
      if (this.#warned.has(written)) return;
      this.#warned.add(written);
      this.#problems.push({
        severity: 'warning',
        pointer: returnsPointer(origin),
        message: `type "${written}" comes from package "${packageName}"; the generated declarations refer to it by name only`,
      });
      return;
    }
    if (declarations.some((declaration) => this.#isExternal(declaration.getSourceFile()))) return;
    if (target.flags & t.SymbolFlags.EnumMember) {
      const value = this.#checker.getConstantValue(declarations[0] as ts.EnumMember);
      if (value === undefined) return this.#fail(origin, `enum member "${written}" has no constant value`);
      edits.push({ start: node.getStart(), end: node.end, text: literal(value) });
      return;
    }
    const declared = t.getNameOfDeclaration(declarations[0])?.getText() ?? target.name;
    const known = this.#byName.get(declared);
    if (known && known !== target) {
      return this.#fail(origin, `two different types are named "${declared}"; rename one of them`);
    }
    if (!known) {
      this.#byName.set(declared, target);
      this.#queue.push({ symbol: target, name: declared, origin });
    }
    if (written !== declared) edits.push({ start: name.getStart(), end: name.end, text: declared });
  }

  #declaration(symbol: ts.Symbol, name: string, origin: string): string | undefined {
    const t = this.#ts;
    const declarations = symbol.declarations ?? [];
    if (declarations.every((d) => t.isEnumDeclaration(d))) return this.#enumUnion(declarations as ts.EnumDeclaration[], name, origin);
    const parts: string[] = [];
    for (const declaration of declarations) {
      if (!t.isInterfaceDeclaration(declaration) && !t.isTypeAliasDeclaration(declaration)) {
        const kind = t.isClassDeclaration(declaration) ? 'a class' : `a ${t.SyntaxKind[declaration.kind]}`;
        this.#fail(origin, `type "${name}" is ${kind}; describe the result with an interface or type alias`);
        return undefined;
      }
      const text = declaration.getSourceFile().text;
      const modifiersEnd = declaration.modifiers?.end;
      const start = modifiersEnd === undefined ? declaration.getStart() : modifiersEnd + /^\s*/.exec(text.slice(modifiersEnd))![0].length;
      parts.push(`${jsDocOf(t, declaration)}export ${this.render(declaration, start, origin)}`);
    }
    return parts.join('\n');
  }

  #enumUnion(declarations: ts.EnumDeclaration[], name: string, origin: string): string | undefined {
    const values: string[] = [];
    for (const member of declarations.flatMap((d) => [...d.members])) {
      const value = this.#checker.getConstantValue(member);
      if (value === undefined) {
        this.#fail(origin, `enum "${name}" has a computed member "${member.name.getText()}"; only literal enums can be emitted`);
        return undefined;
      }
      values.push(literal(value));
    }
    return `${jsDocOf(this.#ts, declarations[0]!)}export type ${name} = ${values.length > 0 ? values.join(' | ') : 'never'};`;
  }

  /** The package a symbol is imported from, following re-exports, when any step uses a bare specifier. */
  #packageOf(symbol: ts.Symbol | undefined): string | undefined {
    const t = this.#ts;
    const seen = new Set<ts.Symbol>();
    let current = symbol;
    while (current && current.flags & t.SymbolFlags.Alias && !seen.has(current)) {
      seen.add(current);
      const specifier = moduleSpecifierOf(t, current.declarations?.[0]);
      if (specifier !== undefined && !specifier.startsWith('.') && !specifier.startsWith('/')) return specifier;
      current = this.#checker.getImmediateAliasedSymbol(current);
    }
    return undefined;
  }

  #isExternal(file: ts.SourceFile): boolean {
    return (
      this.#program.isSourceFileDefaultLibrary(file) ||
      this.#program.isSourceFileFromExternalLibrary(file) ||
      /[\\/]node_modules[\\/]/.test(file.fileName)
    );
  }

  #fail(origin: string, message: string): void {
    this.#problems.push({ severity: 'error', pointer: returnsPointer(origin), message: `${origin}: ${message}` });
  }
}

/** `/functions/<key>/returns`. */
export function returnsPointer(functionKey: string): string {
  return pointerJoin(pointerJoin(pointerJoin('', 'functions'), functionKey), 'returns');
}

function leftmost(t: typeof ts, name: ts.Node): ts.Node {
  let node = name;
  for (;;) {
    if (t.isQualifiedName(node)) node = node.left;
    else if (t.isPropertyAccessExpression(node)) node = node.expression;
    else return node;
  }
}

function moduleSpecifierOf(t: typeof ts, declaration: ts.Node | undefined): string | undefined {
  for (let node = declaration; node; node = node.parent) {
    if (t.isImportDeclaration(node) || t.isExportDeclaration(node) || t.isJSDocImportTag(node)) {
      return node.moduleSpecifier && t.isStringLiteral(node.moduleSpecifier) ? node.moduleSpecifier.text : undefined;
    }
    if (t.isImportEqualsDeclaration(node)) {
      const reference = node.moduleReference;
      return t.isExternalModuleReference(reference) && t.isStringLiteral(reference.expression)
        ? reference.expression.text
        : undefined;
    }
  }
  return undefined;
}

/** The JSDoc block right before a declaration (`/** ... *\/` plus a newline), or ''. */
function jsDocOf(t: typeof ts, declaration: ts.Node): string {
  const text = declaration.getSourceFile().text;
  const ranges = t.getLeadingCommentRanges(text, declaration.pos) ?? [];
  const last = ranges.at(-1);
  if (!last || last.kind !== t.SyntaxKind.MultiLineCommentTrivia) return '';
  const comment = text.slice(last.pos, last.end);
  return comment.startsWith('/**') ? `${comment}\n` : '';
}

function literal(value: string | number): string {
  return typeof value === 'number' ? String(value) : `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'`;
}
