// CommonJS packages in sandbox mode, one hand-written package per interop shape: `module.exports = fn` (with a property),
// `exports.x = …`, `__esModule` with `exports.default`, `module.exports = class`, an `exports` map, and an ES module
// with a default export beside them. Each is built, imported from agent code with its named and default exports as its
// own `.d.ts` types them, and called in the isolate; a misuse is a type error on its line.
import { beforeAll, describe, expect, it } from 'vitest';
import { makeProject, type Project } from '../../../../test/fixtures/project.js';

/** A package as `npm install` leaves it: `package.json` (CommonJS unless `type` says otherwise) and its files. */
const pkg = (name: string, manifest: Record<string, unknown>, files: Record<string, string>) => ({
  [`node_modules/${name}/package.json`]: { name, version: '1.0.0', ...manifest },
  ...Object.fromEntries(Object.entries(files).map(([file, text]) => [`node_modules/${name}/${file}`, text])),
});

const PACKAGES = {
  ...pkg('cjs-fn', { main: 'index.js', types: 'index.d.ts' }, {
    'index.js': "module.exports = function double(x) { return x * 2; };\nmodule.exports.VERSION = '1.2.3';\n",
    'index.d.ts': 'declare function double(x: number): number;\ndeclare namespace double {\n  const VERSION: string;\n  interface Options { x: number }\n}\nexport = double;\n',
  }),
  ...pkg('cjs-named', { main: 'lib/index.js', types: 'lib/index.d.ts' }, {
    'lib/index.js': "exports.add = function (a, b) { return a + b; };\nexports.PI = 3.14;\nexports.Mode = { Fast: 'fast' };\n",
    'lib/index.d.ts': "export declare function add(a: number, b: number): number;\nexport declare const PI: number;\nexport declare const Mode: { readonly Fast: 'fast' };\nexport interface Options { fast?: boolean }\nexport type Shape = 'a' | 'b';\nexport declare const enum Level { Low = 0 }\n",
  }),
  ...pkg('cjs-esmodule', { main: 'dist/index.js', types: 'dist/index.d.ts' }, {
    'dist/index.js': "\"use strict\";\nObject.defineProperty(exports, '__esModule', { value: true });\nexports.shout = void 0;\nfunction greet(name) { return 'hi ' + name; }\nexports.default = greet;\nconst shout = (s) => s.toUpperCase();\nexports.shout = shout;\n",
    'dist/index.d.ts': 'export default function greet(name: string): string;\nexport declare const shout: (s: string) => string;\n',
  }),
  ...pkg('cjs-class', { main: 'counter.js', types: 'counter.d.ts' }, {
    'counter.js': 'class Counter {\n  constructor(start) { this.n = start; }\n  inc() { return ++this.n; }\n  static zero() { return new Counter(0); }\n}\nmodule.exports = Counter;\n',
    'counter.d.ts': 'declare class Counter {\n  constructor(start: number);\n  n: number;\n  inc(): number;\n  static zero(): Counter;\n}\nexport = Counter;\n',
  }),
  ...pkg('cjs-exports-map', { exports: { '.': { types: './types/main.d.ts', default: './lib/main.cjs' }, './package.json': './package.json' } }, {
    'lib/main.cjs': "const slug = (s) => s.toLowerCase().replace(/\\s+/g, '-');\nmodule.exports = { slug, sep: '-' };\n",
    'types/main.d.ts': 'export declare function slug(s: string): string;\nexport declare const sep: string;\n',
  }),
  ...pkg('esm-default', { type: 'module', main: 'index.js', types: 'index.d.ts' }, {
    'index.js': "export default function triple(x) { return x * 3; }\nexport const name = 'esm';\n",
    'index.d.ts': 'export default function triple(x: number): number;\nexport declare const name: string;\n',
  }),
};
const NAMES = Object.keys(PACKAGES).filter((file) => file.endsWith('/package.json')).map((file) => file.split('/')[1]!);

let project: Project;

beforeAll(async () => {
  project = await makeProject({ ...PACKAGES, 'agent-spaces.config.json': { capabilities: NAMES.map((name) => `npm:${name}`) } });
  const report = await project.build();
  expect(report.capabilities.map((c) => [c.id, c.status, c.diagnostics])).toEqual(NAMES.map((name) => [name, 'built', []]).sort());
});

