// The catalog of an npm package capability, read from the package's own declarations by the npm source: what search
// shows for each function in `sandbox` and `host` mode; and how a package esbuild cannot bundle is reported.
import { describe, expect, it } from 'vitest';
import type { CatalogFunction } from '@agent-spaces/capabilities';
import { toNpmSource } from '../../src/sources/npm/config.js';
import { readNpmSource } from '../../src/sources/npm/source.js';
import { makeProject } from '../../../../test/fixtures/project.js';
import { sourceContext } from '../helpers.js';

/** A package `name` in `node_modules` with `index.d.ts` (and more `.d.ts` files) and `index.js`. */
function pkg(name: string, declarations: Record<string, string>, js = JS, description?: string): Record<string, string> {
  const files: Record<string, string> = {
    [`node_modules/${name}/package.json`]: JSON.stringify({ name, version: '1.0.0', type: 'module', main: 'index.js', types: 'index.d.ts', ...(description ? { description } : {}) }),
    [`node_modules/${name}/index.js`]: js,
  };
  for (const [file, text] of Object.entries(declarations)) files[`node_modules/${name}/${file}`] = text;
  return files;
}

/** Reads the package entry `entry` of a temp project holding `files`; with the catalog's functions by path. */
async function read(entry: Parameters<typeof toNpmSource>[0], files: Record<string, string>) {
  const project = await makeProject(files);
  const result = await readNpmSource(toNpmSource(entry, project.dir), { ...sourceContext(project.dir), refresh: true });
  const catalog = result.capabilities[0]?.module?.catalog;
  const byPath = new Map<string, CatalogFunction>(catalog?.functions.map((f) => [f.path, f]));
  return { result, catalog, byPath };
}

const JS =
  'export const splitTree = (text) => ({ word: text, children: [] });\nexport const join = (w) => w.join(" ");\nexport const joinAll = (w) => w.join(" ");\n' +
  'export const tools = { count: (w) => w.length, each: (w, visit) => w.map(visit) };\nexport class Tokenizer {}\nexport const VERSION = "1";\nexport default () => {};\n';

const TEXT = {
  'index.d.ts': `import type { Words } from './words.js';
export * from './split.js';
export type { Words };
/** Joins words with a separator. */
export declare function join(words: Words, { separator }?: { separator?: string }): string;
/** Joins with a space. */
export declare function joinAll(words: string[]): string;
/**
 * Joins with commas.
 * @deprecated Use join.
 */
export declare function joinAll(words: string[], comma: true): string;
export declare const tools: {
  /**
   * Counts the words.
   */
  count(words: Words): number;
  each<T>(words: Words, visit: (word: string) => T): T[];
};
export declare class Tokenizer { constructor(text: string) }
export declare const VERSION: string;
export default function main(): void;
`,
  'split.d.ts': `/** A tree of words, each with its children. */
export interface Tree { word: string; children: Tree[] }
/** Splits text into a tree of words. */
export declare function splitTree(text: string): Tree;
`,
  'words.d.ts': '/** Words, in order. */\nexport type Words = readonly string[];\n',
};

