/**
 * @agent-spaces/compiler: turns capability definitions into typed `@capabilities/*` modules, loads the project
 * config, and typechecks agent code. Every export here is public API: add one deliberately. Loading this module
 * never loads typescript or esbuild; they are imported on first use.
 */
export { buildCapabilities, type BuildOptions, type ConfigSource, type BuildProgress, type BuildReport } from './build.js';
export { listCapabilities, readDeclarations } from './catalog.js';
export { declarationsCatalog } from './emit/catalog-dts.js';
export { schemaDeclarations, type SchemaDeclarations } from './emit/schema-declarations.js';
export { hideDeclaredFunctions } from './emit/hide.js';
export { configSources } from './sources/config-sources.js';
export { SKILLS_DIR, SKILLS_ID, checkSkill, skillDeclarations, skillFiles, skillNameProblem, skillsModule, type CheckSkillOptions } from './skills.js';
export { shapeSkill, suggestSkill, type SkillShapeOptions } from './skill-shapes.js';
export { buildFreshness, type BuildFreshness } from './freshness.js';
export { readBuildInputs } from './build-state.js';
export { selfServers } from './sources/mcp-config.js';
export { inlineSource, isDefineToolValue } from './sources/inline.js';
export { readOpenApiSource, type OpenApiSourceConfig, type OpenApiSourceResult } from './sources/openapi/index.js';
/** Seed 003's `action_servers.json`: which servers become capabilities, and their capability ids. */
export { readActionServerEntries, type ActionServerEntry } from './sources/openapi/action-servers.js';
export type { SourceContext, SourceResult } from './sources/types.js';
export {
  CONFIG_FILE_NAMES,
  loadConfig,
  resolveConfig,
  type LoadConfigOptions,
  type LoadedConfig,
  type ResolvedConfig,
} from './config/load.js';
/**
 * The files besides the config that configure a project's MCP servers (the MCP client files, `.env`), and the editor
 * of a client file that `init --mcp` adds its snippet with.
 */
export { MCP_PROJECT_FILES, addClientServer } from '@agent-spaces/mcp/config';
export {
  createBoundedTypechecker,
  createTypechecker,
  formatDiagnostics,
  preloadTypechecker,
  type BoundedTypechecker,
  type BoundedTypecheckerOptions,
  type FunctionHint,
  type PreloadTypecheckerOptions,
  type TypecheckDiagnostic,
  type Typechecker,
  type TypecheckerOptions,
  type TypecheckSession,
} from './check/index.js';
