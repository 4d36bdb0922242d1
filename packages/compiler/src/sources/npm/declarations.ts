/**
 * A package's own `.d.ts` files as ambient modules for the `index.d.ts` of `@capabilities/<id>`: each file reachable
 * from the entry becomes `@capabilities/<id>/__package/<path>` (relative imports rewritten to those names, top-level
 * `declare` dropped, as an ambient context needs); the caller declares `@capabilities/<id>` over the entry's module.
 */
import { readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { CAPABILITY_PREFIX, type Diagnostic } from '@agent-spaces/capabilities';
import type ts from 'typescript';
import { stringLiteral } from '../../emit/escape.js';
import { toPosix } from '../../inputs.js';

/** The ambient modules, the name of the entry's, problems found on the way (warnings), and the files read. */
export interface PackageDeclarations {
  modules: string;
  /** The module name of the declarations entry, as a string literal. */
  entry: string;
  diagnostics: Diagnostic[];
  inputs: string[];
}

interface Edit {
  start: number;
  end: number;
  text: string;
}

/** Wraps the declarations of the package in folder `dir`, entry `entry`; `label` names the source in diagnostics. */
export async function packageDeclarations(id: string, dir: string, entry: string, label: string): Promise<PackageDeclarations> {
  const typescript = (await import('typescript')).default;
  const base = `${CAPABILITY_PREFIX}${id}/__package/`;
  const moduleName = (file: string) => base + toPosix(relative(dir, file)).replace(/\.d\.[cm]?ts$/, '');
  const diagnostics: Diagnostic[] = [];
  const warn = (message: string) => diagnostics.push({ code: 'INVALID_DEFINITION', severity: 'warning', file: label, message });
  const queue = [resolve(entry)];
  const seen = new Set(queue);
  const blocks: string[] = [];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    const text = await readFile(file, 'utf8');
    const source = typescript.createSourceFile(file, text, typescript.ScriptTarget.Latest, true);
    const edits: Edit[] = [];
    const specifier = (literal: ts.StringLiteralLike) => {
      const target = literal.text.startsWith('.') ? declarationFile(dirname(file), literal.text) : undefined;
      if (target === undefined) {
        if (literal.text.startsWith('.')) warn(`${toPosix(relative(dir, file))}: no declarations for '${literal.text}'; its types are unknown`);
        else warn(`${toPosix(relative(dir, file))}: types from the package '${literal.text}' are not included; they are unknown`);
        return;
      }
      if (!seen.has(target)) {
        seen.add(target);
        queue.push(target);
      }
      edits.push({ start: literal.getStart(source), end: literal.end, text: stringLiteral(moduleName(target)) });
    };
    const visit = (node: ts.Node): void => {
      if ((typescript.isImportDeclaration(node) || typescript.isExportDeclaration(node)) && node.moduleSpecifier && typescript.isStringLiteralLike(node.moduleSpecifier)) {
        specifier(node.moduleSpecifier);
      } else if (typescript.isImportTypeNode(node) && typescript.isLiteralTypeNode(node.argument) && typescript.isStringLiteralLike(node.argument.literal)) {
        specifier(node.argument.literal);
      } else if (typescript.isImportEqualsDeclaration(node) && typescript.isExternalModuleReference(node.moduleReference) && typescript.isStringLiteralLike(node.moduleReference.expression)) {
        specifier(node.moduleReference.expression);
      }
      typescript.forEachChild(node, visit);
    };
    for (const statement of source.statements) {
      visit(statement);
      const isGlobal = typescript.isModuleDeclaration(statement) && (statement.flags & typescript.NodeFlags.GlobalAugmentation) !== 0;
      const declare = typescript.canHaveModifiers(statement) ? typescript.getModifiers(statement)?.find((m) => m.kind === typescript.SyntaxKind.DeclareKeyword) : undefined;
      // `declare` goes with the space after it: `export declare function` → `export function`.
      if (declare && !isGlobal) edits.push({ start: declare.getStart(source), end: declare.end + (text[declare.end] === ' ' ? 1 : 0), text: '' });
    }
    edits.sort((a, b) => b.start - a.start);
    let body = text;
    for (const edit of edits) body = body.slice(0, edit.start) + edit.text + body.slice(edit.end);
    blocks.push(`declare module ${stringLiteral(moduleName(file))} {\n${body.replace(/^\/\/\/ <reference [^\n]*\n/gm, '')}\n}\n`);
  }
  return { modules: blocks.join(''), entry: stringLiteral(moduleName(resolve(entry))), diagnostics, inputs: [...seen] };
}

/** The `.d.ts` a relative specifier in a declaration file names (`./a.js` → `./a.d.ts`, `./dir` → `./dir/index.d.ts`). */
function declarationFile(from: string, specifier: string): string | undefined {
  const path = resolve(from, specifier);
  const stem = path.replace(/\.([cm]?)js$/, '');
  const ext = /\.([cm]?)js$/.exec(path)?.[1] ?? '';
  return [`${stem}.d.${ext}ts`, `${path}.d.ts`, join(path, 'index.d.ts'), path].find((file) => file.endsWith('.ts') && existsSync(file));
}
