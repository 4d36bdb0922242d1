/**
 * Hiding functions from a capability's declarations (`index.d.ts` as `emit/declarations.ts` writes it): a space that
 * offers only some functions of a capability (a headless agent run) typechecks agent code against what is left.
 */
import type ts from 'typescript';
import { CAPABILITY_PREFIX } from '@agent-spaces/capabilities';

/**
 * `text` (a capability's `index.d.ts`) without the functions `hidden`: their members of the exported object
 * `exportName` and their standalone `export function` declarations, doc comments included. Types stay, but for the
 * skills' sub-modules (`@capabilities/<exportName>/<name>`), which go whole with the lines importing them.
 * @example
 * await hideDeclaredFunctions(dts, 'vault', new Set(['deleteSecrets']))
 */
export async function hideDeclaredFunctions(text: string, exportName: string, hidden: ReadonlySet<string>): Promise<string> {
  if (hidden.size === 0) return text;
  const { default: typescript } = await import('typescript');
  const source = typescript.createSourceFile('index.d.ts', text, typescript.ScriptTarget.Latest, true, typescript.ScriptKind.TS);
  const cuts: Array<{ start: number; end: number }> = [];
  const isHidden = (name: ts.PropertyName | ts.Identifier | undefined) => name !== undefined && typescript.isIdentifier(name) && hidden.has(name.text);
  const subModule = `${CAPABILITY_PREFIX}${exportName}/`;
  const isHiddenModule = (name: ts.Node | undefined) =>
    name !== undefined && typescript.isStringLiteral(name) && name.text.startsWith(subModule) && hidden.has(name.text.slice(subModule.length));
  const visit = (statements: readonly ts.Statement[]) => {
    for (const statement of statements) {
      const specifier = typescript.isModuleDeclaration(statement) ? statement.name : typescript.isImportDeclaration(statement) ? statement.moduleSpecifier : undefined;
      if (isHiddenModule(specifier)) cuts.push({ start: statement.getFullStart(), end: statement.end });
      else if (typescript.isModuleDeclaration(statement) && statement.body && typescript.isModuleBlock(statement.body)) visit(statement.body.statements);
      else if (typescript.isFunctionDeclaration(statement) && isHidden(statement.name)) cuts.push({ start: statement.getFullStart(), end: statement.end });
      else if (typescript.isVariableStatement(statement)) {
        for (const declaration of statement.declarationList.declarations) {
          const type = declaration.type;
          if (!typescript.isIdentifier(declaration.name) || declaration.name.text !== exportName || !type || !typescript.isTypeLiteralNode(type)) continue;
          for (const member of type.members) if (isHidden(member.name)) cuts.push({ start: member.getFullStart(), end: member.end });
        }
      }
    }
  };
  visit(source.statements);
  let result = text;
  for (const { start, end } of cuts.sort((a, b) => b.start - a.start)) result = result.slice(0, start) + result.slice(end);
  return result;
}
