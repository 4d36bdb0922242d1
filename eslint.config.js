// Lint for the monorepo: typescript-eslint's recommended rules, plus the import rules of docs/architecture.md
// ("Rules that lint enforces"). Run with `npm run lint` (eslint, then knip).
import { builtinModules } from 'node:module';
import js from '@eslint/js';
import { defineConfig } from 'eslint/config';
import { createTypeScriptImportResolver } from 'eslint-import-resolver-typescript';
import importX from 'eslint-plugin-import-x';
import globals from 'globals';
import tseslint from 'typescript-eslint';

const PACKAGES = ['capabilities', 'compiler', 'runtime', 'bridge', 'mcp', 'std', 'sdk', 'server', 'cli', 'ts-plugin'];

/** A regex for module names and their subpaths (`typescript`, `typescript/lib/x`); `exact` leaves subpaths out. */
const modules = (names, { exact = false } = {}) =>
  `^(${names.map((name) => name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})${exact ? '' : '(/.*)?'}$`;
/** The workspace packages not listed. */
const workspaceExcept = (...allowed) => PACKAGES.filter((p) => !allowed.includes(p)).map((p) => `@agent-spaces/${p}`);
/** Modules the architecture forbids to this package, even as types. */
const never = (names, why, options) => ({ regex: modules(names, options), caseSensitive: true, message: `docs/architecture.md: ${why}` });
/** Modules this package loads on first use only: `import type` and `import()` are fine, a static import is not. */
const lazy = (names, why, options) => ({ ...never(names, why, options), allowTypeImports: true, message: `import() it on first use: ${why}` });

const LAZY_HEAVY = ['typescript', '@modelcontextprotocol/sdk', 'ai'];

/**
 * One named rule per architecture rule (each a copy of @typescript-eslint/no-restricted-imports, which checks static
 * import/export only, never import()), so overlapping globs add up instead of overriding each other, and a report
 * names the rule it breaks: `arch/runtime`, `arch/isolated-vm`, ...
 */
