/**
 * `@agent-spaces/bridge/output`: the one reader of the build output folder (docs/output-layout.md) and the writer of
 * what runs observe into it, for every package that reads what a build wrote (the bridge itself, the compiler, the
 * SDK, the server). It loads node builtins and `@agent-spaces/capabilities` only (no executor, validator, MCP client or
 * tracing), so the compiler may import it statically. The
 * names and paths of the files are `@agent-spaces/capabilities`' (`OUTPUT_FILES`, `CAPABILITY_FILES`, `builtFile`).
 */
export { readCatalog } from './output/catalog.js';
export { listBuiltCapabilities, readBuiltFile, readBuiltJson } from './output/files.js';
export { readBuiltMeta } from './output/meta.js';
export { resolveCapabilityNames } from './output/names.js';
export { ResultRecorder, readObserved } from './output/observed.js';
