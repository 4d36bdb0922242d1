// The generated editor tsconfig judges agent code as `check` does: a project built with the SDK's sandbox
// declarations, an `agents/tsconfig.json` extending `.agent-spaces/tsconfig.json` as `init` writes it, and TypeScript's
// own program over it (what `tsc` and an editor see) against `space.check()`, for scripts using every sandbox feature
// and scripts using what the sandbox lacks. The project sees the repository's node_modules, where `@agent-spaces/std`
// is the host package: the editor must still see the sandbox's module.
import { mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS, createSpace, type Space } from '@agent-spaces/sdk';

const repo = fileURLToPath(new URL('../', import.meta.url));
const TRAINS = {
  name: 'trainSchedule',
  functions: [
    {
      name: 'getSchedule',
      parameters: { type: 'object', properties: { station: { type: 'string' } } },
      returns: { type: 'array', items: { type: 'object', properties: { id: { type: 'string' }, hour: { type: 'integer' } }, required: ['id', 'hour'] } },
    },
  ],
  executor: { kind: 'runtime' },
};

let dir: string;
let space: Space;

/** What TypeScript reports for `agents/<name>` in the program of `agents/tsconfig.json`, as `tsc -p agents` would. */
async function editorCodes(name: string, code: string): Promise<number[]> {
  const file = join(dir, 'agents', name);
  await writeFile(file, code);
  const parsed = ts.getParsedCommandLineOfConfigFile(join(dir, 'agents/tsconfig.json'), {}, {
    ...ts.sys,
    onUnRecoverableConfigFileDiagnostic: (d) => {
      throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    },
  })!;
  expect(parsed.errors).toEqual([]);
  const program = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
  const global = [...program.getOptionsDiagnostics(), ...program.getGlobalDiagnostics()];
  expect(global.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
  const source = program.getSourceFile(file)!;
  return ts.getPreEmitDiagnostics(program, source).filter((d) => d.file === source).map((d) => d.code);
}

async function checkCodes(code: string): Promise<number[]> {
  return (await space.check(code)).map((d) => d.code);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agent-spaces-editor-'));
  await symlink(join(repo, 'node_modules'), join(dir, 'node_modules'));
  await mkdir(join(dir, 'capabilities'));
  await mkdir(join(dir, 'agents'));
  await writeFile(join(dir, 'capabilities/trains.json'), JSON.stringify(TRAINS));
  // As `agent-spaces init` writes it.
  await writeFile(join(dir, 'agents/tsconfig.json'), JSON.stringify({ extends: '../.agent-spaces/tsconfig.json', include: ['*.ts'] }));
  const report = await buildCapabilities({ rootDir: dir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS });
  expect(report.totals.failed).toBe(0);
  space = await createSpace({ rootDir: dir, policies: { audit: false } });
}, 60_000);

afterAll(async () => {
  await space?.close();
  await rm(dir, { recursive: true, force: true });
});

describe('the editor tsconfig', () => {
  it('accepts a script using every sandbox feature, as check does', async () => {
    const code = [
      "import { trainSchedule, getSchedule, type GetScheduleResultItem } from '@capabilities/trains';",
      "import { json, csv, time } from '@agent-spaces/std';",
      "const trips: GetScheduleResultItem[] = await trainSchedule.getSchedule({ station: 'Central' });",
      'const again = await getSchedule();',
      'let failure: CapabilityErrorCode | undefined;',
      'try {',
      '  await trainSchedule.getSchedule({});',
      '} catch (e) {',
      '  if (e instanceof ApprovalDeniedError) console.warn(e.capability);',
      '  else if (e instanceof CapabilityError) failure = e.code;',
      '}',
      'console.log(json.stringify(trips), csv, time, again.length, new Map([[1, 2]]), [1, 2].findLast((n) => n > 1));',
      'export default { trips, failure };',
    ].join('\n');
    expect(await checkCodes(code)).toEqual([]);
    expect(await editorCodes('features.ts', code)).toEqual([]);
  });

  it.each([
    ['Node globals', 'console.log(process.env.HOME);'],
    ['require', "const fs = require('node:fs');\nconsole.log(fs);"],
    ['timers', 'setTimeout(() => {}, 10);'],
    ['the DOM', 'console.log(document.title);'],
    ['an unknown std helper', "import { sleep } from '@agent-spaces/std';\nawait sleep(1);"],
    ['a wrong param type', "import { trainSchedule } from '@capabilities/trains';\nawait trainSchedule.getSchedule({ station: 1 });"],
    ['an unknown capability', "import { x } from '@capabilities/nope';\nconsole.log(x);"],
    ['an unknown error code', "const c: CapabilityErrorCode = 'NOPE';\nconsole.log(c);"],
  ])('rejects %s, as check does', async (_, code) => {
    const fromCheck = await checkCodes(code);
    expect(fromCheck.length).toBeGreaterThan(0);
    expect(await editorCodes('rejected.ts', code)).toEqual(fromCheck);
  });
});
