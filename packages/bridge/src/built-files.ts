import {
  AgentSpacesError,
  CAPABILITY_FILES,
  builtFile,
  capabilityDir,
  readBuiltJson,
  type CapabilityConfig,
  type ExecutorSpec,
  type JsonSchema,
  type ObjectSchema,
} from '@agent-spaces/capabilities';
import { readOpenApiExecutorSpec } from './executors/openapi-spec.js';

/** The executors this bridge runs. */
type SupportedExecutor = Extract<ExecutorSpec, { kind: 'module' | 'http' | 'runtime' | 'openapi' | 'mcp' }>;

/** One function of a built capability: its `meta.json` entry joined with its `schema.json` schemas. */
interface BuiltFunction {
  name: string;
  sourceName: string;
  requiresApproval: boolean;
  approvalMessage: string | undefined;
  parameters: ObjectSchema;
  returns: JsonSchema | undefined;
}

/** The checked content of a built capability's `meta.json` and `schema.json`. */
export interface BuiltCapability {
  id: string;
  exportName: string;
  dir: string;
  config: CapabilityConfig;
  executor: SupportedExecutor;
  functions: BuiltFunction[];
}

/**
 * Reads (through `@agent-spaces/capabilities`' layout) and checks `<outDir>/<id>/{meta,schema}.json`; every problem is
 * an `AgentSpacesError` naming file and field.
 */
export function readBuiltCapability(outDir: string, id: string): BuiltCapability {
  const metaFile = builtFile(outDir, id, CAPABILITY_FILES.meta);
  const schemaFile = builtFile(outDir, id, CAPABILITY_FILES.schema);
  const meta = readBuiltJson(outDir, id, CAPABILITY_FILES.meta);
  const schema = readBuiltJson(outDir, id, CAPABILITY_FILES.schema);

  const m = new Reader(metaFile);
  const metaRoot = m.object(meta, '');
  const metaId = m.string(metaRoot.id, '/id');
  if (metaId !== id) m.fail('/id', `is '${metaId}' but the folder is '${id}'`);
  const config = readConfig(m, metaRoot.config);

  const s = new Reader(schemaFile);
  const schemaFunctions = s.object(s.object(schema, '').functions, '/functions');
  const functions = m.array(metaRoot.functions, '/functions').map((raw, index): BuiltFunction => {
    const at = `/functions/${index}`;
    const entry = m.object(raw, at);
    const name = m.string(entry.name, `${at}/name`);
    const sourceName = m.string(entry.sourceName, `${at}/sourceName`);
    const key = Object.hasOwn(schemaFunctions, name) ? name : sourceName;
    if (!Object.hasOwn(schemaFunctions, key)) s.fail(`/functions/${name}`, 'is missing');
    const schemas = s.object(schemaFunctions[key], `/functions/${key}`);
    const parameters = s.object(schemas.parameters, `/functions/${key}/parameters`);
    if (parameters.type !== 'object') s.fail(`/functions/${key}/parameters/type`, "must be 'object'");
    return {
      name,
      sourceName,
      requiresApproval: m.optionalBoolean(entry.requiresApproval, `${at}/requiresApproval`) ?? false,
      approvalMessage: m.optionalString(entry.approvalMessage, `${at}/approvalMessage`),
      parameters: parameters as unknown as ObjectSchema,
      returns: schemas.returns === undefined ? undefined : (s.object(schemas.returns, `/functions/${key}/returns`) as JsonSchema),
    };
  });

  return {
    id,
    exportName: m.string(metaRoot.exportName, '/exportName'),
    dir: capabilityDir(outDir, id),
    config,
    executor: readExecutor(m, metaRoot.executor),
    functions,
  };
}

function readConfig(m: Reader, raw: unknown): CapabilityConfig {
  if (raw === undefined) return {};
  const config = m.object(raw, '/config');
  const requiresApproval = m.optionalBoolean(config.requiresApproval, '/config/requiresApproval');
  const result: CapabilityConfig = requiresApproval === undefined ? {} : { requiresApproval };
  if (config.rateLimit !== undefined) {
    const limit = m.object(config.rateLimit, '/config/rateLimit');
    const requests = limit.requests;
    if (typeof requests !== 'number' || !(requests > 0)) m.fail('/config/rateLimit/requests', 'must be a positive number');
    const period = limit.period;
    const periods = ['second', 'minute', 'hour', 'day'];
    if (!(typeof period === 'number' && period > 0) && !periods.includes(period as string)) {
      m.fail('/config/rateLimit/period', `must be a positive number of ms or one of ${periods.join(', ')}`);
    }
    result.rateLimit = { requests, period } as NonNullable<CapabilityConfig['rateLimit']>;
  }
  return result;
}

function readExecutor(m: Reader, raw: unknown): SupportedExecutor {
  const executor = m.object(raw, '/executor');
  switch (executor.kind) {
    case 'module': {
      const module = m.string(executor.module, '/executor/module');
      const exportName = m.optionalString(executor.export, '/executor/export');
      return exportName === undefined ? { kind: 'module', module } : { kind: 'module', module, export: exportName };
    }
    case 'http': {
      const url = m.string(executor.url, '/executor/url');
      if (!URL.canParse(url)) m.fail('/executor/url', `is not a URL: ${url}`);
      if (executor.headers === undefined) return { kind: 'http', url };
      const headers = m.object(executor.headers, '/executor/headers');
      for (const [name, value] of Object.entries(headers)) m.string(value, `/executor/headers/${name}`);
      return { kind: 'http', url, headers: headers as Record<string, string> };
    }
    case 'runtime':
      return { kind: 'runtime' };
    case 'openapi':
      return readOpenApiExecutorSpec(executor, (pointer, problem) => m.fail(`/executor${pointer}`, problem));
    case 'mcp': {
      const server = m.string(executor.server, '/executor/server');
      const toolsHash = m.optionalString(executor.toolsHash, '/executor/toolsHash');
      return toolsHash === undefined ? { kind: 'mcp', server } : { kind: 'mcp', server, toolsHash };
    }
    default:
      return m.fail('/executor/kind', `${JSON.stringify(executor.kind)} is not an executor this bridge runs (module, http, runtime, openapi, mcp)`);
  }
}

/** Shape checks that fail with `INVALID_DEFINITION` naming the file and the JSON pointer of the field. */
class Reader {
  constructor(readonly file: string) {}

  fail(pointer: string, problem: string): never {
    throw new AgentSpacesError('INVALID_DEFINITION', `${this.file}: ${pointer || '(root)'} ${problem}`, {
      file: this.file,
      pointer,
    });
  }

  object(value: unknown, pointer: string): Record<string, unknown> {
    if (typeof value !== 'object' || value === null || Array.isArray(value)) this.fail(pointer, 'must be an object');
    return value as Record<string, unknown>;
  }

  array(value: unknown, pointer: string): unknown[] {
    if (!Array.isArray(value)) this.fail(pointer, 'must be an array');
    return value;
  }

  string(value: unknown, pointer: string): string {
    if (typeof value !== 'string' || value === '') this.fail(pointer, 'must be a non-empty string');
    return value;
  }

  optionalString(value: unknown, pointer: string): string | undefined {
    return value === undefined ? undefined : this.string(value, pointer);
  }

  optionalBoolean(value: unknown, pointer: string): boolean | undefined {
    if (value !== undefined && typeof value !== 'boolean') this.fail(pointer, 'must be a boolean');
    return value as boolean | undefined;
  }
}
