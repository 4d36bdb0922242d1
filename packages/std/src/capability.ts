import { resolve } from 'node:path';
import { AgentSpacesError, STD_CAPABILITY } from '@agent-spaces/capabilities';
import type { HostCapability, HostFunction } from '@agent-spaces/bridge';
import { cryptoFunctions } from './host/crypto.js';
import { fsFunctions } from './host/fs.js';
import { httpFunctions } from './host/http.js';
import { Workspace } from './host/workspace.js';

/** Settings of the std capability of one space. */
export interface StdOptions {
  /** The folder `fs` works in (created on first use); paths cannot leave it. */
  workspaceDir: string;
  http?: {
    /** Hosts `http` may reach: `example.com`, `*.example.com` (subdomains), `host:port`. Default: none. */
    allowHosts?: string[];
    /** Longest a request may take, in ms (default 30 000); agent code may ask for less, never more. */
    timeoutMs?: number;
    /** Largest response body read, in bytes (default 10 MiB). */
    maxBytes?: number;
  };
}

const DEFAULT_TIMEOUT_MS = 30_000;
const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;

/**
 * The host side of `@agent-spaces/std` as a capability (id `std`): `crypto.*`, `fs.*` and `http.request`, each with a
 * params schema, called from the sandbox as `call('std', 'fs.readFile', { path })` and passing through the bridge's
 * validation and policy like any capability.
 * @example
 * const bridge = createBridge({ capabilities: [createStdCapability({ workspaceDir: './work', http: { allowHosts: ['api.example.com'] } })] });
 */
export function createStdCapability(options: StdOptions): HostCapability {
  if (typeof options.workspaceDir !== 'string' || options.workspaceDir === '') {
    throw new AgentSpacesError('CONFIG_INVALID', 'std: workspaceDir must be a folder path', { field: 'workspaceDir' });
  }
  const timeoutMs = positive(options.http?.timeoutMs, DEFAULT_TIMEOUT_MS, 'http.timeoutMs');
  const maxBytes = positive(options.http?.maxBytes, DEFAULT_MAX_BYTES, 'http.maxBytes');
  const functions: HostFunction[] = [
    ...cryptoFunctions(),
    ...fsFunctions(new Workspace(resolve(options.workspaceDir))),
    ...httpFunctions({ allowHosts: [...(options.http?.allowHosts ?? [])], timeoutMs, maxBytes }),
  ];
  return {
    id: STD_CAPABILITY,
    exportName: STD_CAPABILITY,
    config: {},
    functions: new Map(functions.map((fn) => [fn.name, fn])),
  };
}

function positive(value: number | undefined, fallback: number, field: string): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !(value > 0)) {
    throw new AgentSpacesError('CONFIG_INVALID', `std: ${field} must be a positive number`, { field });
  }
  return value;
}
