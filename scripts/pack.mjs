// `npm run pack`: builds every package and writes the tarballs a user installs into their own app to packs/
// (git-ignored), each with the LICENSE and CHANGELOG.md of the repository. Install them all at once:
//   npm install /path/to/agent-spaces/packs/*.tgz
// Exits 1 when the packages' versions disagree with the root package.json (scripts/version.mjs) or the build fails.
// `npm run pack -- --no-build` packs the dist/ folders as they are (CI, right after its build).
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const packs = `${root}packs`;
const run = (command, args, cwd = root) => execFileSync(command, args, { cwd, stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8' });

try {
  run(process.execPath, ['scripts/version.mjs', '--check']);
} catch {
  process.exit(1);
}
if (!process.argv.includes('--no-build')) {
  try {
    execFileSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  } catch {
    console.error('pack: `npm run build` failed; nothing packed');
    process.exit(1);
  }
}
rmSync(packs, { recursive: true, force: true });
mkdirSync(packs);
const written = [];
for (const dir of readdirSync(`${root}packages`).sort()) {
  const folder = `${root}packages/${dir}`;
  const copies = ['LICENSE', 'CHANGELOG.md'].map((name) => `${folder}/${name}`);
  try {
    for (const copy of copies) copyFileSync(`${root}${copy.split('/').at(-1)}`, copy);
    const [result] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', packs], folder));
    written.push(result.filename);
  } finally {
    for (const copy of copies) rmSync(copy, { force: true });
  }
}
let total = 0;
for (const file of written) {
  const size = statSync(`${packs}/${file}`).size;
  total += size;
  console.log(`${file.padEnd(44)} ${(size / 1024).toFixed(0).padStart(6)} KiB`);
}
console.log(`${written.length} tarballs, ${(total / 1024).toFixed(0)} KiB in ${packs}`);
console.log(`Install them into your app with: npm install ${packs}/*.tgz`);
