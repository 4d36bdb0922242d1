// Module hooks of conformance-node.mjs: the conformance CLI's 'fs' gains a `globSync` (Node 20 has none).
const FS_WITH_GLOB_SYNC = `data:text/javascript,${encodeURIComponent(
  "import fs from 'node:fs'; export * from 'node:fs'; export default fs; " +
    "export function globSync() { throw new Error('globSync needs Node 22 (conformance tier-check only)'); }",
)}`;

export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes('/@modelcontextprotocol/conformance/')) {
    return { url: FS_WITH_GLOB_SYNC, shortCircuit: true };
  }
  return next(specifier, context);
}
