// Module hooks that let a child `node` process run the workspace's TypeScript sources, as vitest does: started with
// `--conditions=@agent-spaces/source --import <register.mjs>`, package entries resolve to `src/index.ts`, `./x.js`
// imports find `./x.ts`, and esbuild strips the types.
import { readFile } from 'node:fs/promises';
import { transform } from 'esbuild';

export async function resolve(specifier, context, next) {
  try {
    return await next(specifier, context);
  } catch (error) {
    if (error?.code === 'ERR_MODULE_NOT_FOUND' && /^\.{1,2}\//.test(specifier) && specifier.endsWith('.js')) {
      return next(`${specifier.slice(0, -3)}.ts`, context);
    }
    throw error;
  }
}

export async function load(url, context, next) {
  if (url.startsWith('file:') && /\.m?ts$/.test(new URL(url).pathname)) {
    const source = await readFile(new URL(url), 'utf8');
    const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'node20', sourcemap: 'inline', sourcefile: url });
    return { format: 'module', source: code, shortCircuit: true };
  }
  return next(url, context);
}
