/**
 * The one parser of `meta.json` (what was built, from what, and where calls go): every reader of a built
 * capability's meta — the bridge loading it, the compiler's freshness check and `capabilities list`, the resolver of
 * capability names, the SDK finding the MCP servers a space needs — gets it checked and typed from
 * {@link readBuiltMeta}.
 */
import {
  CAPABILITY_FILES,
  RATE_PERIODS,
  builtFile,
  isRatePeriod,
  type CapabilityConfig,
  type CapabilityMeta,
  type ExecutorSpec,
  type McpTaskSupport,
  type PackageDependency,
  type PackageInfo,
  type SourceKind,
} from '@agent-spaces/capabilities';
import { readOpenApiExecutorSpec } from '../executors/openapi-spec.js';
import { FieldReader } from './fields.js';
import { readBuiltJson } from './files.js';

/** Every source kind, so a `meta.json` naming another one is refused. */
const SOURCE_KINDS: Readonly<Record<SourceKind, true>> = { json: true, 'define-tool': true, mcp: true, openapi: true, npm: true, skill: true };

const PACKAGE_MODES: readonly PackageInfo['mode'][] = ['sandbox', 'host'];

const TASK_SUPPORT: readonly McpTaskSupport[] = ['required', 'optional'];

/**
 * The `meta.json` of capability `id` in `dir` (a `capabilitiesDir`), read and checked: every field of
 * `CapabilityMeta` has its type, `id` is the folder's, no function is listed twice, the executor is one the bridge
 * runs. Throws as `readBuiltJson`
 * (`CAPABILITY_NOT_FOUND`, `INVALID_JSON`), and `INVALID_DEFINITION` naming the file and the JSON pointer of the
 * first bad field.
 */
export function readBuiltMeta(dir: string, id: string): CapabilityMeta {
  const fields = new FieldReader(builtFile(dir, id, CAPABILITY_FILES.meta));
  const root = fields.object(readBuiltJson(dir, id, CAPABILITY_FILES.meta), '');
  const metaId = fields.string(root.id, '/id');
  if (metaId !== id) fields.fail('/id', `is '${metaId}' but the folder is '${id}'`);
  const source = fields.object(root.source, '/source');
  const kind = fields.string(source.kind, '/source/kind');
  if (!Object.hasOwn(SOURCE_KINDS, kind)) fields.fail('/source/kind', `must be one of ${Object.keys(SOURCE_KINDS).join(', ')}`);
  const description = root.description === undefined ? undefined : fields.text(root.description, '/description');
  const compilerVersion = root.compilerVersion === undefined ? undefined : fields.text(root.compilerVersion, '/compilerVersion');
  return {
    id,
    exportName: fields.string(root.exportName, '/exportName'),
    sourceName: fields.string(root.sourceName, '/sourceName'),
    ...(description !== undefined ? { description } : {}),
    version: fields.text(root.version, '/version'),
    source: { kind: kind as SourceKind, file: fields.string(source.file, '/source/file') },
    contentHash: fields.text(root.contentHash, '/contentHash'),
    ...(compilerVersion !== undefined ? { compilerVersion } : {}),
    ...(root.inputs !== undefined ? { inputs: fields.strings(root.inputs, '/inputs') } : {}),
    config: readConfig(fields, root.config),
    executor: readExecutor(fields, root.executor),
    functions: readFunctions(fields, root.functions),
    ...(root.package !== undefined ? { package: readPackage(fields, root.package) } : {}),
    ...(root.dependencies !== undefined ? { dependencies: readDependencies(fields, root.dependencies) } : {}),
    builtAt: fields.text(root.builtAt, '/builtAt'),
  };
}

/** The functions, each named once. */
function readFunctions(fields: FieldReader, raw: unknown): CapabilityMeta['functions'] {
  const names = new Set<string>();
  return fields.array(raw, '/functions').map((item, index) => {
    const fn = readFunction(fields, item, `/functions/${index}`);
    if (names.has(fn.name)) fields.fail(`/functions/${index}/name`, `'${fn.name}' is listed twice`);
    names.add(fn.name);
    return fn;
  });
}

