// Bundles a package's compiled entry points (tsc output in dist/) into one ES module each, dist/<entry>.bundle.js,
// which its package.json exports. Node's ESM loader costs heap per module: one module per package instead of one per
// source file saves about 5 MiB of RSS in a process that runs agent code (bench/runtime.mjs), and loads faster.
// Other packages stay external, except those named by --inline (with everything they import): bundled, a CommonJS
// package of many files loads several times faster and in less heap. A dynamic import() of the package's own files
// (or of an inlined package) becomes a chunk loaded on demand.
// Run from a package folder after tsc: node ../../scripts/bundle.mjs index [more entries] [--inline name,name]
import { readdirSync, rmSync } from 'node:fs';
import { build } from 'esbuild';

const args = process.argv.slice(2);
const at = args.indexOf('--inline');
const inline = new Set(at === -1 ? [] : args.splice(at, 2)[1]?.split(',') ?? []);
const entries = args;
if (entries.length === 0) {
  console.error('usage: node ../../scripts/bundle.mjs <entry in dist/, without .js> [...] [--inline package,package]');
  process.exit(2);
}

/** `packages: 'external'`, but for the packages in `inline` and whatever their files import. */
const externalPackages = {
  name: 'external-packages',
  setup(builder) {
    builder.onResolve({ filter: /^[^./]/ }, ({ path, importer }) => {
      const name = path.startsWith('@') ? path.split('/', 2).join('/') : path.split('/', 1)[0];
      if (inline.has(name) || importer.includes('/node_modules/')) return undefined;
      return { path, external: true };
    });
  },
};

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
  plugins: [externalPackages],
  logLevel: 'warning',
});
