// Plain `tsc -p agents` on the project `agent-spaces init` writes reports what `agent-spaces check` reports, script by
// script: the real typescript binary from node_modules over the generated tsconfig, against the real CLI.
import { execFile } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../../test/fixtures/cli.js';
import { makeProject } from '../../../test/fixtures/project.js';

let app: string;

/** One diagnostic as both tools locate it. */
interface Located {
  line: number;
  column: number;
  code: number;
}

/** `tsc -p agents` in the project: its exit code, output, and its diagnostics by file (`agents/x.ts`). */
function tsc(): Promise<{ code: number; output: string; byFile: Map<string, Located[]> }> {
  const bin = join(app, 'node_modules/typescript/bin/tsc');
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, '-p', 'agents', '--pretty', 'false'], { cwd: app, timeout: 60_000 }, (error, stdout, stderr) => {
      const output = stdout + stderr;
      const byFile = new Map<string, Located[]>();
      for (const [, file, line, column, code] of output.matchAll(/^(\S[^(\n]*)\((\d+),(\d+)\): error TS(\d+):/gm)) {
        byFile.set(file!, [...(byFile.get(file!) ?? []), { line: Number(line), column: Number(column), code: Number(code) }]);
      }
      resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, output, byFile });
    });
  });
}

/** `agent-spaces check <file> --json`: its diagnostics, located as tsc locates them. */
async function check(file: string): Promise<Located[]> {
  const result = await runCli(app, ['check', file, '--json']);
  const { diagnostics } = JSON.parse(result.stdout) as { diagnostics: Located[] };
  expect(result.code).toBe(diagnostics.length === 0 ? 0 : 1);
  return diagnostics.map(({ line, column, code }) => ({ line, column, code }));
}

beforeAll(async () => {
  app = (await makeProject({}, { nodeModules: true })).dir;
  expect((await runCli(app, ['init'])).code).toBe(0);
  const build = await runCli(app, ['capabilities', 'build']);
  expect(build.code, build.stderr).toBe(0);
}, 120_000);

const GREET = "import { hello } from '@capabilities/hello';\n";

/** Scripts that `check` rejects, each for another reason; tsc must say the same, at the same places. */
const REJECTED: Record<string, string> = {
  'wrong-argument.ts': `${GREET}await hello.greet({ name: 42 });\nawait hello.greet();\n`,
  'unknown-capability.ts': "import { weather } from '@capabilities/weather';\nconsole.log(weather);\n",
  'typo.ts': `${GREET}const { mesage } = await hello.greet({ name: 'x' });\nawait hello.gret({ name: 'x' });\nconsole.log(mesage);\n`,
  'node-globals.ts': "process.exit(1);\nconst fs = require('node:fs');\nawait fetch('https://example.com');\nsetTimeout(() => undefined, 1);\nconsole.log(fs, document.title);\n",
  // Packages of node_modules are not importable in the sandbox: tsc must not resolve them (nor check their .d.ts).
  'host-packages.ts': "import { z } from 'zod';\nimport { defineTool } from '@agent-spaces/capabilities';\nimport fs from 'node:fs';\nconsole.log(z, defineTool, fs);\n",
  'std-misuse.ts': "import { json, csv } from '@agent-spaces/std';\nconst n: number = json.stringify({});\nconsole.log(n, csv.nope);\n",
  'sandbox-errors.ts': `${GREET}try {\n  await hello.greet({ name: 'x' });\n} catch (e) {\n  if (e instanceof CapabilityError && e.code === 'NOT_A_CODE') console.log(e.callId.length);\n}\n`,
  'strictness.ts': 'function twice(x) {\n  return x * 2;\n}\nconst s: string | undefined = undefined as string | undefined;\nconsole.log(twice(1), s.length);\n',
};

describe('tsc -p agents on the init project', () => {
  it('is clean, also with a script that uses @agent-spaces/std and the sandbox globals (no errors from the packages)', async () => {
    const clean = await tsc();
    expect(clean).toMatchObject({ code: 0, output: '' });
    await writeFile(
      join(app, 'agents/uses-std.ts'),
      `${GREET}import { json } from '@agent-spaces/std';\ntry {\n  const { message } = await hello.greet({ name: json.stringify({ a: 1 }) });\n  console.info(message);\n} catch (e) {\n  if (e instanceof CapabilityError && e.code === 'RATE_LIMITED') console.warn(e.capability);\n}\nexport default { ok: true };\n`,
    );
    expect(await tsc()).toMatchObject({ code: 0, output: '' });
    expect(await check('agents/uses-std.ts')).toEqual([]);
  });

  it('reports what check reports, script by script: file, line, column and code', { timeout: 180_000 }, async () => {
    for (const [name, text] of Object.entries(REJECTED)) await writeFile(join(app, 'agents', name), text);
    const { code, byFile } = await tsc();
    expect(code).toBe(2);
    expect([...byFile.keys()].sort()).toEqual(Object.keys(REJECTED).map((name) => `agents/${name}`).sort());
    for (const name of Object.keys(REJECTED)) {
      const file = `agents/${name}`;
      const expected = await check(file);
      expect(expected.length, file).toBeGreaterThan(0);
      expect(byFile.get(file), file).toEqual(expected);
    }
  });

  it('differs only by TS1108 at a top-level return, which check accepts; export default is clean for both', { timeout: 120_000 }, async () => {
    await writeFile(join(app, 'agents/returns.ts'), `${GREET}const { message } = await hello.greet({ name: 'x' });\nif (!message) return null;\nreturn { message };\n`);
    const { byFile } = await tsc();
    expect(byFile.get('agents/returns.ts')).toEqual([
      { line: 3, column: 15, code: 1108 },
      { line: 4, column: 1, code: 1108 },
    ]);
    expect(await check('agents/returns.ts')).toEqual([]);
    expect(byFile.has('agents/uses-std.ts')).toBe(false); // its `export default` result
  });

  it("takes an existing project's old fragment over at the next build, leaving its agents/tsconfig.json as it is", { timeout: 120_000 }, async () => {
    const mine = await readFile(join(app, 'agents/tsconfig.json'), 'utf8');
    // The fragment earlier versions wrote: a type root instead of files, and resolution into node_modules.
    const old = { compilerOptions: { strict: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', moduleDetection: 'force', lib: ['es2023'], noEmit: true, typeRoots: ['./types'], types: ['agent-spaces'], paths: { '@capabilities/*': ['./capabilities/*/index.d.ts'] } } };
    await writeFile(join(app, '.agent-spaces/tsconfig.json'), JSON.stringify(old));
    const references = ['../../capabilities.d.ts', './agent-spaces-std.d.ts', './sandbox-globals.d.ts'];
    await writeFile(join(app, '.agent-spaces/types/agent-spaces/index.d.ts'), references.map((path) => `/// <reference path="${path}" />\n`).join(''));
    await writeFile(join(app, 'agents/uses-std.ts'), "import { json } from '@agent-spaces/std';\nexport default json.stringify(1);\n");
    expect([...(await tsc()).byFile.keys()].some((file) => file.includes('node_modules'))).toBe(true);
    const build = await runCli(app, ['capabilities', 'build']);
    expect(build.stderr).toContain('0 built, 1 unchanged, 0 failed');
    expect([...(await tsc()).byFile.keys()].some((file) => file.includes('node_modules'))).toBe(false);
    expect(await readFile(join(app, 'agents/tsconfig.json'), 'utf8')).toBe(mine);
  });
});
