import { resolve } from 'node:path';
import { AgentSpacesError, STD_CAPABILITY, STD_HTTP_METHODS, findStdConfigProblem, type StdConfig } from '@agent-spaces/capabilities';
import type { HostCapability, HostFunction } from '@agent-spaces/bridge';
import { cryptoFunctions } from './host/crypto.js';
import { fsFunctions } from './host/fs.js';
import { httpFunctions } from './host/http.js';
import { Workspace } from './host/workspace.js';

/** Settings of the std capability of one space: the config's `std.http` and `std.fs.write`, and the resolved folder. */
export interface StdOptions {
  /** The folder `fs` works in (created on first use); paths cannot leave it. */
  workspaceDir: string;
  /** Whether `fs` may change the folder (default false: `writeFile`, `appendFile`, `mkdir` and `rm` fail `ACCESS_DENIED`). */
  write?: boolean;
  /** Hosts and methods `http` may use, its timeout and body cap (default: no host). */
  http?: NonNullable<StdConfig['http']>;
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The host side of `@agent-spaces/std` as a capability (id `std`): `crypto.*`, `fs.*` and `http.request`, each with a
 * params schema, called from the sandbox as `call('std', 'fs.readFile', { path })` and passing through the bridge's
 * validation and policy like any capability.
 * @example
 * const bridge = createBridge({ capabilities: [createStdCapability({ workspaceDir: './work', write: true, http: { allowHosts: ['api.example.com'] } })] });
 */
export function createStdCapability(options: StdOptions): HostCapability {
  if (typeof options.workspaceDir !== 'string' || options.workspaceDir === '') {
    throw new AgentSpacesError('CONFIG_INVALID', 'std: workspaceDir must be a folder path', { field: 'workspaceDir' });
  }
  const problem = findStdConfigProblem({ http: options.http, fs: { write: options.write } });
  if (problem) throw new AgentSpacesError('CONFIG_INVALID', problem.message, { field: problem.field });
  const http = options.http ?? {};
  const functions: HostFunction[] = [
    ...cryptoFunctions(),
    ...fsFunctions(new Workspace(resolve(options.workspaceDir)), options.write === true),
    ...httpFunctions({
      allowHosts: http.allowHosts ?? [],
      methods: http.methods ?? STD_HTTP_METHODS,
      timeoutMs: http.timeoutMs ?? DEFAULT_TIMEOUT_MS,
      maxBytes: http.maxBytes ?? DEFAULT_MAX_BYTES,
    }),
  ];
  return {
    id: STD_CAPABILITY,
    exportName: STD_CAPABILITY,
    config: {},
    functions: new Map(functions.map((fn) => [fn.name, fn])),
  };
}
