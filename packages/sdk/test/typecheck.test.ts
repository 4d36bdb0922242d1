import { afterAll, describe, expect, it } from 'vitest';
import { Typecheck } from '../src/typecheck.js';

const declarations = new Map([['sandbox-globals.d.ts', 'interface Console { log(...data: unknown[]): void }\ndeclare var console: Console;']]);
const space = new Typecheck(declarations);
afterAll(() => space.dispose());

const codes = (diagnostics: { code: number }[]) => diagnostics.map((d) => d.code);

describe('Typecheck of a space and its sessions', () => {
  it('gives the next check of a session the bindings of its remembered run, and no one else', async () => {
    const session = space.session();
    const other = space.session();
    expect(await session.check('const total = 1;')).toEqual([]);
    // Remembered without waiting: the session's next check still sees it.
    session.remember('const total = 1;');
    const [mine, theirs, spaces] = await Promise.all([
      session.check('const s: string = total;'),
      other.check('export default total;'),
      space.check('export default total;'),
    ]);
    expect(codes(mine)).toEqual([2322]);
    expect(codes(theirs)).toEqual([2304]);
    expect(codes(spaces)).toEqual([2304]);
  });

  it('records nothing for a session once it is disposed, nor for the space', async () => {
    const session = space.session();
    session.dispose();
    session.remember('const closedOver = 1;');
    space.remember('const atSpace = 1;');
    expect(codes(await session.check('export default closedOver;'))).toEqual([2304]);
    expect(codes(await space.check('export default atSpace;'))).toEqual([2304]);
  });

  it('formats diagnostics with the agent file name and a caret', async () => {
    const code = 'const n: number = "x";';
    expect(await space.format(code, await space.check(code), 'a.ts')).toContain("a.ts:1:7 - error TS2322: Type 'string' is not assignable to type 'number'.");
  });
});