const boundaries = [
  // capabilities: "may import nothing".
  { name: 'capabilities', files: ['packages/capabilities/src/**'], patterns: [never(workspaceExcept(), 'capabilities imports no workspace package')] },
  // capabilities is the contract: it touches no file, process, socket or timer module (the build output is read and
  // observed results written by @agent-spaces/bridge/output); moduleEntry (cache-module.ts) is the one exception.
  {
    name: 'capabilities-io',
    files: ['packages/capabilities/src/**'],
    ignores: ['packages/capabilities/src/cache-module.ts'],
    patterns: [
      {
        regex: '^(node:)?(fs|child_process|net|http|https|http2|dgram|worker_threads|cluster|timers)(/.*)?$',
        caseSensitive: true,
        message: 'docs/architecture.md: capabilities does no I/O (a reader or writer goes to the package that owns that I/O)',
      },
    ],
  },
  // compiler: "capabilities, mcp (discovery), bridge (its build-output reader; validators lazily), esbuild, typescript and swagger-parser (lazily)"; the MCP SDK comes through mcp.
  {
    name: 'compiler',
    files: ['packages/compiler/src/**'],
    patterns: [
      never([...workspaceExcept('capabilities', 'mcp', 'bridge'), '@modelcontextprotocol/sdk'], 'the compiler imports capabilities, mcp and bridge only'),
      lazy(['typescript', 'esbuild', '@apidevtools/swagger-parser', 'yaml'], 'loading the compiler never loads typescript or esbuild'),
      lazy(['@agent-spaces/bridge'], 'loading the compiler never loads the root of the bridge (executors, policies, tracing); @agent-spaces/bridge/output is light', { exact: true }),
    ],
  },
  // compiler: the root of mcp loads the MCP SDK, so only the lazily imported MCP source imports it statically.
  {
    name: 'compiler-mcp',
    files: ['packages/compiler/src/**'],
    ignores: ['packages/compiler/src/sources/mcp.ts'],
    patterns: [lazy(['@agent-spaces/mcp'], 'the root of @agent-spaces/mcp loads the MCP SDK (or import @agent-spaces/mcp/config)', { exact: true })],
  },
  // runtime: "capabilities, isolated-vm, esbuild, acorn"; "never imports typescript or the MCP SDK".
  {
    name: 'runtime',
    files: ['packages/runtime/src/**'],
    patterns: [never([...workspaceExcept('capabilities'), ...LAZY_HEAVY], 'the runtime imports capabilities only, never typescript or the MCP SDK')],
  },
  // runtime: "the child side of a sandbox process trusts its parent and never imports the parent side, nor a transpiler".
  {
    name: 'runtime-child',
    files: ['packages/runtime/src/process/child/**'],
    patterns: [
      never(['../parent', '../../script', '../../sandbox.js', 'esbuild', 'acorn'], 'the child side executes prepared runs: it never imports the parent side or script/'),
    ],
  },
  // runtime: "isolate/ executes prepared runs, in the host and in the child alike: it prepares nothing (script/ as types only)".
  {
    name: 'runtime-isolate',
    files: ['packages/runtime/src/isolate/**'],
    patterns: [
      never(['../process', '../sandbox.js', 'esbuild', 'acorn'], 'isolate/ is bundled into the sandbox process: it never imports the process sides or the in-process Sandbox'),
      { ...never(['../script'], 'isolate/ executes prepared runs: it imports script/ as types only'), allowTypeImports: true },
    ],
  },
  // bridge: "capabilities, mcp, ajv"; the root of mcp (the MCP SDK) only lazily, as the sdk's entry imports the bridge.
  {
    name: 'bridge',
    files: ['packages/bridge/src/**'],
    patterns: [
      never([...workspaceExcept('capabilities', 'mcp'), ...LAZY_HEAVY], 'the bridge imports capabilities and mcp only, never typescript or the MCP SDK'),
      lazy(['@agent-spaces/mcp'], 'the root of @agent-spaces/mcp loads the MCP SDK, and the sdk entry imports the bridge', { exact: true }),
    ],
  },
  // mcp: "capabilities, the MCP SDK".
  { name: 'mcp', files: ['packages/mcp/src/**'], patterns: [never(workspaceExcept('capabilities'), 'mcp imports capabilities only')] },
  // std: "capabilities, bridge (types)".
  {
    name: 'std',
    files: ['packages/std/src/**'],
    patterns: [
      never([...workspaceExcept('capabilities', 'bridge'), ...LAZY_HEAVY], 'std imports capabilities and bridge types only'),
      { ...never(['@agent-spaces/bridge'], 'std imports only types from the bridge'), allowTypeImports: true },
    ],
  },
  // sdk: "all of the above", not server or cli; the compiler lazily, and its entry never loads typescript or the MCP SDK.
  {
    name: 'sdk',
    files: ['packages/sdk/src/**'],
    patterns: [
      never(['@agent-spaces/sdk', '@agent-spaces/server', '@agent-spaces/cli'], 'the sdk never imports server or cli'),
      lazy([...LAZY_HEAVY, '@agent-spaces/compiler'], "the SDK's entry does not load typescript or the MCP SDK"),
      lazy(['@agent-spaces/mcp'], 'the root of @agent-spaces/mcp loads the MCP SDK', { exact: true }),
    ],
  },
  // server: "sdk, bridge, compiler, capabilities, the MCP SDK".
  {
    name: 'server',
    files: ['packages/server/src/**'],
    patterns: [never(workspaceExcept('sdk', 'bridge', 'compiler', 'capabilities'), 'the server imports sdk, bridge, compiler and capabilities only')],
  },
  // cli: "sdk, compiler, server (lazily)" and capabilities; its entry never loads typescript or the MCP SDK.
  {
    name: 'cli',
    files: ['packages/cli/src/**'],
    patterns: [
      never(workspaceExcept('sdk', 'compiler', 'server', 'capabilities'), 'the cli imports sdk, compiler, server and capabilities only'),
      lazy([...LAZY_HEAVY, '@agent-spaces/sdk', '@agent-spaces/compiler', '@agent-spaces/server'], "the CLI's entry does not load typescript or the MCP SDK"),
    ],
  },
  // ts-plugin: "the compiler's script module (bundled in), typescript as types only (tsserver hands it its own)".
  {
    name: 'ts-plugin',
    files: ['packages/ts-plugin/src/**'],
    patterns: [
      never([...workspaceExcept('compiler'), '@modelcontextprotocol/sdk', 'ai'], 'the plugin bundles @agent-spaces/compiler/script only'),
      never(['@agent-spaces/compiler'], 'the plugin bundles @agent-spaces/compiler/script only (the root loads every source kind)', { exact: true }),
      { ...never(['typescript'], 'the plugin uses the typescript instance tsserver gives it'), allowTypeImports: true },
    ],
  },
  // isolated-vm "appears only in the runtime's isolate/ folder".
  {
    name: 'isolated-vm',
    files: ['packages/*/src/**'],
    ignores: ['packages/runtime/src/isolate/**'],
    patterns: [never(['isolated-vm'], "isolated-vm is imported only in the runtime's isolate/ folder")],
  },
  // stores: the audit log's files are written and read only through the store interfaces (bridge/src/stores/); the
  // package entries re-export the file readers for tests and benches.
  {
    name: 'stores',
    files: ['packages/*/src/**'],
    ignores: ['packages/bridge/src/stores/**', 'packages/bridge/src/index.ts', 'packages/sdk/src/index.ts'],
    patterns: [
      {
        regex: '(^|/)audit-(log|read)\\.js$|^@agent-spaces/(bridge|sdk)$',
        importNames: ['AuditLog', 'auditLogFile', 'auditLogFiles', 'readAuditLog', 'streamAuditLogs'],
        message: 'docs/architecture.md: the audit log is read and written through AuditStore / AuditArchive (bridge/src/stores/)',
      },
    ],
  },
  // Code bundled into the isolate (the runtime's prelude, std's sandbox half) has no node builtins to import.
  {
    name: 'sandbox-code',
    files: ['packages/runtime/src/prelude/**', 'packages/std/src/sandbox/**'],
    patterns: [{ ...never(builtinModules, 'this code runs inside the isolate, where node has no builtins'), regex: `^node:|${modules(builtinModules)}` }],
  },
];

