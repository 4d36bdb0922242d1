import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypechecker, type Typechecker } from '../src/check/index.js';
import { Batcher } from '../src/check/batch.js';
import { ServiceTypechecker } from '../src/check/service.js';
import { declarations } from './check-declarations.js';

const positions = (diagnostics: { code: number; line: number; column: number }[]) =>
  diagnostics.map(({ code, line, column }) => ({ code, line, column }));

let checker: Typechecker;
beforeAll(async () => {
  checker = await createTypechecker({ declarations });
});
afterAll(() => checker.dispose());

/** Agent files of the language service's current program: how many scripts its last batch checked together. */
const agentFiles = (typechecker: Typechecker) => {
  if (!(typechecker instanceof ServiceTypechecker)) throw new Error('expected the language-service typechecker');
  return typechecker.getProgram()!.getSourceFiles().filter((file) => /\/agent-\d+\.ts$/.test(file.fileName));
};

describe('batched checks', () => {
  // Script i has its own error at its own place (or none), with or without a top-level return.
  const script = (i: number): { code: string; expected: { code: number; line: number; column: number }[] } => {
    const pad = ' '.repeat(i % 7);
    const head = `import { trainSchedule } from '@capabilities/train-schedule';\nconst trips${i} = await trainSchedule.getSchedule();\n`;
    switch (i % 5) {
      case 0:
        return { code: `${head}export default trips${i}.length + ${i};`, expected: [] };
      case 1:
        return { code: `${head}${pad}const n${i}: number = 'x${i}';\nexport default n${i};`, expected: [{ code: 2322, line: 3, column: 7 + pad.length }] };
      case 2:
        return { code: `${head}if (trips${i}.length > ${i}) return 1;\n${pad}return trips${i}[0]!.destinaton;`, expected: [{ code: 2551, line: 4, column: 18 + pad.length + String(i).length }] };
      case 3:
        return { code: `${head}\n${pad}await trainSchedule.getSchedule({ station: ${i} });`, expected: [{ code: 2322, line: 4, column: 35 + pad.length }] };
      default:
        return { code: `${head}${pad}const x${i} = (1 +;`, expected: [{ code: 1109, line: 3, column: 15 + pad.length + String(i).length }] };
    }
  };
  const scripts = Array.from({ length: 50 }, (_, i) => script(i));

  it('gives each of 50 concurrent checks exactly its own diagnostics, checked in one program', async () => {
    const results = await Promise.all(scripts.map(({ code }) => checker.checkBatched(code)));
    expect(agentFiles(checker)).toHaveLength(50);
    results.forEach((diagnostics, i) => expect(positions(diagnostics), `script ${i}`).toEqual(scripts[i]!.expected));
    // The same diagnostics, messages included, as each script checked alone.
    results.forEach((diagnostics, i) => expect(diagnostics).toEqual(checker.check(scripts[i]!.code)));
  });

  it('answers a check alone, and the next checks in a new program without the earlier scripts', async () => {
    await Promise.all(scripts.slice(0, 10).map(({ code }) => checker.checkBatched(code)));
    expect(positions(await checker.checkBatched(scripts[1]!.code))).toEqual(scripts[1]!.expected);
    expect(agentFiles(checker)).toHaveLength(1);
  });

  it('puts checks asked for while a batch is answered into the next batch', async () => {
    const first = checker.checkBatched(scripts[0]!.code).then(() => checker.checkBatched(scripts[1]!.code));
    const second = checker.checkBatched(scripts[2]!.code).then(() => checker.checkBatched(scripts[3]!.code));
    const [a, b] = await Promise.all([first, second]);
    expect(agentFiles(checker)).toHaveLength(2);
    expect(positions(a)).toEqual(scripts[1]!.expected);
    expect(positions(b)).toEqual(scripts[3]!.expected);
  });

  it('adds the declarations’ own problems to every script of a batch', async () => {
    const broken = await createTypechecker({
      declarations: new Map([['broken.d.ts', "declare module '@capabilities/broken' {\n  export const x: Tripp;\n}\n"]]),
    });
    try {
      const results = await Promise.all(['export default 1;', "import { x } from '@capabilities/broken';\nexport default x;"].map((code) => broken.checkBatched(code)));
      for (const diagnostics of results) expect(positions(diagnostics)).toEqual([{ code: 2304, line: 1, column: 1 }]);
    } finally {
      broken.dispose();
    }
  });

  it('fails the checks still queued when the typechecker is disposed', async () => {
    const local = await createTypechecker({ declarations });
    const pending = [local.checkBatched('export default 1;'), local.createSession().check('export default 2;')];
    local.dispose();
    for (const result of await Promise.allSettled(pending)) expect(result).toMatchObject({ status: 'rejected', reason: { code: 'INTERNAL' } });
  });
});

