import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServiceTypechecker } from '../src/check/service.js';
import { CHECK_COMPILER_OPTIONS } from '../src/check/options.js';

// The typechecker serves the lib files as one joined file; plain TypeScript reads the 61 files of `lib: ['es2023']`.
// Both must judge agent code alike, down to the order of overloads in a message (the order their declarations merge in).

let checker: ServiceTypechecker;
beforeAll(() => {
  checker = new ServiceTypechecker(ts, new Map());
});
afterAll(() => checker.dispose());

/** Scripts whose errors come from the lib files, several from interfaces declared across many of them. */
const SCRIPTS: Record<string, string> = {
  'overloads merged across es5, es2015.core and es2015.iterable': 'export default Array.from(42);',
  'overloads of Promise across es5, es2015 and es2020': 'export default Promise.all(5);',
  'a method of a later lib': "export default 'abc'.replaceAll(/a/, 1);",
  'a method past es2023': 'export default Object.groupBy([1], (n) => n);',
  'a global past es2023': 'export default new Iterator();',
  'overloads of Date across es5 and es2020.date': 'export default new Date().toLocaleString(1);',
  'an es2023 array method': "const last: number = [1, 2].findLast((n) => n > 1);\nexport default [3].toSorted('x');",
  'an Intl type of es2022': "export default new Intl.Segmenter('en', { granularity: 'line' });",
  'a Map built from wrong entries': "export default new Map<string, number>([['a', 'b']]);",
  'a typed array of es2023': 'export default new Uint8Array(2).findLastIndex(1);',
};

/** Diagnostics of `code` in a program over the lib files on disk, as plain TypeScript would check it. */
function plainDiagnostics(code: string): { code: number; line: number; column: number; message: string }[] {
  const options = ts.convertCompilerOptionsFromJson(CHECK_COMPILER_OPTIONS, '/').options;
  const host = ts.createCompilerHost(options);
  const getSourceFile = host.getSourceFile.bind(host);
  host.getSourceFile = (name, version, onError, create) =>
    name === '/agent.ts' ? ts.createSourceFile(name, code, version, true) : getSourceFile(name, version, onError, create);
  const program = ts.createProgram(['/agent.ts'], options, host);
  expect(program.getSourceFiles().filter((file) => program.isSourceFileDefaultLibrary(file)).length).toBeGreaterThan(1);
  const file = program.getSourceFile('/agent.ts')!;
  return program.getSemanticDiagnostics(file).map((d) => {
    const at = file.getLineAndCharacterOfPosition(d.start!);
    return { code: d.code, line: at.line + 1, column: at.character + 1, message: ts.flattenDiagnosticMessageText(d.messageText, '\n') };
  });
}

describe('the joined lib file', () => {
  it('is the one lib SourceFile of a check, and it declares nothing twice', () => {
    checker.check('export default 1;');
    const program = checker.getProgram()!;
    const libs = program.getSourceFiles().filter((file) => program.isSourceFileDefaultLibrary(file));
    expect(libs.map((file) => file.fileName)).toEqual([expect.stringMatching(/\/lib\.es2023\.d\.ts$/)]);
    expect(libs[0]!.text).not.toMatch(/<reference\s+lib=/);
    expect(libs[0]!.text).toContain('interface ArrayConstructor');
    expect(program.getSemanticDiagnostics(libs[0])).toEqual([]);
  });

  it.each(Object.entries(SCRIPTS))('gives the diagnostics of the separate lib files: %s', (_, code) => {
    const expected = plainDiagnostics(code);
    expect(expected.length).toBeGreaterThan(0);
    const actual = checker.check(code).map((d) => ({ code: d.code, line: d.line, column: d.column, message: d.detail?.message ?? d.message }));
    expect(actual).toEqual(expected);
  });
});
