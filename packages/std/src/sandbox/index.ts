/**
 * The `@agent-spaces/std` module as agent code sees it. `json`, `csv` and `time` run inside the sandbox; `crypto`, `fs`
 * and `http` call the host through `agent-spaces:bridge`, where their params are validated and the space's policy applies.
 * Bundled into `STD_MODULE_SOURCE` by esbuild; declared for agent code by `STD_DTS`.
 */
export { csv } from './csv.js';
export { StdError } from './errors.js';
export { crypto, fs, http } from './host.js';
export { json } from './json.js';
export { time } from './time.js';
