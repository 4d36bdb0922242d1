/**
 * What makes a type error teach: the capability function a diagnostic is about, with its signature, and for a
 * misspelt name the closest names the module or object has, so the agent fixes its code in one round.
 */
import type ts from 'typescript';
import { HINT_BUDGET, fitSignature } from './lean.js';
import type { FunctionHint, TypecheckDiagnostic } from './types.js';

/** Most closest names given for a misspelt one. */
const CLOSEST = 3;
/** Most steps {@link Hints.origin} takes back from a property read to the call that gave its value. */
const ORIGIN_STEPS = 16;
/** Codes of "no such property / export" diagnostics, whose name may be misspelt. */
const UNKNOWN_NAME = new Set([2339, 2551, 2305, 2724, 2614]);

/** The hints of one diagnostic: the function it is about, or the closest names to a misspelt one. */
export type DiagnosticHints = Pick<TypecheckDiagnostic, 'function' | 'closest' | 'detail'>;

/** A hint with the forms of its signature, most detailed first, that {@link HINT_BUDGET} chooses from. */
type DraftHint = FunctionHint & { forms?: string[] };

/**
 * The hints for a diagnostic at `start` in the agent file `file`: for an unknown name, the closest declared names or
 * the declared function (one of `isDeclared`'s files) that gave the value read; else the declared function whose call
 * holds the position, or the one that gave the value the problem is about.
 */
export function explainDiagnostic(
  typescript: typeof ts,
  checker: ts.TypeChecker,
  file: ts.SourceFile,
  diagnostic: ts.Diagnostic,
  isDeclared: (fileName: string) => boolean,
): DiagnosticHints {
  const node = nodeAt(typescript, file, diagnostic.start ?? 0);
  if (!node) return {};
  const hints = new Hints(typescript, checker, isDeclared);
  if (UNKNOWN_NAME.has(diagnostic.code)) {
    const closest = hints.closest(node);
    if (closest.length > 0) return withinBudget(closest, 'closest');
    // The value read lacks the property: the function that gave it tells what it has.
    const origin = hints.origin(node);
    if (origin) return withinBudget([origin], 'function');
  }
  for (let at: ts.Node | undefined = node; at && !typescript.isSourceFile(at); at = at.parent) {
    if (typescript.isCallExpression(at)) {
      const fn = hints.ofCall(at);
      if (fn) return withinBudget([fn], 'function');
    }
  }
  const origin = hints.origin(node);
  return origin ? withinBudget([origin], 'function') : {};
}

/**
 * The hints with their signatures fitted to {@link HINT_BUDGET} together (inline object types abbreviated, then the
 * declared parameter types' names only); a signature that had to be shortened is kept whole in `detail.signatures`.
 */
function withinBudget(drafts: DraftHint[], as: 'function' | 'closest'): DiagnosticHints {
  const each = Math.floor(HINT_BUDGET / drafts.length);
  const whole: string[] = [];
  const hints = drafts.map(({ forms, ...hint }): FunctionHint => {
    if (!forms || hint.signature === undefined) return hint;
    const signature = fitSignature(forms, each);
    if (signature !== hint.signature) whole.push(hint.signature);
    return { ...hint, signature };
  });
  const detail = whole.length > 0 ? { detail: { signatures: whole } } : {};
  return as === 'function' ? { function: hints[0]!, ...detail } : { closest: hints, ...detail };
}

/** The innermost node of `file` spanning `position`. */
function nodeAt(typescript: typeof ts, file: ts.SourceFile, position: number): ts.Node | undefined {
  let found: ts.Node | undefined;
  const visit = (node: ts.Node): void => {
    if (position < node.getStart(file) || position >= node.getEnd()) return;
    found = node;
    typescript.forEachChild(node, visit);
  };
  typescript.forEachChild(file, visit);
  return found;
}

class Hints {
  readonly #ts: typeof ts;
  readonly #checker: ts.TypeChecker;
  readonly #isDeclared: (fileName: string) => boolean;

  constructor(typescript: typeof ts, checker: ts.TypeChecker, isDeclared: (fileName: string) => boolean) {
    this.#ts = typescript;
    this.#checker = checker;
    this.#isDeclared = isDeclared;
  }

