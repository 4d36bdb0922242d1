// The generated editor tsconfig judges agent code as `check` does: a project built with the SDK's sandbox
// declarations, an `agents/tsconfig.json` extending `.agent-spaces/tsconfig.json` as `init` writes it, and what
// TypeScript reports over it against `space.check()`, for scripts using every sandbox feature and scripts using what
// the sandbox lacks, each also with a top-level `return`. What an editor reports comes from the real tsserver, which
// loads the tsconfig's plugin (@agent-spaces/ts-plugin, built) from node_modules; TypeScript's own program (`tsc`,
// which loads no plugin) agrees on scripts without a top-level `return`. The project sees the repository's
// node_modules, where `@agent-spaces/std` is the host package: the editor must still see the sandbox's module.
import { copyFile, mkdir, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildCapabilities } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS, createSpace, type Space } from '@agent-spaces/sdk';
import { startTsServer, type TsServer } from '../../../test/fixtures/tsserver.mjs';
import { makeProject, type Project } from '../../../test/fixtures/project.js';

const repo = fileURLToPath(new URL('../../../', import.meta.url));

/** A script using every sandbox feature; its result given with `export default` or, in `RETURNING`, a top-level `return`. */
const FEATURES = [
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

/** Scripts the sandbox runs, by file name. */
const ACCEPTED: Record<string, string> = {
  features: FEATURES,
  'features-returning': FEATURES.replace('export default {', 'if (trips.length === 0) return null;\nreturn {'),
  'bare-return': 'console.log(1);\nif (Date.now() > 0) return;\nconsole.log(2);',
  'return-in-blocks': "import { trainSchedule } from '@capabilities/trains';\ntry {\n  for (const trip of await trainSchedule.getSchedule()) {\n    if (trip.hour > 9) return trip.id;\n  }\n} catch {\n  return 'failed';\n}\nreturn 'none';",
  'return-in-label-and-switch': 'const n = [1, 2].length;\nouter: {\n  switch (n) {\n    case 2:\n      return `two ${n}`;\n    default:\n      break outer;\n  }\n}\nreturn null;',
  'return-only': 'return;',
  'return-with-declarations': "interface Pick { id: string }\ntype Picks = Pick[];\nenum Level { Low, High }\nfunction pick(id: string): Pick {\n  return { id };\n}\nconst picks: Picks = [pick('a')];\nreturn { picks, level: Level.High };",
};

/** Scripts `check` rejects (in the same places in `returning-*`, where a top-level `return` follows them). */
const REJECTED: [string, string][] = [
  ['Node globals', 'console.log(process.env.HOME);'],
  ['require', "const fs = require('node:fs');\nconsole.log(fs);"],
  ['timers', 'setTimeout(() => {}, 10);'],
  ['the DOM', 'console.log(document.title);'],
  ['an unknown std helper', "import { sleep } from '@agent-spaces/std';\nawait sleep(1);"],
  ['a wrong param type', "import { trainSchedule } from '@capabilities/trains';\nawait trainSchedule.getSchedule({ station: 1 });"],
  ['an unknown capability', "import { x } from '@capabilities/nope';\nconsole.log(x);"],
  ['an unknown error code', "const c: CapabilityErrorCode = 'NOPE';\nconsole.log(c);"],
];
const withReturn = (code: string) => `${code}\nif (Date.now() < 0) return 'never';`;

/** Scripts whose problem is in or next to their top-level `return`. */
const REJECTED_RETURNING: [string, string][] = [
  ['a misuse in the returned expression', "import { trainSchedule } from '@capabilities/trains';\nreturn trainSchedule.getSchedule({ station: 1 });"],
  ['a Node global in a nested return', 'for (const x of [1, 2]) {\n  if (x > 1) return process.env.HOME;\n}'],
  ['export default next to a return', "if (Date.now() < 0) return 1;\nexport default 'two';"],
  ['a typo in the returned value', "const trips = [1, 2];\nreturn trip.length;"],
  ['a return in a class static block', 'class Box {\n  static {\n    return;\n  }\n}\nreturn Box;'],
  ['a misuse after an early return', "if (Date.now() > 0) return 1;\nconst n: number = 'one';\nconsole.log(n);"],
  ['an await of a misspelt call in the return', "import { trainSchedule } from '@capabilities/trains';\nreturn (await trainSchedule.getSchedul()).length;"],
];

const files: Record<string, string> = { ...ACCEPTED };
REJECTED.forEach(([, code], i) => {
  files[`rejected-${i}`] = code;
  files[`returning-${i}`] = withReturn(code);
});
REJECTED_RETURNING.forEach(([, code], i) => (files[`returning-only-${i}`] = code));

let project: Project;
let space: Space;
let tsserver: TsServer;
let program: ts.Program;

/** What `tsc -p agents` reports for `agents/<name>.ts`: TypeScript's own program over `agents/tsconfig.json`. */
function tscCodes(name: string): number[] {
  program ??= (() => {
    const parsed = ts.getParsedCommandLineOfConfigFile(project.path('agents/tsconfig.json'), {}, {
      ...ts.sys,
      onUnRecoverableConfigFileDiagnostic: (d) => {
        throw new Error(ts.flattenDiagnosticMessageText(d.messageText, '\n'));
      },
    })!;
    expect(parsed.errors).toEqual([]);
    const created = ts.createProgram({ rootNames: parsed.fileNames, options: parsed.options });
    const global = [...created.getOptionsDiagnostics(), ...created.getGlobalDiagnostics()];
    expect(global.map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))).toEqual([]);
    return created;
  })();
  const source = program.getSourceFile(join(project.dir, 'agents', `${name}.ts`))!;
  return ts.getPreEmitDiagnostics(program, source).filter((d) => d.file === source).map((d) => d.code);
}

