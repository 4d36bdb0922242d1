import { isAgentSpacesError } from '@agent-spaces/capabilities';
import { describe, expect, it } from 'vitest';
import { transpile } from '../../src/index.js';
import { transpileAsync } from '../../src/script/transpile.js';

function syntaxErrorOf(code: string): { line: unknown; column: unknown; code: string } {
  try {
    transpile(code);
  } catch (error) {
    if (!isAgentSpacesError(error)) throw error;
    return { code: error.code, line: error.data?.line, column: error.data?.column };
  }
  throw new Error('expected a syntax error');
}

describe('transpile', () => {
  it('keeps imports on top and wraps the rest in __main__', () => {
    const script = transpile(`import { add } from '@capabilities/math';\nconst x: number = await add({ a: 1, b: 2 });\nexport default x;`);
    expect(script.imports).toEqual(['@capabilities/math']);
    expect(script.code.startsWith('import { add } from "@capabilities/math";\nexport default async function __main__(')).toBe(true);
    expect(script.declarations).toEqual(['x']);
  });

  it('strips types, interfaces, generics and type-only imports', () => {
    const script = transpile(
      `import type { Trip } from '@capabilities/trains';\ninterface P { a: number }\nconst id = <T,>(v: T): T => v;\nexport default id<P>({ a: 1 });`,
    );
    expect(script.imports).toEqual([]);
    expect(script.code).not.toMatch(/interface|<T|: T/);
  });

  it('turns top-level returns back into returns, with and without a value', () => {
    const script = transpile(`const a = 1;\nif (a > 2) return;\nif (a) return { a, b: [1, 2] };\nreturn\n  5;`);
    expect(script.code).toContain('return;');
    expect(script.code).toMatch(/return \{ a, b: \[1, 2\] \};/);
    expect(script.code).not.toContain('__as_return__');
  });

  it('keeps returns of comma expressions whole', () => {
    expect(transpile(`let a = 0;\nreturn a++, a;`).code).toContain('return a++, a;');
  });

  it('leaves returns inside functions alone', () => {
    const script = transpile(`function f() { return 1; }\nreturn f();`);
    expect(script.code).toContain('return 1;');
    expect(script.code).toContain('return f();');
  });

  it('collects top-level declarations, destructuring included', () => {
    const script = transpile(
      `const { a, b: [c, ...d], e = 1 } = { a: 1, b: [2, 3] } as any;\nlet f;\nvar g = 1;\nfunction h() {}\nclass K {}\nexport const z = 2;\nif (a) { var hidden = 1; }`,
    );
    expect([...script.declarations].sort()).toEqual(['K', 'a', 'c', 'd', 'e', 'f', 'g', 'h', 'z']);
  });

  it('returns the default export, including named functions and classes', () => {
    expect(transpile('export default function answer() { return 42 }').code).toMatch(/return (answer|stdin_default);\n}\n$/);
    expect(transpile('const v = 1;\nexport { v as default };').code).toMatch(/return v;\n}\n$/);
  });

  it('reports syntax errors at the line and column of the agent code', () => {
    expect(syntaxErrorOf('const a = 1;\nconst b = ;')).toEqual({ code: 'SYNTAX_ERROR', line: 2, column: 11 });
  });

  it('reports syntax errors at the right column on lines whose return was replaced', () => {
    expect(syntaxErrorOf('const a = 1;\nif (a) return a; const é = ;')).toEqual({ code: 'SYNTAX_ERROR', line: 2, column: 28 });
  });

  it('counts columns in characters, not bytes', () => {
    expect(syntaxErrorOf('const é = "ü"; const x = ;')).toEqual({ code: 'SYNTAX_ERROR', line: 1, column: 26 });
  });

  it('refuses dynamic import()', () => {
    expect(syntaxErrorOf('const m = await import("node:fs");').code).toBe('IMPORT_NOT_FOUND');
    expect(syntaxErrorOf('function f() { return import("x") }').code).toBe('IMPORT_NOT_FOUND');
  });

  it('refuses re-exporting a whole module', () => {
    expect(syntaxErrorOf('export * from "@capabilities/math";').code).toBe('SYNTAX_ERROR');
  });

  it('gives the same result synchronously and asynchronously, and caches it', async () => {
    const code = 'const n: number = 1;\nreturn n + 1;';
    const first = await transpileAsync(code);
    expect(transpile(code)).toBe(first);
    expect((await transpileAsync(`${code} `)).code).toBe(first.code);
  });
});
