import type { ConfigSource } from '../build.js';
import type { ResolvedConfig } from '../config/load.js';
import { mcpServerSources } from './mcp-config.js';
import { readOpenApiSource } from './openapi/source.js';
import { npmLabel, readNpmSource } from './npm/source.js';

/**
 * The sources a config declares outside `capabilities`: one per MCP server (`mcpServers`, labelled
 * `mcpServers.<name>`), one per OpenAPI source (`openapi`, labelled `openapi.<name>`) and one per npm package named in
 * `capabilities` (labelled `npm:<package>`). Each is read on every
 * build; see {@link ConfigSource}.
 */
export function configSources(config: ResolvedConfig): ConfigSource[] {
  const openapi = config.openapi.map((source): ConfigSource => {
    const label = `openapi.${source.name}`;
    return {
      label,
      async read(context) {
        const result = await readOpenApiSource(source, context);
        return { ...result, capabilities: result.capabilities.map((c) => ({ ...c, source: { kind: 'openapi', file: label } })) };
      },
    };
  });
  const packages = config.packages.map((source): ConfigSource => ({ label: npmLabel(source), read: (context) => readNpmSource(source, context) }));
  return [...mcpServerSources(config.mcpServers, config.mcpSelfUrls), ...openapi, ...packages];
}
