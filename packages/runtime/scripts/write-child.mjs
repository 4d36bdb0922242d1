// Writes the bundled entry of a sandbox process (its child side, src/process/child/main.ts) to dist/process-child.mjs,
// which ProcessSandbox forks; from the sources it is bundled on first use instead. Run by `npm run build` after tsc and
// write-prelude.mjs (the prelude is inlined).
import { writeFileSync } from 'node:fs';
import { CHILD_FILE, bundleChild } from '../dist/process/parent/child-entry.js';

writeFileSync(new URL(`../dist/${CHILD_FILE}`, import.meta.url), await bundleChild());
