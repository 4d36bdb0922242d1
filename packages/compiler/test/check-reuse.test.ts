import { describe, expect, it } from 'vitest';
import ts, { type Program } from 'typescript';
import { createTypechecker } from '../src/check/index.js';
import { ServiceTypechecker } from '../src/check/service.js';

// A file of its own: no other typechecker may hold the lib files while the first one is disposed.
const declarations = new Map([['answer.d.ts', "declare module '@capabilities/answer' { export const answer: number; }"]]);
const code = (n: number) => `import { answer } from '@capabilities/answer';\nexport default answer + ${n};`;

const libFiles = (program: Program) => program.getSourceFiles().filter((file) => program.isSourceFileDefaultLibrary(file));

describe('reuse', () => {
  it('keeps the lib SourceFiles across checks and across typecheckers instead of re-parsing them', async () => {
    const first = await createTypechecker({ declarations });
    if (!(first instanceof ServiceTypechecker)) throw new Error('expected the language-service typechecker');
    first.check(code(1));
    const program1 = first.getProgram()!;
    const libs1 = libFiles(program1);
    expect(libs1.map((f) => f.fileName)).toContainEqual(expect.stringMatching(/lib\.es2023\.d\.ts$/));

    first.check(code(2));
    const program2 = first.getProgram()!;
    expect(program2).not.toBe(program1);
    expect(libFiles(program2)).toHaveLength(libs1.length);
    libFiles(program2).forEach((file, i) => expect(file).toBe(libs1[i]));

    first.check(code(2));
    expect(first.getProgram()).toBe(program2);
    first.dispose();
    expect(() => first.check(code(3))).toThrow(expect.objectContaining({ code: 'INTERNAL' }));

    const second = await createTypechecker({ declarations });
    if (!(second instanceof ServiceTypechecker)) throw new Error('expected the language-service typechecker');
    second.check(code(3));
    expect(libFiles(second.getProgram()!)).toHaveLength(libs1.length);
    libFiles(second.getProgram()!).forEach((file, i) => expect(file).toBe(libs1[i]));
    second.dispose();
  });

  it('resolves an import against the files of each check, though resolutions are kept between checks', () => {
    const checker = new ServiceTypechecker(ts, declarations);
    const importer = "import { n } from './agent-1';\nimport { answer } from '@capabilities/answer';\nexport default n + answer;";
    const codes = (requests: { code: string }[]) => checker.checkRequests(requests)[0]!.diagnostics.map((d) => d.code);
    // Alone, the script imports a file that does not exist; checked with a second script, it is that script's file.
    expect(codes([{ code: importer }])).toEqual([2307]);
    expect(codes([{ code: importer }, { code: 'export const n = 1;' }])).toEqual([]);
    expect(codes([{ code: importer }])).toEqual([2307]);
    checker.dispose();
  });

  it('gives a new typechecker the declarations it was given, not another one\'s file of the same name', async () => {
    const before = await createTypechecker({ declarations: new Map([['rebuilt.d.ts', "declare module '@capabilities/rebuilt' { export function hello(): string; }"]]) });
    const use = "import { bye } from '@capabilities/rebuilt';\nexport default bye();";
    expect(before.check(use).map((d) => d.code)).toEqual([2305]);
    const after = await createTypechecker({ declarations: new Map([['rebuilt.d.ts', "declare module '@capabilities/rebuilt' { export function bye(): string; }"]]) });
    expect(after.check(use)).toEqual([]);
    before.dispose();
    after.dispose();
  });
});