  /** The declared function `call` calls, named as the agent wrote it. */
  ofCall(call: ts.CallExpression): DraftHint | undefined {
    const callee = call.expression;
    const nameNode = this.#ts.isPropertyAccessExpression(callee) ? callee.name : callee;
    const symbol = this.#checker.getSymbolAtLocation(nameNode);
    if (!symbol) return undefined;
    return this.#hint(callee.getText(), this.#resolved(symbol), nameNode);
  }

  /**
   * For a property read from a value a declared function gave, that function: its return type is what the value
   * has. Followed through property reads, calls of other functions and the variable a call initialised
   * (`const graph = memory.readGraph(); graph.entities.size` → `memory.readGraph`).
   */
  origin(node: ts.Node): DraftHint | undefined {
    const t = this.#ts;
    const parent = node.parent;
    if (parent && t.isPropertyAccessExpression(parent) && parent.name === node) return this.#originOf(parent.expression);
    // `const n: number = d.stops;` is reported at `n`: its value comes from the initializer.
    if (parent && t.isVariableDeclaration(parent) && parent.name === node && parent.initializer) return this.#originOf(parent.initializer);
    return undefined;
  }

  /** The declared function whose call gave the value of `expression`, looked for {@link ORIGIN_STEPS} steps back. */
  #originOf(expression: ts.Expression): DraftHint | undefined {
    const t = this.#ts;
    let at: ts.Expression | undefined = expression;
    for (let step = 0; at && step < ORIGIN_STEPS; step++) {
      while (t.isAwaitExpression(at) || t.isParenthesizedExpression(at) || t.isNonNullExpression(at)) at = at.expression;
      if (t.isCallExpression(at)) {
        const hint = this.ofCall(at);
        if (hint) return hint;
        at = at.expression;
      } else if (t.isPropertyAccessExpression(at) || t.isElementAccessExpression(at)) {
        at = at.expression;
      } else {
        at = t.isIdentifier(at) ? this.#source(at) : undefined;
      }
    }
    return undefined;
  }

  /**
   * Where the value of `name` comes from: its variable's initializer, or for a callback's parameter
   * (`trips.map((trip) => …)`) the value whose method takes the callback.
   */
  #source(name: ts.Identifier): ts.Expression | undefined {
    const t = this.#ts;
    const declaration = this.#checker.getSymbolAtLocation(name)?.valueDeclaration;
    if (!declaration) return undefined;
    if (t.isVariableDeclaration(declaration)) return declaration.initializer;
    const callback = declaration.parent;
    const call = t.isParameter(declaration) && callback && (t.isArrowFunction(callback) || t.isFunctionExpression(callback)) ? callback.parent : undefined;
    return call && t.isCallExpression(call) && t.isPropertyAccessExpression(call.expression) ? call.expression.expression : undefined;
  }

  /** The closest declared names to the unknown property or import name at `node`. */
  closest(node: ts.Node): DraftHint[] {
    const t = this.#ts;
    const parent = node.parent;
    if (t.isIdentifier(node) && parent && t.isPropertyAccessExpression(parent) && parent.name === node) {
      const owner = this.#checker.getTypeAtLocation(parent.expression);
      const prefix = parent.expression.getText();
      return this.#nearest(node.text, this.#checker.getPropertiesOfType(owner), (name) => `${prefix}.${name}`, parent.expression);
    }
    if (t.isIdentifier(node) && parent && t.isImportSpecifier(parent)) {
      const declaration = parent.parent.parent.parent;
      const moduleSymbol = this.#checker.getSymbolAtLocation(declaration.moduleSpecifier);
      if (!moduleSymbol) return [];
      return this.#nearest((parent.propertyName ?? parent.name).text, this.#checker.getExportsOfModule(moduleSymbol), (name) => name, node);
    }
    return [];
  }

  #nearest(wanted: string, candidates: readonly ts.Symbol[], label: (name: string) => string, at: ts.Node): DraftHint[] {
    const declared = candidates.filter((s) => this.#declaredIn(this.#resolved(s)));
    const limit = Math.max(2, Math.floor(wanted.length / 3));
    return declared
      .map((symbol) => ({ symbol, distance: editDistance(wanted.toLowerCase(), symbol.name.toLowerCase()) }))
      .filter(({ symbol, distance }) => distance <= limit || symbol.name.toLowerCase().includes(wanted.toLowerCase()))
      .sort((a, b) => a.distance - b.distance || a.symbol.name.localeCompare(b.symbol.name))
      .slice(0, CLOSEST)
      .map(({ symbol }) => this.#hint(label(symbol.name), this.#resolved(symbol), at) ?? { name: label(symbol.name), module: this.#moduleOf(symbol) });
  }

  /**
   * A hint for declared function `symbol`, shown as `name(…): …` with its parameter types spelled out; its `forms`
   * are that signature and the one naming the declared parameter types instead, for the budget to choose from.
   */
  #hint(name: string, symbol: ts.Symbol, at: ts.Node): DraftHint | undefined {
    if (!this.#declaredIn(symbol)) return undefined;
    const type = this.#checker.getTypeOfSymbolAtLocation(symbol, at);
    const signature = type.getCallSignatures()[0];
    if (!signature) return undefined;
    const parameters = signature.getParameters().map((p) => {
      const declaration = p.valueDeclaration;
      const isParameter = declaration !== undefined && this.#ts.isParameter(declaration);
      const optional = isParameter && (declaration.questionToken || declaration.initializer) ? '?' : '';
      const rest = isParameter && declaration.dotDotDotToken ? '...' : '';
      const type = this.#checker.getTypeOfSymbolAtLocation(p, at);
      const declared = optional ? this.#checker.getNonNullableType(type) : type;
      return { spelled: `${rest}${p.name}${optional}: ${this.#spelled(declared)}`, named: `${rest}${p.name}${optional}: ${this.#print(declared)}` };
    });
    const returns = this.#print(signature.getReturnType());
    const form = (key: 'spelled' | 'named') => `${name}(${parameters.map((p) => p[key]).join(', ')}): ${returns}`;
    return { name, module: this.#moduleOf(symbol), signature: form('spelled'), forms: [form('spelled'), form('named')] };
  }

  /**
   * A parameter type, with a named object type the declarations define (not a lib type such as `Array`) written out
   * as its members, so one line tells what to pass.
   */
  #spelled(type: ts.Type): string {
    const named = type.aliasSymbol ?? type.getSymbol();
    const isObject = (type.flags & this.#ts.TypeFlags.Object) !== 0 && type.getCallSignatures().length === 0;
    if (!named || !isObject || !this.#declaredIn(named) || this.#checker.isArrayLikeType(type)) {
      return this.#print(type);
    }
    const members = this.#checker.getPropertiesOfType(type).map((p) => {
      const optional = p.flags & this.#ts.SymbolFlags.Optional ? '?' : '';
      // As declared (`string`), not as read (`string | undefined` for an optional member).
      const declaration = p.valueDeclaration;
      const typeNode = declaration && (this.#ts.isPropertySignature(declaration) || this.#ts.isPropertyDeclaration(declaration)) ? declaration.type : undefined;
      const memberType = typeNode ? this.#checker.getTypeFromTypeNode(typeNode) : declaration ? this.#checker.getTypeOfSymbolAtLocation(p, declaration) : undefined;
      return `${p.name}${optional}: ${memberType ? this.#print(memberType) : 'unknown'}`;
    });
    return `{ ${members.join('; ')} }`;
  }

  #print(type: ts.Type): string {
    return this.#checker.typeToString(type, undefined, this.#ts.TypeFormatFlags.NoTruncation);
  }

  #resolved(symbol: ts.Symbol): ts.Symbol {
    return symbol.flags & this.#ts.SymbolFlags.Alias ? this.#checker.getAliasedSymbol(symbol) : symbol;
  }

  #declaredIn(symbol: ts.Symbol): boolean {
    return (symbol.declarations ?? []).some((d) => this.#isDeclared(d.getSourceFile().fileName));
  }

  /** The `declare module '…'` holding the symbol's declaration, or '' for a global. */
  #moduleOf(symbol: ts.Symbol): string {
    for (let at: ts.Node | undefined = symbol.declarations?.[0]; at; at = at.parent) {
      if (this.#ts.isModuleDeclaration(at) && this.#ts.isStringLiteral(at.name)) return at.name.text;
    }
    return '';
  }
}

/** Damerau-Levenshtein distance (adjacent swaps count one) between `a` and `b`. */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, d[i - 2]![j - 2]! + 1);
      d[i]![j] = best;
    }
  }
  return d[a.length]![b.length]!;
}
