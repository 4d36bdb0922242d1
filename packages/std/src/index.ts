import { buildStdModuleSource } from './module-source.js';

export { createStdCapability, type StdOptions } from './capability.js';
export { STD_DTS } from './dts.js';

/**
 * ES module source of `@agent-spaces/std` as the sandbox loads it: `json`, `csv` and `time` run in the sandbox;
 * `crypto`, `fs` and `http` import `call` from `agent-spaces:bridge` and run on the host as the `std` capability.
 * Bundled from `src/sandbox/` with esbuild when this package is first imported (cached on disk).
 */
export const STD_MODULE_SOURCE: string = buildStdModuleSource();