/** What an editor underlines in `agents/<name>.ts`, in order. */
async function editorDiagnostics(name: string): Promise<{ code: number; line: number; column: number }[]> {
  return (await tsserver.semanticDiagnostics(join(project.dir, 'agents', `${name}.ts`))).map(({ code, line, column }) => ({ code, line, column }));
}

/** What `check` reports for `agents/<name>.ts`, in order. */
async function checkDiagnostics(name: string): Promise<{ code: number; line: number; column: number }[]> {
  return (await space.check(files[name]!)).map(({ code, line, column }) => ({ code, line, column }));
}

beforeAll(async () => {
  project = await makeProject();
  await symlink(join(repo, 'node_modules'), project.path('node_modules'));
  await mkdir(project.path('capabilities'));
  await mkdir(project.path('agents'));
  await copyFile(join(repo, 'test/fixtures/trains.json'), project.path('capabilities/trains.json'));
  // As `agent-spaces init` writes it.
  await project.write({ 'agents/tsconfig.json': { extends: '../.agent-spaces/tsconfig.json', include: ['*.ts'] } });
  for (const [name, code] of Object.entries(files)) await writeFile(join(project.dir, 'agents', `${name}.ts`), code);
  // A stricter folder of scripts: the options of the extending file apply, never to the wrapper around a script.
  await mkdir(project.path('strict'));
  await project.write({
    'strict/tsconfig.json': { extends: '../.agent-spaces/tsconfig.json', compilerOptions: { noUnusedLocals: true }, include: ['*.ts'] },
    'strict/returning.ts': 'const unused = 1;\nconst used = 2;\nreturn used;',
  });
  const report = await buildCapabilities({ rootDir: project.dir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS });
  expect(report.totals.failed).toBe(0);
  space = await createSpace({ rootDir: project.dir, policies: { audit: false } });
  tsserver = startTsServer();
}, 60_000);

afterAll(async () => {
  await tsserver?.close();
  await space?.close();
});

describe('the editor tsconfig', () => {
  it.each(Object.keys(ACCEPTED))('accepts %s, as check does', async (name) => {
    expect(await checkDiagnostics(name)).toEqual([]);
    expect(await editorDiagnostics(name)).toEqual([]);
  });

  it('is all tsc needs for scripts without a top-level return; tsc (no plugins) still reports one as TS1108', async () => {
    expect(tscCodes('features')).toEqual([]);
    expect(tscCodes('features-returning')).toEqual([1108, 1108]);
  });

  it.each(REJECTED.map(([label], i) => [label, i] as const))('rejects %s where check does, with and without a top-level return', async (_, i) => {
    const fromCheck = await checkDiagnostics(`rejected-${i}`);
    expect(fromCheck.length).toBeGreaterThan(0);
    expect(tscCodes(`rejected-${i}`)).toEqual(fromCheck.map((d) => d.code));
    expect(await editorDiagnostics(`rejected-${i}`)).toEqual(fromCheck);
    const returning = await checkDiagnostics(`returning-${i}`);
    expect(returning).toEqual(fromCheck);
    expect(await editorDiagnostics(`returning-${i}`)).toEqual(returning);
  });

  it.each(REJECTED_RETURNING.map(([label], i) => [label, i] as const))('rejects %s where check does', async (_, i) => {
    const fromCheck = await checkDiagnostics(`returning-only-${i}`);
    expect(fromCheck.length).toBeGreaterThan(0);
    expect(fromCheck.map((d) => d.code)).not.toContain(1108);
    expect(await editorDiagnostics(`returning-only-${i}`)).toEqual(fromCheck);
  });

  it("applies the extending tsconfig's options to the script, never to the wrapper around it", async () => {
    const diagnostics = await tsserver.semanticDiagnostics(project.path('strict/returning.ts'));
    expect(diagnostics.map(({ code, line, column, text }) => ({ code, line, column, text }))).toEqual([
      { code: 6133, line: 1, column: 7, text: "'unused' is declared but its value is never read." },
    ]);
  });
});
