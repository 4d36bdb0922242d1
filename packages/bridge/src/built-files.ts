import { CAPABILITY_FILES, builtFile, capabilityDir, type CapabilityConfig, type ExecutorSpec, type JsonSchema, type McpTaskSupport, type ObjectSchema } from '@agent-spaces/capabilities';
import { FieldReader } from './output/fields.js';
import { readBuiltJson } from './output/files.js';
import { readBuiltMeta } from './output/meta.js';

/** One function of a built capability: its `meta.json` entry joined with its `schema.json` schemas. */
interface BuiltFunction {
  name: string;
  sourceName: string;
  requiresApproval: boolean;
  approvalMessage: string | undefined;
  /** How the MCP tool runs as a task (`meta.json`'s `task`). */
  task: McpTaskSupport | undefined;
  parameters: ObjectSchema;
  returns: JsonSchema | undefined;
}

/** The checked content of a built capability's `meta.json` and `schema.json`. */
export interface BuiltCapability {
  id: string;
  exportName: string;
  dir: string;
  config: CapabilityConfig;
  executor: ExecutorSpec;
  functions: BuiltFunction[];
}

/**
 * Reads and checks `<outDir>/<id>/{meta,schema}.json` (`meta.json` through the one reader of it, `readBuiltMeta`), and
 * joins each function with its schemas; every problem is an `AgentSpacesError` naming file and field.
 */
export function readBuiltCapability(outDir: string, id: string): BuiltCapability {
  const meta = readBuiltMeta(outDir, id);
  const fields = new FieldReader(builtFile(outDir, id, CAPABILITY_FILES.schema));
  const schemaFunctions = fields.object(fields.object(readBuiltJson(outDir, id, CAPABILITY_FILES.schema), '').functions, '/functions');
  const functions = meta.functions.map(({ name, sourceName, requiresApproval, approvalMessage, task }): BuiltFunction => {
    const key = Object.hasOwn(schemaFunctions, name) ? name : sourceName;
    if (!Object.hasOwn(schemaFunctions, key)) fields.fail(`/functions/${name}`, 'is missing');
    const schemas = fields.object(schemaFunctions[key], `/functions/${key}`);
    const parameters = fields.object(schemas.parameters, `/functions/${key}/parameters`);
    if (parameters.type !== 'object') fields.fail(`/functions/${key}/parameters/type`, "must be 'object'");
    return {
      name,
      sourceName,
      requiresApproval: requiresApproval ?? false,
      approvalMessage,
      task,
      parameters: parameters as unknown as ObjectSchema,
      returns: schemas.returns === undefined ? undefined : (fields.object(schemas.returns, `/functions/${key}/returns`) as JsonSchema),
    };
  });
  return { id, exportName: meta.exportName, dir: capabilityDir(outDir, id), config: meta.config, executor: meta.executor, functions };
}
