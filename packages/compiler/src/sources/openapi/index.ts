/** The `openapi` source: OpenAPI / Swagger servers as capabilities (see docs/openapi.md). */
export { readActionServers, type ActionServers, type OpenApiSourceConfig } from './config.js';
export { readOpenApiSourceFile } from './file.js';
export { DISCOVERY_PATHS, type DiscoveryAttempt } from './load.js';
export { readOpenApiSource, type OpenApiSourceResult } from './source.js';
