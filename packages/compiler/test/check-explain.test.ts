import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTypechecker, formatDiagnostics, type Typechecker } from '../src/check/index.js';
import { declarations } from './check-declarations.js';

/** Type errors that teach: the capability function a problem is about, with its signature, or the closest names. */

const lines = (...source: string[]) => source.join('\n');
const IMPORT = "import { trainSchedule } from '@capabilities/train-schedule';";
const MODULE = '@capabilities/train-schedule';
const GET_SCHEDULE = 'trainSchedule.getSchedule(params?: { station?: string; date?: string }): Promise<Trip[]>';
const GET_DETAILS = 'trainSchedule.getTrainDetails(params: { trainId: string }): Promise<TrainDetails>';

let checker: Typechecker;
beforeAll(async () => {
  checker = await createTypechecker({ declarations });
});
afterAll(() => checker.dispose());

describe('a problem in a call of a capability function', () => {
  it.each([
    ['a wrong parameter type', 'await trainSchedule.getSchedule({ station: 42 });', GET_SCHEDULE],
    ['an unknown parameter', "await trainSchedule.getSchedule({ stationName: 'x' });", GET_SCHEDULE],
    ['a missing required parameter', 'await trainSchedule.getTrainDetails({});', GET_DETAILS],
    ['no params at all', 'await trainSchedule.getTrainDetails();', GET_DETAILS],
    ['too many arguments', "await trainSchedule.getSchedule({}, 'more');", GET_SCHEDULE],
    ['a problem deep in an argument', 'const id = 7;\nawait trainSchedule.getTrainDetails({ trainId: id });', GET_DETAILS],
  ])('names the function and gives its signature with params written out: %s', (_, call, signature) => {
    const [diagnostic, ...rest] = checker.check(lines(IMPORT, call));
    expect(rest).toEqual([]);
    expect(diagnostic!.function).toEqual({ name: signature.slice(0, signature.indexOf('(')), module: MODULE, signature });
    expect(diagnostic!.closest).toBeUndefined();
  });

  it('names a std function as the script calls it', () => {
    const code = lines("import { crypto } from '@agent-spaces/std';", "await crypto.hash('md5', 'x');");
    expect(checker.check(code).map((d) => d.function)).toEqual([
      { name: 'crypto.hash', module: '@agent-spaces/std', signature: 'crypto.hash(algorithm: "sha256", data: string): Promise<string>' },
    ]);
  });

  it('gives no hint for a problem outside any declared call', () => {
    const [diagnostic] = checker.check('const n: number = "one";\nconst f = (x: number) => x;\nf("two");');
    expect(diagnostic).not.toHaveProperty('function');
    expect(checker.check('const f = (x: number) => x;\nf("two");')[0]).not.toHaveProperty('function');
  });
});

describe('a misspelt name', () => {
  it('lists the closest functions of a capability object, most alike first, with their signatures', () => {
    const [diagnostic] = checker.check(lines(IMPORT, 'await trainSchedule.getSchedul();'));
    expect(diagnostic!.closest).toEqual([{ name: 'trainSchedule.getSchedule', module: MODULE, signature: GET_SCHEDULE }]);
    const [other] = checker.check(lines(IMPORT, "await trainSchedule.trainDetails({ trainId: 'x' });"));
    expect(other!.closest?.map((h) => h.name)).toEqual(['trainSchedule.getTrainDetails']);
  });

  it('lists the closest exports of a module for a misspelt import', () => {
    const [diagnostic] = checker.check("import { trainSchedul } from '@capabilities/train-schedule';\nexport default trainSchedul;");
    expect(diagnostic!.closest?.[0]).toEqual({ name: 'trainSchedule', module: MODULE });
    const [type] = checker.check("import type { Trp } from '@capabilities/train-schedule';\nexport const t: Trp[] = [];");
    expect(type!.closest).toEqual([{ name: 'Trip', module: MODULE }]);
  });

  it('lists nothing when no declared name is close', () => {
    const [diagnostic] = checker.check(lines(IMPORT, 'await trainSchedule.sendTweet();'));
    expect(diagnostic!.code).toBe(2339);
    expect(diagnostic).not.toHaveProperty('closest');
  });
});

describe('formatDiagnostics with hints', () => {
  it('prints the signature of the function after the caret, and the closest names of a misspelt one', () => {
    const code = lines(IMPORT, 'await trainSchedule.getSchedule({ station: 42 });', 'await trainSchedule.getSchedul();');
    const [call, misspelt] = formatDiagnostics(code, checker.check(code)).split('\n\nagent.ts:3:21 - error TS2551: ');
    expect(call).toBe(
      [
        "agent.ts:2:35 - error TS2322: Type 'number' is not assignable to type 'string'.",
        '',
        '2 await trainSchedule.getSchedule({ station: 42 });',
        '                                    ^',
        'trainSchedule.getSchedule is declared as:',
        `  ${GET_SCHEDULE}  // from '${MODULE}'`,
      ].join('\n'),
    );
    expect(misspelt).toMatch(/^Property 'getSchedul' does not exist on type .*\n\n3 await trainSchedule\.getSchedul\(\);\n {22}\^\nDid you mean:\n/);
    expect(misspelt!.endsWith(`\nDid you mean:\n  ${GET_SCHEDULE}  // from '${MODULE}'`)).toBe(true);
  });
});