const restrictedImports = tseslint.plugin.rules['no-restricted-imports'];
const arch = { rules: Object.fromEntries(boundaries.map(({ name }) => [name, restrictedImports])) };

export default defineConfig(
  { ignores: ['**/dist/**', '**/node_modules/**', '**/.agent-spaces/**', 'packages/compiler/test/golden/**'] },
  {
    files: [
      'packages/*/{src,test,scripts,bin}/**/*.{ts,mts,js,mjs}',
      '{test,bench,scripts}/**/*.{ts,mts,js,mjs}',
      '*.{ts,js}',
    ],
    extends: [js.configs.recommended, tseslint.configs.recommended],
    languageOptions: { globals: globals.node },
    plugins: { arch },
    rules: {
      // A `let` that closures read before its one assignment (late binding) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  // Code shape of every package: no function over 80 lines (STYLE.md), no import circle within a package (a type-only
  // import is left out: it is gone from the JavaScript), external and workspace packages not followed.
  {
    files: ['packages/*/src/**/*.ts'],
    plugins: { 'import-x': importX },
    settings: {
      ...importX.flatConfigs.typescript.settings,
      'import-x/resolver-next': [createTypeScriptImportResolver({ project: 'packages/*/tsconfig.json', noWarnOnMultipleProjects: true })],
    },
    rules: {
      'max-lines-per-function': ['error', { max: 80, skipBlankLines: true, skipComments: true }],
      'import-x/no-cycle': ['error', { ignoreExternal: true }],
    },
  },
  ...boundaries.map(({ name, files, ignores, patterns }) => ({
    files,
    ...(ignores && { ignores }),
    rules: { [`arch/${name}`]: ['error', { patterns }] },
  })),
);
