// bench/editor.mjs — what @agent-spaces/ts-plugin costs an editor: the real tsserver (as an editor runs it, loading
// the plugin the generated tsconfig names) on a project built with the SDK's sandbox declarations. Prints the time to
// the first diagnostics of a script without a top-level `return` (the project's own language service) and of one with
// it (the plugin's second language service starts then), and the median time of the diagnostics after each of 20
// edits of each script, with the ratio: the price of a keystroke in a script with a top-level `return`.
// Run after `npm run build`: node bench/editor.mjs
import { copyFile, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildCapabilities } from '@agent-spaces/compiler';
import { SANDBOX_DECLARATIONS } from '@agent-spaces/sdk';
import { startTsServer } from '../test/fixtures/tsserver.mjs';

const EDITS = 20;
const body = (i) =>
  `import { trainSchedule } from '@capabilities/trains';\nconst trips = await trainSchedule.getSchedule({ station: 'Central ${i}' });\nconst early = trips.filter((t) => t.hour < ${i % 24});\n`;
const plain = (i) => `${body(i)}export default early.map((t) => t.id);\n`;
const returning = (i) => `${body(i)}if (early.length === 0) return null;\nreturn early.map((t) => t.id);\n`;

const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const dir = await mkdtemp(join(tmpdir(), 'agent-spaces-editor-bench-'));
try {
  await symlink(fileURLToPath(new URL('../node_modules', import.meta.url)), join(dir, 'node_modules'));
  await mkdir(join(dir, 'capabilities'));
  await mkdir(join(dir, 'agents'));
  await copyFile(fileURLToPath(new URL('../test/fixtures/trains.json', import.meta.url)), join(dir, 'capabilities/trains.json'));
  await writeFile(join(dir, 'agents/tsconfig.json'), JSON.stringify({ extends: '../.agent-spaces/tsconfig.json', include: ['*.ts'] }));
  const files = { plain: join(dir, 'agents/plain.ts'), returning: join(dir, 'agents/returning.ts') };
  await writeFile(files.plain, plain(0));
  await writeFile(files.returning, returning(0));
  await buildCapabilities({ rootDir: dir, sources: ['capabilities/*.json'], sandboxDeclarations: SANDBOX_DECLARATIONS });

  const tsserver = startTsServer();
  try {
    const timed = async (file, text) => {
      const started = performance.now();
      const diagnostics = await tsserver.semanticDiagnostics(file, text);
      if (diagnostics.length > 0) throw new Error(`${file}: ${diagnostics.map((d) => `${d.line}:${d.column} TS${d.code} ${d.text}`).join('; ')}`);
      return performance.now() - started;
    };
    const firstPlain = await timed(files.plain);
    const firstReturning = await timed(files.returning);
    const edits = { plain: [], returning: [] };
    for (let i = 1; i <= EDITS; i++) {
      edits.plain.push(await timed(files.plain, plain(i)));
      edits.returning.push(await timed(files.returning, returning(i)));
    }
    console.log('tsserver with @agent-spaces/ts-plugin (semantic diagnostics of one agent script)');
    console.log(`  first, no top-level return (project start included)   ${firstPlain.toFixed(0).padStart(6)} ms`);
    console.log(`  first, top-level return (the plugin's service starts)  ${firstReturning.toFixed(0).padStart(6)} ms`);
    const [p, r] = [median(edits.plain), median(edits.returning)];
    console.log(`  after an edit, median of ${EDITS}: no return ${p.toFixed(1)} ms, top-level return ${r.toFixed(1)} ms (${(r / p).toFixed(2)}×)`);
  } finally {
    await tsserver.close();
  }
} finally {
  await rm(dir, { recursive: true, force: true });
}