/** The built project: made once (in a test it would be removed after that test). */
const built = async (): Promise<Project> => project;

const CALLS: Record<string, [code: string, result: unknown]> = {
  'module.exports = fn, its default and a property': [
    `import double, { VERSION } from '@capabilities/cjs-fn';\nexport default [double(21), VERSION, double.VERSION];`,
    [42, '1.2.3', '1.2.3'],
  ],
  'module.exports = fn as a namespace import': [`import * as m from '@capabilities/cjs-fn';\nexport default [m.default(2), m.VERSION];`, [4, '1.2.3']],
  'exports.x = … named exports (types and const enums left out)': [
    `import { add, PI, Mode } from '@capabilities/cjs-named';\nexport default [add(1, 2), PI, Mode.Fast];`,
    [3, 3.14, 'fast'],
  ],
  '__esModule with exports.default': [`import greet, { shout } from '@capabilities/cjs-esmodule';\nexport default [greet('bob'), shout('hey')];`, ['hi bob', 'HEY']],
  'module.exports = class, with a static method': [
    `import Counter from '@capabilities/cjs-class';\nconst c = new Counter(1);\nexport default [c.inc(), Counter.zero().inc(), c instanceof Counter];`,
    [2, 1, true],
  ],
  'an exports map to a .cjs file': [`import { slug, sep } from '@capabilities/cjs-exports-map';\nexport default [slug('Morning Trains'), sep];`, ['morning-trains', '-']],
  'an ES module default export': [`import triple, { name } from '@capabilities/esm-default';\nexport default [triple(3), name];`, [9, 'esm']],
};

describe('a CommonJS package in sandbox mode', () => {
  for (const [label, [code, result]] of Object.entries(CALLS)) {
    it(`exports ${label} to agent code, in the isolate`, async () => {
      const space = await (await built()).space({ isolation: 'in-process' });
      const run = await space.run(code);
      expect(run).toMatchObject({ ok: true, result, stats: { capabilityCalls: 0 } });
    });
  }

  /** Each misuse, the code it fails with and where: the line of the call, or of the import naming what is not there. */
  const MISUSES: Record<string, [code: string, error: string, at: RegExp]> = {
    'a string to module.exports = fn': [`import double from '@capabilities/cjs-fn';\n\nexport default double('21');`, 'TYPE_ERROR', /:3:/],
    'a missing argument to a named export': [`import { add } from '@capabilities/cjs-named';\n\nexport default add(1);`, 'TYPE_ERROR', /:3:/],
    'the default of an __esModule package given a number': [`import greet from '@capabilities/cjs-esmodule';\n\nexport default greet(1);`, 'TYPE_ERROR', /:3:/],
    'a class constructed without its argument': [`import Counter from '@capabilities/cjs-class';\n\nexport default new Counter();`, 'TYPE_ERROR', /:3:/],
    'a name the package does not export': [`import { nope } from '@capabilities/cjs-named';\n\nexport default nope;`, 'TYPE_ERROR', /:1:.*nope/],
    'a type-only export used as a value': [`import { Options } from '@capabilities/cjs-named';\n\nexport default Options;`, 'IMPORT_NOT_FOUND', /Options/],
  };
  for (const [label, [code, error, at]] of Object.entries(MISUSES)) {
    it(`refuses ${label}, before it runs`, async () => {
      const space = await (await built()).space({ isolation: 'in-process' });
      const run = await space.run(code);
      expect(run).toMatchObject({ ok: false, error: { code: error } });
      expect(JSON.stringify(run)).toMatch(at);
    });
  }

  it('declares the module as the package types it: export = for module.exports, default beside export *', async () => {
    const project = await built();
    const fn = await project.read('.agent-spaces/capabilities/cjs-fn/index.d.ts');
    expect(fn).toMatch(/declare module "@capabilities\/cjs-fn" \{\n {2}import pkg = require\("@capabilities\/cjs-fn\/__package\/index"\);\n {2}export = pkg;\n\}/);
    const esm = await project.read('.agent-spaces/capabilities/esm-default/index.d.ts');
    expect(esm).toContain('export * from "@capabilities/esm-default/__package/index";\n  export { default } from "@capabilities/esm-default/__package/index";');
    const named = await project.read('.agent-spaces/capabilities/cjs-named/index.d.ts');
    expect(named).not.toContain('export { default }');
  });
});
