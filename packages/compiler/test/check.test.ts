import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isAgentSpacesError } from '@agent-spaces/capabilities';
import { createTypechecker, formatDiagnostics, type Typechecker } from '../src/check/index.js';
import { NOTES, declarations } from './check-declarations.js';

const lines = (...source: string[]) => source.join('\n');
const positions = (diagnostics: { code: number; line: number; column: number }[]) =>
  diagnostics.map(({ code, line, column }) => ({ code, line, column }));

let checker: Typechecker;
beforeAll(async () => {
  checker = await createTypechecker({ declarations });
});
afterAll(() => checker.dispose());

describe('correct code', () => {
  it('has no diagnostics with export default, generics, top-level await, std and sandbox globals', () => {
    const code = lines(
      "import { trainSchedule, type Trip } from '@capabilities/train-schedule';",
      "import { json, crypto } from '@agent-spaces/std';",
      '',
      'interface Summary<T> { items: T[]; id: string }',
      "const trips = await trainSchedule.getSchedule({ station: 'Central' });",
      'const morning: Trip[] = trips.filter((t) => t.hour < 12);',
      'let operator = "unknown";',
      'try {',
      '  operator = (await trainSchedule.getTrainDetails({ trainId: morning[0]!.id })).operator;',
      '} catch (e) {',
      '  if (e instanceof ApprovalDeniedError) console.warn(e.capability);',
      '  else if (e instanceof CapabilityError) console.error(e.code, e.function);',
      '}',
      'const summary: Summary<Trip> = { items: morning, id: await crypto.randomUUID() };',
      'console.log(json.stringify(summary), operator);',
      'export default new Map([[summary.id, morning.length]]);',
    );
    expect(checker.check(code)).toEqual([]);
  });

  it('has no diagnostics with a top-level return, exported declarations and a return inside a block', () => {
    const code = lines(
      "import { trainSchedule } from '@capabilities/train-schedule'",
      'export const trips = await trainSchedule.getSchedule();',
      'export function late(hour: number): boolean { return hour > 20; }',
      'if (trips.length === 0) {',
      '  return { count: 0, late: [] };',
      '}',
      'return { count: trips.length, late: trips.filter((t) => late(t.hour)) };',
    );
    expect(checker.check(code)).toEqual([]);
  });

  it('treats a return inside a function as an ordinary return', () => {
    const code = lines('const value = (() => { return 1; })();', 'export default value;');
    expect(checker.check(code)).toEqual([]);
  });

  it('checks code without imports or exports as a module with top-level await', () => {
    expect(checker.check("const trips = await Promise.resolve([1]);\nconsole.log(trips);")).toEqual([]);
  });
});

describe('type errors at the agent line and column', () => {
  const header = [
    'import {',
    '  trainSchedule,',
    '  type Trip,',
    "} from '@capabilities/train-schedule';",
    '',
  ];

  it('reports a wrong property', () => {
    const code = lines(...header, 'const trips: Trip[] = await trainSchedule.getSchedule();', 'console.log(trips[0]!.destinaton);');
    const diagnostics = checker.check(code);
    expect(positions(diagnostics)).toEqual([{ code: 2551, line: 7, column: 23 }]);
    expect(diagnostics[0]!.message).toContain("'destinaton'");
    expect(diagnostics[0]!.category).toBe('error');
  });

  it('reports a wrong parameter type', () => {
    const code = lines(...header, 'await trainSchedule.getSchedule({ station: 42 });');
    expect(positions(checker.check(code))).toEqual([{ code: 2322, line: 6, column: 35 }]);
  });

  it('reports a missing required parameter', () => {
    const code = lines(...header, 'const details = await trainSchedule.getTrainDetails({});', 'export default details;');
    expect(positions(checker.check(code))).toEqual([{ code: 2345, line: 6, column: 53 }]);
  });

  it('reports an unknown import with TypeScript’s own diagnostic', () => {
    const code = lines("import { slack } from '@capabilities/slack';", 'export default slack;');
    expect(positions(checker.check(code))).toEqual([{ code: 2307, line: 1, column: 23 }]);
  });

  it('maps positions back through the top-level return wrapper', () => {
    const code = lines(
      ...header,
      "\tconst trips = await trainSchedule.getSchedule({ date: 20240101 }); const x: Trip = trips[0]!;",
      'return x.platfrom;',
    );
    expect(positions(checker.check(code))).toEqual([
      { code: 2322, line: 6, column: 50 },
      { code: 2551, line: 7, column: 10 },
    ]);
  });

  it('maps positions on the line of the last import, where the wrapper begins', () => {
    const code = "import { trainSchedule } from '@capabilities/train-schedule'; const n: string = 1; return n;";
    expect(positions(checker.check(code))).toEqual([{ code: 2322, line: 1, column: 69 }]);
  });

  it('maps an unknown import and syntax errors with a top-level return', () => {
    expect(positions(checker.check("import { x } from '@capabilities/nope';\nreturn x;"))).toEqual([
      { code: 2307, line: 1, column: 19 },
    ]);
    expect(positions(checker.check('const a = 1;\nreturn a +;'))).toEqual([{ code: 1109, line: 2, column: 11 }]);
  });
});

