import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypechecker, formatDiagnostics, type Typechecker } from '../src/check/index.js';
import { HINT_BUDGET, MESSAGE_BUDGET, SOURCE_BUDGET, abbreviateObjects } from '../src/check/lean.js';
import { declarations } from './check-declarations.js';

/** The size budget of type errors (docs/sdk-and-cli.md, "Typechecking"): what is cut, how, and that it stays in `detail`. */

const fields = (prefix: string, count: number) => Array.from({ length: count }, (_, i) => `${prefix}${i}: string;`).join(' ');
/** A module whose function takes a deeply nested, very wide parameter type: its spelled-out signature is ~4 KB. */
const WIDE = `declare module '@capabilities/wide' {
  export interface Order { ${fields('orderField', 20)} }
  export interface PlaceParams {
    customer: { ${fields('customerField', 30)} address: { ${fields('addressField', 30)} } };
    lines: { sku: string; options: { ${fields('option', 30)} } }[];
  }
  export const shop: { place(params: PlaceParams): Promise<Order>; placeMany(params: PlaceParams): Promise<Order[]>; placeAll(params: PlaceParams): Promise<Order[]> };
}`;
const IMPORT = "import { shop } from '@capabilities/wide';";

let checker: Typechecker;
beforeAll(async () => {
  checker = await createTypechecker({ declarations: new Map([...declarations, ['wide.d.ts', WIDE]]) });
});
afterAll(() => checker.dispose());

describe('the hint of a type error', () => {
  it('fits the budget with inline object types abbreviated, the declared names kept, the whole kept in detail', () => {
    const [diagnostic] = checker.check(`${IMPORT}\nawait shop.place({ customer: 1 });`);
    const signature = diagnostic!.function!.signature!;
    expect(signature.length).toBeLessThanOrEqual(HINT_BUDGET);
    expect(signature).toMatch(/^shop\.place\(params: \{ customer: \{ … \}; lines: \{ … \}\[\] \}\): Promise<Order>$/);
    expect(diagnostic!.detail!.signatures![0]).toContain('addressField29: string');
    expect(diagnostic!.detail!.signatures![0]!.length).toBeGreaterThan(2000);
  });

  it('shares the budget between the closest names of a misspelt function', () => {
    const [diagnostic] = checker.check(`${IMPORT}\nawait shop.placeAl({ customer: 1 });`);
    const shown = diagnostic!.closest!.map((hint) => hint.signature!);
    expect(shown.length).toBeGreaterThan(1);
    expect(shown.join('').length).toBeLessThanOrEqual(HINT_BUDGET);
    for (const signature of shown) expect(signature).toMatch(/\): Promise<Order(\[\])?>$/);
  });

  it('never writes out a lib type: console.log takes ...data: unknown[]', () => {
    const [diagnostic] = checker.check('const n = 1;\nconsole.log(n.lenght);');
    expect(diagnostic!.function?.signature ?? '').not.toContain('toLocaleString');
  });
});

describe('the message and the source line', () => {
  it('cut a long line around the column, the caret still under the error', () => {
    const code = `${IMPORT}\nconst pad = '${'x'.repeat(500)}'; await shop.place({ customer: 1 });`;
    const [diagnostic] = checker.check(code);
    const text = formatDiagnostics(code, [diagnostic!]);
    const [source, caret] = text.split('\n').slice(2, 4);
    expect(source!.length).toBeLessThanOrEqual(SOURCE_BUDGET + 4);
    expect(source!.startsWith('2 …')).toBe(true);
    expect(source![caret!.indexOf('^')]).toBe('c');
    expect(source!.slice(caret!.indexOf('^'))).toMatch(/^customer: 1/);
  });

  it('keeps a long message within its budget: first and last line, the whole in detail', () => {
    const wide = Array.from({ length: 40 }, (_, i) => `k${i}: ${i}`).join(', ');
    const [diagnostic] = checker.check(`const a: { k0: string } & { deep: { deeper: { k0: string } } } = { deep: { deeper: { ${wide} } } } as never as { deep: { deeper: { k0: number } } } & { k0: string };`);
    expect(diagnostic!.message.length).toBeLessThanOrEqual(MESSAGE_BUDGET + 8);
    expect(diagnostic!.message).toMatch(/^Type '.*' is not assignable to type '.*'\.\n {2}…\n {2}Type 'number' is not assignable to type 'string'\.$/);
    expect(diagnostic!.detail!.message).toContain("The types of 'deep.deeper.k0' are incompatible between these types.");
  });
});

describe('abbreviateObjects', () => {
  it.each([
    ['{ a: { b: { c: string } } }', 1, '{ a: { … } }'],
    ['{ a: { b: { c: string } } }', 2, '{ a: { b: { … } } }'],
    ["{ a: '{ not: a type }'; b: { c: 1 } }", 1, "{ a: '{ not: a type }'; b: { … } }"],
    ['f(p: { x: { y: 1 }[] }): Promise<Order>', 1, 'f(p: { x: { … }[] }): Promise<Order>'],
  ])('%s at depth %i', (text, depth, expected) => {
    expect(abbreviateObjects(text, depth)).toBe(expected);
  });
});
