// Pre-run typecheck: time to create a typechecker, first check, repeated checks (new code each time), an identical
// re-check, a top-level-return script, and a second typechecker in the same process (shared lib SourceFiles).
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
const median = (values) => values.toSorted((a, b) => a - b)[Math.floor(values.length / 2)];
const fmt = (ms) => `${ms.toFixed(2)} ms`;

const [createMs, checker] = await (async () => {
  const start = performance.now();
  const c = await createTypechecker({ declarations });
  return [performance.now() - start, c];
})();
const [firstMs, firstDiagnostics] = time(() => checker.check(script(12, 'export default')));
if (firstDiagnostics.length > 0) throw new Error(`unexpected diagnostics: ${JSON.stringify(firstDiagnostics)}`);

const RUNS = 50;
const repeated = [];
for (let i = 0; i < RUNS; i++) repeated.push(time(() => checker.check(script(13 + i, 'export default')))[0]);
const identical = [];
for (let i = 0; i < RUNS; i++) identical.push(time(() => checker.check(script(12, 'export default')))[0]);
const withReturn = [];
for (let i = 0; i < RUNS; i++) withReturn.push(time(() => checker.check(script(100 + i, 'return')))[0]);
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
  ['first check / repeated check', `${(firstMs / median(repeated)).toFixed(1)}x`],
];
console.log('pre-run typecheck (TypeScript language service, lib es2023)');
for (const [label, value] of rows) console.log(`  ${label.padEnd(44)} ${value}`);