describe('the catalog of a sandbox-mode package', () => {
  it('lists every exported function, re-exports followed, with its own signature, doc and types, naming no capability function', async () => {
    const { result, catalog, byPath } = await read('npm:text-kit', pkg('text-kit', TEXT, JS, 'Small text helpers'));
    expect(result.diagnostics).toEqual([]);
    // No default export, no class, no constant: what `export *` offers that is a function.
    expect([...byPath.keys()]).toEqual(['join', 'joinAll', 'tools.count', 'tools.each', 'splitTree']);
    expect(catalog!.functions.every((f) => f.function === undefined)).toBe(true);
    expect(byPath.get('join')).toMatchObject({
      signature: 'join(words: Words, { separator }?: { separator?: string }): string',
      summary: 'Joins words with a separator.',
      related: ['Words'],
    });
    // The last overload, as `Parameters<typeof fn>` takes it, with its own doc and tags.
    expect(byPath.get('joinAll')).toMatchObject({ signature: 'joinAll(words: string[], comma: true): string', doc: 'Joins with commas.\n@deprecated Use join.' });
    // A callback is welcome in the sandbox; type parameters are kept.
    expect(byPath.get('tools.each')!.signature).toBe('tools.each<T>(words: Words, visit: (word: string) => T): T[]');
    expect(byPath.get('tools.count')).toMatchObject({ summary: 'Counts the words.', words: { name: ['count'], module: ['capability', 'text', 'kit', 'tool', 'count'] } });
    // A type referring to itself is listed once, and its fields are searchable to a depth.
    expect(byPath.get('splitTree')).toMatchObject({ related: ['Tree'], words: { fields: ['text', 'word', 'children'], context: ['small', 'text', 'helper'] } });
    expect(catalog!.types).toEqual({
      Tree: '/** A tree of words, each with its children. */\nexport interface Tree { word: string; children: Tree[] }',
      Words: '/** Words, in order. */\nexport type Words = readonly string[];',
    });
  });

  it('lists only the `exports` named', async () => {
    const { byPath } = await read({ package: 'text-kit', exports: ['tools', 'splitTree'] }, pkg('text-kit', TEXT));
    expect([...byPath.keys()]).toEqual(['tools.count', 'tools.each', 'splitTree']);
  });

  it('reads declarations that loop, nest deep, or name what is not there, listing each function once', async () => {
    const variants: Array<[string, string, string]> = [
      ['export interface A { b: B }\nexport interface B { a: A }\nexport declare function f(a: A): B;\n', 'f(a: A): B', 'A,B'],
      ['export type Deep<T> = { next: Deep<Deep<T>>; value: T };\nexport declare function f(d: Deep<string>): Deep<number>;\n', 'f(d: Deep<string>): Deep<number>', 'Deep'],
      ["import type { Gone } from 'not-installed';\nexport declare function f(g: Gone): Gone;\n", 'f(g: Gone): Gone', ''],
      ["export declare function f(x: import('./nowhere.js').Y): void;\n", "f(x: import('./nowhere.js').Y): void", ''],
      ['export declare function f(...rest: Array<{ a: { b: { c: { d: string } } } }>): void;\n', 'f(...rest: Array<{ a: { b: { c: { d: string } } } }>): void', ''],
      ['export declare const f: (\n  /* note */ a: string,\n) => string;\n', 'f(a: string): string', ''],
    ];
    for (const [declarations, signature, related] of variants) {
      const js = 'export const f = () => {};\n';
      const { result, byPath } = await read('npm:odd', pkg('odd', { 'index.d.ts': declarations }, js));
      expect(result.diagnostics.filter((d) => d.severity === 'error')).toEqual([]);
      expect([...byPath.keys()]).toEqual(['f']);
      expect(byPath.get('f')).toMatchObject({ signature, related: related ? related.split(',') : [] });
    }
  });

  it('warns, and lists nothing, when the declarations are not a module', async () => {
    const { result, catalog } = await read('npm:ambient', pkg('ambient', { 'index.d.ts': 'declare function shout(text: string): string;\n' }));
    expect(result.capabilities).toHaveLength(1);
    expect(catalog!.functions).toEqual([]);
    expect(result.diagnostics).toEqual([
      { code: 'INVALID_DEFINITION', severity: 'warning', file: 'npm:ambient', message: 'npm:ambient: its declarations are not a module; search finds none of its functions' },
    ]);
  });
});

describe('the catalog of a host-mode package', () => {
  it('lists the functions that cross the bridge, results promised, each naming its capability function', async () => {
    const { result, byPath } = await read({ package: 'text-kit', mode: 'host' }, pkg('text-kit', TEXT));
    expect(result.diagnostics.map((d) => d.message)).toEqual([
      'Tokenizer: a class cannot be constructed across the bridge; it is left out',
      'tools.each: parameter visit takes a function, which cannot cross the bridge; the function is left out',
    ]);
    expect([...byPath.values()].map((f) => [f.function, f.signature])).toEqual([
      ['join', 'join(words: Words, { separator }?: { separator?: string }): Promise<string>'],
      ['joinAll', 'joinAll(words: string[], comma: true): Promise<string>'],
      ['tools.count', 'tools.count(words: Words): Promise<number>'],
      ['splitTree', 'splitTree(text: string): Promise<Tree>'],
    ]);
  });
});

describe('a package esbuild cannot bundle', () => {
  it('is one INVALID_DEFINITION per esbuild error, naming the file and line, in either mode', async () => {
    const broken = pkg('broken', { 'index.d.ts': 'export declare function f(): void;\n' }, 'export const f = () => {\n  return (;\n};\n');
    for (const mode of ['sandbox', 'host'] as const) {
      const { result } = await read({ package: 'broken', mode }, broken);
      expect(result.capabilities).toEqual([]);
      expect(result.diagnostics).toEqual([
        { code: 'INVALID_DEFINITION', severity: 'error', file: 'npm:broken', message: expect.stringMatching(/^Unexpected "?;"? \(node_modules\/broken\/index\.js:2\)$/) },
      ]);
    }
  });
});
