// The one version of the whole set of packages lives in the root package.json ("version"). This script writes it into
// every packages/*/package.json (its "version" and its "@agent-spaces/*" dependencies), with the metadata every
// published package carries (license, engines, repository, CHANGELOG.md in "files"). `--check` changes nothing and exits 1 when a package
// disagrees (`npm run pack` runs it first).
//   node scripts/version.mjs [--check] [new-version]
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const args = process.argv.slice(2);
const check = args.includes('--check');
const wanted = args.find((arg) => !arg.startsWith('--'));

const rootFile = `${root}package.json`;
const rootPkg = JSON.parse(readFileSync(rootFile, 'utf8'));
if (wanted) {
  if (!/^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?$/.test(wanted)) {
    console.error(`version: "${wanted}" is not a semver version (1.2.3 or 1.2.3-beta.1)`);
    process.exit(2);
  }
  rootPkg.version = wanted;
  if (!check) writeFileSync(rootFile, `${JSON.stringify(rootPkg, null, 2)}\n`);
}
const version = rootPkg.version;

/** What every package says besides its own fields, from the root package.json. */
const shared = (dir) => ({
  license: rootPkg.license,
  engines: rootPkg.engines,
  repository: { ...rootPkg.repository, directory: `packages/${dir}` },
});

const problems = [];
for (const dir of readdirSync(`${root}packages`).sort()) {
  const file = `${root}packages/${dir}/package.json`;
  let text;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    continue;
  }
  const pkg = JSON.parse(text);
  const next = { ...pkg, version, ...shared(dir) };
  // npm packs LICENSE by itself; the changelog only when listed (scripts/pack.mjs copies both in).
  if (Array.isArray(pkg.files) && !pkg.files.includes('CHANGELOG.md')) next.files = [...pkg.files, 'CHANGELOG.md'];
  for (const field of ['dependencies', 'devDependencies', 'peerDependencies']) {
    if (!pkg[field]) continue;
    next[field] = Object.fromEntries(Object.entries(pkg[field]).map(([name, range]) => [name, name.startsWith('@agent-spaces/') ? version : range]));
  }
  // Field order as written, new fields after "license".
  const ordered = {};
  for (const key of Object.keys(pkg)) {
    ordered[key] = next[key];
    if (key === 'license') for (const extra of ['engines', 'repository']) if (!(extra in pkg)) ordered[extra] = next[extra];
  }
  const after = `${JSON.stringify(ordered, null, 2)}\n`;
  if (JSON.stringify(ordered) === JSON.stringify(pkg)) continue;
  if (check) problems.push(`packages/${dir}/package.json`);
  else writeFileSync(file, after);
}
if (problems.length > 0) {
  console.error(`version: ${problems.join(', ')} disagree${problems.length === 1 ? 's' : ''} with the root package.json (${version}); run \`node scripts/version.mjs\``);
  process.exit(1);
}
console.log(check ? `version: every package is ${version}` : `version: every package set to ${version}`);
