// Bundles a package's compiled entry points (tsc output in dist/) into one ES module each, dist/<entry>.bundle.js,
// which its package.json exports. Node's ESM loader costs heap per module: one module per package instead of one per
// source file saves about 5 MiB of RSS in a process that runs agent code (bench/runtime.mjs), and loads faster.
// Other packages stay external, and a dynamic import() of the package's own files becomes a chunk loaded on demand.
// Run from a package folder after tsc: node ../../scripts/bundle.mjs index [more entries]
import { readdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const entries = process.argv.slice(2);
if (entries.length === 0) {
  console.error('usage: node ../../scripts/bundle.mjs <entry in dist/, without .js> [...]');
  process.exit(2);
}

// Chunks of earlier builds (their names change with their content).
for (const file of readdirSync('dist')) if (file.includes('.chunk-')) rmSync(`dist/${file}`);

await build({
  entryPoints: entries.map((name) => `./dist/${name}.js`),
  outdir: 'dist',
  // Chunks sit next to the entries: code that finds files through import.meta.url resolves them from dist/ as before.
  entryNames: '[name].bundle',
  chunkNames: '[name].chunk-[hash]',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  packages: 'external',
  logLevel: 'warning',
});