function readFunction(fields: FieldReader, raw: unknown, at: string): CapabilityMeta['functions'][number] {
  const entry = fields.object(raw, at);
  const requiresApproval = fields.optionalBoolean(entry.requiresApproval, `${at}/requiresApproval`);
  const approvalMessage = fields.optionalString(entry.approvalMessage, `${at}/approvalMessage`);
  const hostApprovalMessage = fields.optionalBoolean(entry.hostApprovalMessage, `${at}/hostApprovalMessage`);
  const task = entry.task;
  if (task !== undefined && !TASK_SUPPORT.includes(task as McpTaskSupport)) fields.fail(`${at}/task`, `must be one of ${TASK_SUPPORT.join(', ')}`);
  return {
    name: fields.string(entry.name, `${at}/name`),
    sourceName: fields.string(entry.sourceName, `${at}/sourceName`),
    ...(requiresApproval !== undefined ? { requiresApproval } : {}),
    ...(approvalMessage !== undefined ? { approvalMessage } : {}),
    ...(hostApprovalMessage !== undefined ? { hostApprovalMessage } : {}),
    ...(task !== undefined ? { task: task as McpTaskSupport } : {}),
  };
}

/** The capability's `config` (absent: `{}`): `requiresApproval` and a `rateLimit` of a positive count per period. */
function readConfig(fields: FieldReader, raw: unknown): CapabilityConfig {
  if (raw === undefined) return {};
  const config = fields.object(raw, '/config');
  const requiresApproval = fields.optionalBoolean(config.requiresApproval, '/config/requiresApproval');
  const result: CapabilityConfig = requiresApproval === undefined ? {} : { requiresApproval };
  if (config.rateLimit !== undefined) {
    const limit = fields.object(config.rateLimit, '/config/rateLimit');
    const requests = limit.requests;
    if (typeof requests !== 'number' || !(requests > 0)) fields.fail('/config/rateLimit/requests', 'must be a positive number');
    const period = limit.period;
    if (!isRatePeriod(period)) fields.fail('/config/rateLimit/period', `must be a positive number of ms or one of ${RATE_PERIODS.join(', ')}`);
    const per = limit.per;
    if (per !== undefined && per !== 'space' && per !== 'user') fields.fail('/config/rateLimit/per', 'must be "space" or "user"');
    result.rateLimit = { requests, period, ...(per === 'user' ? { per } : {}) };
  }
  return result;
}

function readExecutor(fields: FieldReader, raw: unknown): ExecutorSpec {
  const executor = fields.object(raw, '/executor');
  switch (executor.kind) {
    case 'module': {
      const module = fields.string(executor.module, '/executor/module');
      const exportName = fields.optionalString(executor.export, '/executor/export');
      return exportName === undefined ? { kind: 'module', module } : { kind: 'module', module, export: exportName };
    }
    case 'http': {
      const url = fields.string(executor.url, '/executor/url');
      if (!URL.canParse(url)) fields.fail('/executor/url', `is not a URL: ${url}`);
      if (executor.headers === undefined) return { kind: 'http', url };
      return { kind: 'http', url, headers: fields.strings(executor.headers, '/executor/headers') };
    }
    case 'runtime':
      return { kind: 'runtime' };
    case 'openapi':
      return readOpenApiExecutorSpec(executor, (pointer, problem) => fields.fail(`/executor${pointer}`, problem));
    case 'mcp': {
      const server = fields.string(executor.server, '/executor/server');
      const toolsHash = fields.optionalString(executor.toolsHash, '/executor/toolsHash');
      return toolsHash === undefined ? { kind: 'mcp', server } : { kind: 'mcp', server, toolsHash };
    }
    default:
      return fields.fail('/executor/kind', `${JSON.stringify(executor.kind)} is not an executor this bridge runs (module, http, runtime, openapi, mcp)`);
  }
}

function readPackage(fields: FieldReader, raw: unknown): PackageInfo {
  const pkg = fields.object(raw, '/package');
  const mode = pkg.mode as PackageInfo['mode'];
  if (!PACKAGE_MODES.includes(mode)) fields.fail('/package/mode', `must be one of ${PACKAGE_MODES.join(', ')}`);
  return { name: fields.string(pkg.name, '/package/name'), version: fields.text(pkg.version, '/package/version'), mode };
}

function readDependencies(fields: FieldReader, raw: unknown): PackageDependency[] {
  return fields.array(raw, '/dependencies').map((item, index) => {
    const dependency = fields.object(item, `/dependencies/${index}`);
    return { name: fields.string(dependency.name, `/dependencies/${index}/name`), version: fields.text(dependency.version, `/dependencies/${index}/version`) };
  });
}
