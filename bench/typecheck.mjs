// Pre-run typecheck: time to create a typechecker, first check, repeated checks (new code each time), an identical
// re-check, a top-level-return script, a second typechecker in the same process (shared lib SourceFiles), 100
// concurrent checks of distinct scripts (batched into one program) and a session's first check and run.
// Build first: npx tsc -p packages/capabilities/tsconfig.json && npx tsc -p packages/compiler/tsconfig.json
// Run: node bench/typecheck.mjs
import { createRequire } from 'node:module';
import { performance } from 'node:perf_hooks';

const t0 = performance.now();
const { createTypechecker } = await import('@agent-spaces/compiler');
const importMs = performance.now() - t0;
const typescriptPath = createRequire(import.meta.url).resolve('typescript');
const typescriptLoadedAtImport = typescriptPath in createRequire(import.meta.url).cache;

const declarations = new Map([
  [
    'train-schedule.d.ts',
    `declare module '@capabilities/train-schedule' {
  export interface Trip { id: string; hour: number; minute: number; destination: string; platform: string }
  export interface TrainDetails { id: string; operator: string; stops: string[] }
  export interface GetScheduleParams { station?: string; date?: string }
  export interface GetTrainDetailsParams { trainId: string }
  export const trainSchedule: {
    getSchedule(params?: GetScheduleParams): Promise<Trip[]>;
    getTrainDetails(params: GetTrainDetailsParams): Promise<TrainDetails>;
  };
}`,
  ],
  [
    'notes.d.ts',
    `declare module '@capabilities/notes' {
  export const notes: { create(params: { title: string; content: string }): Promise<{ id: string }> };
}`,
  ],
  [
    'sandbox-globals.d.ts',
    `interface Console { log(...data: unknown[]): void; warn(...data: unknown[]): void; error(...data: unknown[]): void }
declare var console: Console;
declare class CapabilityError extends Error { readonly code: string; readonly capability: string; readonly function: string }`,
  ],
]);

const script = (n, ending) => `import { trainSchedule } from '@capabilities/train-schedule';
import { notes } from '@capabilities/notes';
const morning = (await trainSchedule.getSchedule({ station: 'Central' })).filter((t) => t.hour < ${n});
const note = await notes.create({ title: 'Morning Trains', content: morning.map((t) => \`\${t.hour}:\${t.minute} \${t.destination}\`).join('\\n') });
console.log(note.id);
${ending} { note, count: morning.length };`;

const time = (fn) => {
  const start = performance.now();
  const result = fn();
  return [performance.now() - start, result];
};
const timeAsync = async (fn) => {
  const start = performance.now();
  const result = await fn();
  return [performance.now() - start, result];
};
const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms) => `${ms.toFixed(2)} ms`;
const expectClean = (diagnostics) => {
  if (diagnostics.length > 0) throw new Error(`unexpected diagnostics: ${JSON.stringify(diagnostics)}`);
};

const [createMs, checker] = await timeAsync(() => createTypechecker({ declarations }));
const [firstMs, firstDiagnostics] = time(() => checker.check(script(12, 'export default')));
expectClean(firstDiagnostics);

const RUNS = 50;
const repeated = [];
for (let i = 0; i < RUNS; i++) repeated.push(time(() => checker.check(script(13 + i, 'export default')))[0]);
const identical = [];
for (let i = 0; i < RUNS; i++) identical.push(time(() => checker.check(script(12, 'export default')))[0]);
const withReturn = [];
for (let i = 0; i < RUNS; i++) withReturn.push(time(() => checker.check(script(100 + i, 'return')))[0]);

// 100 clients each asking for a check of their own script at once: one batch, one program. Against the same 100
// checks one by one (as before batching), in alternating rounds so both see the same machine load.
const CONCURRENT = 100;
const ROUNDS = 3;
const batched = [];
const oneByOne = [];
for (let round = 0; round < ROUNDS; round++) {
  const scripts = Array.from({ length: CONCURRENT }, (_, i) => script(1000 * (round + 1) + i, i % 2 ? 'return' : 'export default'));
  const [ms, results] = await timeAsync(() => Promise.all(scripts.map((code) => checker.checkBatched(code))));
  results.forEach(expectClean);
  batched.push(ms);
  const alone = scripts.map((code) => code.replace('t.hour <', 't.minute <'));
  oneByOne.push(time(() => alone.forEach((code) => expectClean(checker.check(code))))[0]);
}
const concurrentMs = median(batched);

// A new session's first check (the space's typechecker is warm), and a session run: its check, then remember.
const SESSIONS = 20;
const sessionFirst = [];
const sessionRun = [];
for (let i = 0; i < SESSIONS; i++) {
  const session = checker.createSession();
  const code = script(2000 + i, 'return');
  const [ms, diagnostics] = await timeAsync(() => session.check(code));
  expectClean(diagnostics);
  sessionFirst.push(ms);
  await session.remember(code);
  const next = `const late = morning.filter((t) => t.hour > ${i});\nconsole.log(note.id, late.length);`;
  sessionRun.push((await timeAsync(async () => (expectClean(await session.check(next)), await session.remember(next))))[0]);
}
checker.dispose();

const second = await createTypechecker({ declarations });
const [secondFirstMs] = time(() => second.check(script(7, 'export default')));
second.dispose();

const rows = [
  ['import @agent-spaces/compiler', `${fmt(importMs)} (typescript loaded: ${typescriptLoadedAtImport ? 'yes' : 'no'})`],
  ['createTypechecker (loads typescript)', fmt(createMs)],
  ['first check', fmt(firstMs)],
  [`repeated check, new code (median of ${RUNS})`, fmt(median(repeated))],
  [`identical re-check (median of ${RUNS})`, fmt(median(identical))],
  [`top-level return script (median of ${RUNS})`, fmt(median(withReturn))],
  ['second typechecker, first check', fmt(secondFirstMs)],
  [`${CONCURRENT} concurrent checks, distinct scripts (median of ${ROUNDS})`, `${fmt(concurrentMs)} total, ${fmt(concurrentMs / CONCURRENT)} per check`],
  [`the same ${CONCURRENT} checks one by one (median of ${ROUNDS})`, `${fmt(median(oneByOne))} total, ${fmt(median(oneByOne) / CONCURRENT)} per check`],
  [`session first check (median of ${SESSIONS})`, fmt(median(sessionFirst))],
  [`session run with bindings: check + remember (median of ${SESSIONS})`, fmt(median(sessionRun))],
  ['first check / repeated check', `${(firstMs / median(repeated)).toFixed(1)}x`],
  ['one by one / concurrent', `${(median(oneByOne) / concurrentMs).toFixed(1)}x`],
  ['second typechecker first check (a session before) / session first check', `${(secondFirstMs / median(sessionFirst)).toFixed(1)}x`],
];
console.log('pre-run typecheck (TypeScript language service, lib es2023)');
for (const [label, value] of rows) console.log(`  ${label.padEnd(72)} ${value}`);
