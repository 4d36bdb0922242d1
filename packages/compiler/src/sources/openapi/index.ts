/** The `openapi` source: OpenAPI / Swagger servers as capabilities (see docs/openapi.md). */
export { readActionServers, type OpenApiSourceConfig } from './config.js';
export { readOpenApiSourceFile } from './file.js';
export { readOpenApiSource, type OpenApiSourceResult } from './source.js';