describe('sandbox environment', () => {
  it.each([
    ['process.env.SECRET', 'process'],
    ["require('fs')", 'require'],
    ['setTimeout(() => {}, 10)', 'setTimeout'],
    ['document.title', 'document'],
    ['fetch("https://example.com")', 'fetch'],
  ])('reports %s as unknown: there are no Node or DOM types', (expression, name) => {
    const diagnostics = checker.check(`const value = ${expression};\nexport default value;`);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ line: 1, column: 15, category: 'error' });
    expect([2304, 2580, 2584, 2591]).toContain(diagnostics[0]!.code);
    expect(diagnostics[0]!.message).toContain(`'${name}'`);
  });
});

describe('export default mixed with top-level return', () => {
  it('is an error at the export default', () => {
    const code = lines('const a = 1;', 'if (a > 0) return a;', 'export default a;');
    const diagnostics = checker.check(code);
    expect(positions(diagnostics)).toEqual([{ code: 100_001, line: 3, column: 1 }]);
    expect(diagnostics[0]!.message).toContain('export default');
  });

  it('is an error at an exported default function too, alongside other type errors', () => {
    const code = lines('return 1;', '  export default function main() { const s: string = 1; }');
    expect(positions(checker.check(code))).toEqual([
      { code: 100_001, line: 2, column: 3 },
      { code: 2322, line: 2, column: 42 },
    ]);
  });
});

describe('declarations', () => {
  it('reports errors inside the declarations on line 1, naming the file', async () => {
    const broken = await createTypechecker({
      declarations: new Map([['broken.d.ts', "declare module '@capabilities/broken' {\n  export const x: Tripp;\n}\n"]]),
    });
    try {
      const diagnostics = broken.check("import { x } from '@capabilities/broken';\nexport default x;");
      expect(positions(diagnostics)).toEqual([{ code: 2304, line: 1, column: 1 }]);
      expect(diagnostics[0]!.message).toContain('broken.d.ts:2:19');
    } finally {
      broken.dispose();
    }
  });

  it('follows setDeclarations: added modules resolve, removed ones are unknown', async () => {
    const local = await createTypechecker({ declarations });
    try {
      const code = "import { notes } from '@capabilities/notes';\nexport default await notes.create({ title: 't', content: 'c' });";
      expect(positions(local.check(code))).toEqual([{ code: 2307, line: 1, column: 23 }]);
      local.setDeclarations(new Map([...declarations, ['notes.d.ts', NOTES]]));
      expect(local.check(code)).toEqual([]);
      local.setDeclarations(new Map([['notes.d.ts', NOTES.replace('content: string', 'content: number')]]));
      expect(positions(local.check(code))).toEqual([{ code: 2322, line: 2, column: 49 }]);
    } finally {
      local.dispose();
    }
  });

  it.each(['notes.ts', '../notes.d.ts', '/abs/notes.d.ts', 'a//b.d.ts'])('rejects the file name %s', async (name) => {
    const error = await createTypechecker({ declarations: new Map([[name, NOTES]]) }).catch((e: unknown) => e);
    expect(isAgentSpacesError(error) && error.code).toBe('INVALID_DECLARATIONS');
  });
});

describe('formatDiagnostics', () => {
  it('prints file:line:col, the code, the source line and a caret under the column', () => {
    const code = "const a = 1;\n\tconst s: string = a;\nreturn s;\nexport default s;";
    const text = formatDiagnostics(code, checker.check(code), 'morning.ts');
    expect(text).toBe(
      [
        "morning.ts:2:8 - error TS2322: Type 'number' is not assignable to type 'string'.",
        '',
        '2 \tconst s: string = a;',
        '  \t      ^',
        '',
        "morning.ts:4:1 - error AS100001: This script also has a top-level 'return': give its result with either 'export default' or 'return', not both.",
        '',
        '4 export default s;',
        '  ^',
      ].join('\n'),
    );
  });
});