describe('Batcher', () => {
  it('runs what was submitted in one turn together, and what arrives while it runs in the next batch', async () => {
    const batches: number[][] = [];
    let late: Promise<number> | undefined;
    const batcher = new Batcher<number, number>((requests) => {
      batches.push(requests);
      late ??= batcher.submit(100);
      return requests.map((n) => n * 2);
    });
    expect(await Promise.all([1, 2, 3].map((n) => batcher.submit(n)))).toEqual([2, 4, 6]);
    expect(await late).toBe(200);
    expect(batches).toEqual([[1, 2, 3], [100]]);
  });

  it('runs each request alone when a batch throws, so only the bad one fails', async () => {
    const batcher = new Batcher<number, number>((requests) => {
      if (requests.includes(13)) throw new Error('unlucky');
      return requests.map((n) => n + 1);
    });
    const results = await Promise.allSettled([1, 13, 2].map((n) => batcher.submit(n)));
    expect(results).toEqual([
      { status: 'fulfilled', value: 2 },
      { status: 'rejected', reason: new Error('unlucky') },
      { status: 'fulfilled', value: 3 },
    ]);
  });
});

describe('sessions', () => {
  it('see a binding in their next checks only after the run that declared it is remembered', async () => {
    const session = checker.createSession();
    expect(await session.check('const greeting = "hi";')).toEqual([]);
    expect(positions(await session.check('export default greeting.length;'))).toEqual([{ code: 2304, line: 1, column: 16 }]);
    await session.remember('const greeting = "hi";');
    expect(await session.check('export default greeting.length;')).toEqual([]);
    expect(positions(await session.check('const n: number = greeting;'))).toEqual([{ code: 2322, line: 1, column: 7 }]);
  });

  it('keep a binding to their own next checks: not another session’s, not the space’s', async () => {
    const a = checker.createSession();
    const b = checker.createSession();
    await a.remember('const greeting = "hi";');
    const [inA, inB, batched] = await Promise.all([
      a.check('export default greeting.length;'),
      b.check('export default greeting.length;'),
      checker.checkBatched('export default greeting.length;'),
    ]);
    expect(inA).toEqual([]);
    expect(positions(inB)).toEqual([{ code: 2304, line: 1, column: 16 }]);
    expect(positions(batched)).toEqual([{ code: 2304, line: 1, column: 16 }]);
    expect(positions(checker.check('export default greeting.length;'))).toEqual([{ code: 2304, line: 1, column: 16 }]);
  });

  it('give two sessions the same binding name with their own types, in one batch', async () => {
    const a = checker.createSession();
    const b = checker.createSession();
    await Promise.all([a.remember('const value = 1;'), b.remember("const value = 'text';")]);
    const code = 'const n: number = value;\nconst s: string = value;';
    const [inA, inB] = await Promise.all([a.check(code), b.check(code)]);
    expect(agentFiles(checker)).toHaveLength(2);
    expect(positions(inA)).toEqual([{ code: 2322, line: 2, column: 7 }]);
    expect(positions(inB)).toEqual([{ code: 2322, line: 1, column: 7 }]);
  });

  it('reuse the bindings found by the check of the code that ran, with its types', async () => {
    const session = checker.createSession();
    const first = [
      "import { trainSchedule } from '@capabilities/train-schedule';",
      "const trips = await trainSchedule.getSchedule({ station: 'Central' });",
      "function label(n: number): string { return 'trips: ' + n; }",
      'let { hour, minute: [m] } = { hour: 1, minute: [2] };',
      'enum Color { Red }',
    ].join('\n');
    expect(await session.check(first)).toEqual([]);
    await session.remember(first);
    expect(await session.check('return [label(trips.length), trips[0]!.destination, hour + m, Color.Red];')).toEqual([]);
    expect(positions(await session.check('const n: number = label(1);\nconst d: number = trips[0]!.destination;'))).toEqual([
      { code: 2322, line: 1, column: 7 },
      { code: 2322, line: 2, column: 7 },
    ]);
  });

  it('find the bindings of code that ran without a check', async () => {
    const session = checker.createSession();
    await session.remember('const count: number = "not checked" as any; var names = ["a"];');
    expect(await session.check('export default count + names.length;')).toEqual([]);
    expect(positions(await session.check('const s: string = count;'))).toEqual([{ code: 2322, line: 1, column: 7 }]);
  });

  it.each([
    ['a local class', 'class Local { x = 1; }\nconst local = new Local();', 'local'],
    ['a local interface', 'interface Row { a: number }\nconst rows: Row[] = [];', 'rows'],
    ['an anonymous class', 'const Anonymous = class { a = 1; };', 'Anonymous'],
    ['a unique symbol', "const sym: unique symbol = Symbol('s');", 'sym'],
    ['typeof a local enum', 'enum Level { Low }\nconst levels = Level;', 'levels'],
    ['a local type inside the wrapper', 'type Id = { id: string };\nconst ids: Id[] = [];\nreturn ids;', 'ids'],
  ])('give a binding whose type is %s the type any', async (_, first, name) => {
    const session = checker.createSession();
    await session.remember(first);
    expect(await session.check(`const anything: { surely: 'not' } = ${name};\nexport default anything;`)).toEqual([]);
  });

  it('let the new code declare a name a binding has, by value, import or type', async () => {
    const session = checker.createSession();
    await session.remember('const value = 1; const trainSchedule = 2; const when = new Date(0); function f() { return 1; }');
    expect(
      await session.check(
        [
          "import { trainSchedule } from '@capabilities/train-schedule';",
          "const value = 'now a string';",
          'const s: string = value;',
          'await trainSchedule.getSchedule();',
          // `Date` below is this script's own interface: the earlier binding's Date is not it.
          'interface Date { mine: true }',
          'const t: number = when.getTime();',
          'function f(): string { return "f"; }',
          'export default [s, t, f()];',
        ].join('\n'),
      ),
    ).toEqual([]);
  });

  it('keep the positions of the code, with and without a top-level return', async () => {
    const session = checker.createSession();
    await session.remember('const trips = [{ hour: 1 }];');
    expect(positions(await session.check('const a = trips.length;\n  const s: string = a;'))).toEqual([{ code: 2322, line: 2, column: 9 }]);
    expect(positions(await session.check('if (trips.length) return 1;\n  return trips[0]!.hours;'))).toEqual([{ code: 2551, line: 2, column: 20 }]);
  });

  it.each([
    ['an open parenthesis', 'const a = (1 +'],
    ['an open block', 'function f() {\n  return 1;'],
    ['an open comment', 'const a = 1; /* and then'],
    ['an open template', 'const a = `text ${1}'],
    ['an open string', "const a = 'text"],
    ['a trailing line comment', 'const a = value +; // end'],
    ['an open type argument list', 'const m = new Map<string,'],
  ])('report the syntax errors of code with %s as if it had no bindings', async (_, code) => {
    const session = checker.createSession();
    await session.remember('const value = 1;');
    const inSession = await session.check(code);
    expect(inSession.length).toBeGreaterThan(0);
    expect(inSession).toEqual(checker.check(code));
  });

  it.each([
    ['names that are keywords in module code', 'var yield = 1; var let = 2; var static = 3;'],
    ['a name that is await', 'var await = 1;'],
    ['code that does not parse', 'const broken = (;'],
    ['an empty script', ''],
    ['a binding that shadows a global', 'const console = 1; const Date = 2;'],
    ['a function named like the wrapper of a top-level return', 'function __main__() { return 1; }'],
  ])('stay usable after a run with %s', async (_, ran) => {
    const session = checker.createSession();
    await session.remember(ran);
    expect(await session.check('const n: number = 1;\nexport default n;')).toEqual([]);
    expect(await session.check('const n: number = 1;\nreturn n;')).toEqual([]);
    expect(positions(await session.check('const n: number = "1";'))).toEqual([{ code: 2322, line: 1, column: 7 }]);
  });
});
