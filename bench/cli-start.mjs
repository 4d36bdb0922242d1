// `agent-spaces run` of a trivial script as a whole process: with its typecheck answered from the typecheck cache (the
// script checked before), with a cold typecheck (the cache emptied before each run), and with --no-check; the median
// and range of N runs each (default 7, after one warm-up), the kinds and checkouts alternating run by run.
// With `--baseline <checkout>` (another built checkout with its own node_modules, e.g. a `git worktree` of an older
// commit) the same figures for it, side by side, and the ratios of the medians. On Linux also the median CPU time
// (user + sys, with the children the run waited for, such as its sandbox process), less sensitive than wall time to
// other load.
// Build first: npm run build. Run: node bench/cli-start.mjs [runs] [--baseline /tmp/base]
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

const args = process.argv.slice(2);
const baselineAt = args.indexOf('--baseline');
const baseline = baselineAt >= 0 ? resolve(args.splice(baselineAt, 2)[1]) : undefined;
const runs = Number(args[0] ?? 7);
const here = fileURLToPath(new URL('..', import.meta.url));

const checkouts = [{ name: 'this checkout', root: here }, ...(baseline ? [{ name: 'baseline', root: baseline }] : [])].map(setUp);
const kinds = [
  { name: 'run, typecheck cached', args: [] },
  { name: 'run, typecheck cold', args: [], cold: true },
  { name: 'run --no-check', args: ['--no-check'] },
];
const times = new Map();
const cpuTimes = new Map();
for (let round = 0; round <= runs; round++) {
  for (const kind of kinds) {
    for (const checkout of checkouts) {
      const cpuBefore = childrenCpuSeconds();
      const ms = runOnce(checkout, kind);
      const cpu = childrenCpuSeconds() - cpuBefore;
      // Round 0 warms up (the disk cache, the typecheck cache).
      if (round === 0) continue;
      const key = `${checkout.name}\0${kind.name}`;
      times.set(key, [...(times.get(key) ?? []), ms]);
      cpuTimes.set(key, [...(cpuTimes.get(key) ?? []), cpu]);
    }
  }
}
console.log(`agent-spaces run agents/hello.ts (the init project), whole process, median (min–max) of ${runs} runs`);
for (const kind of kinds) {
  const keys = checkouts.map((checkout) => `${checkout.name}\0${kind.name}`);
  const cells = keys.map((key) => summary(times.get(key)));
  const cpu = keys.map((key) => median(cpuTimes.get(key)));
  const ratio = cells.length === 2 ? `   ratio ${(cells[0].median / cells[1].median).toFixed(2)}` : '';
  const cpuText = (i) => (Number.isNaN(cpu[i]) ? '' : `, CPU ${cpu[i].toFixed(2)} s`);
  console.log(`${kind.name.padEnd(24)} ${cells.map((cell, i) => `${checkouts[i].name}: ${cell.text}${cpuText(i)}`).join('   ')}${ratio}`);
}
for (const checkout of checkouts) rmSync(checkout.project, { recursive: true, force: true });

/** A project made by `agent-spaces init` for `checkout`, its node_modules linked to the checkout's, capabilities built. */
function setUp({ name, root }) {
  const project = mkdtempSync(join(tmpdir(), 'agent-spaces-cli-start-'));
  symlinkSync(join(root, 'node_modules'), join(project, 'node_modules'));
  const bin = join(root, 'packages/cli/bin/agent-spaces.js');
  for (const command of [['init'], ['capabilities', 'build']]) {
    const result = spawnSync(bin, command, { cwd: project, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`${name}: agent-spaces ${command.join(' ')} failed: ${result.stderr}`);
  }
  return { name, root, project, bin };
}

/** Wall milliseconds of one `agent-spaces run`, as a user starts it: the bin itself, so its shebang picks node's flags. */
function runOnce({ project, bin }, kind) {
  if (kind.cold) rmSync(join(project, '.agent-spaces/cache/typecheck'), { recursive: true, force: true });
  const start = performance.now();
  const result = spawnSync(bin, ['run', ...kind.args, 'agents/hello.ts'], { cwd: project, encoding: 'utf8' });
  const ms = performance.now() - start;
  if (result.status !== 0) throw new Error(`agent-spaces run failed: ${result.stderr}`);
  return ms;
}

function summary(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = median(values);
  return { median: middle, text: `${(middle / 1000).toFixed(3)} s (${(sorted[0] / 1000).toFixed(3)}–${(sorted.at(-1) / 1000).toFixed(3)})` };
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

/**
 * CPU seconds (user + sys) of this process's children that ended, with theirs (Linux `/proc/self/stat` cutime and
 * cstime, in clock ticks of 1/100 s); NaN elsewhere.
 */
function childrenCpuSeconds() {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}
