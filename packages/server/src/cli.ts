import { basename, resolve } from 'node:path';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { parseServerConfig, type HeadlessMode, type ServerConfig, type SpaceDefinition } from './config.js';
import { startHttpServer } from './http.js';
import { createCodeModeHost, createCodeModeServer, type CodeModeServerOptions } from './server.js';

/** What `serve` receives: the same shape as the CLI's `CommandContext` (packages/cli/src/commands/index.ts). */
export interface ServeContext {
  values: Record<string, string | boolean | (string | boolean)[] | undefined>;
  positionals: string[];
  output: { out(text: string): void; err(text: string): void; readonly interactive: boolean };
}

/** Environment variable read for the bearer token when `--auth-token` is not given. */
export const AUTH_TOKEN_ENV = 'AGENT_SPACES_MCP_TOKEN';

/**
 * `agent-spaces mcp serve [--stdio | --port 8080 --host 127.0.0.1] [--timeout 3600] [--max-sessions N]
 * [--auth-token T] [--headless deny|allow] [--config F] [--out DIR]`: serves the config's spaces (or one `default`
 * space of every built capability) over stdio (the default) or Streamable HTTP until stdin ends or SIGINT/SIGTERM.
 * Progress goes to stderr only (stdout is the stdio transport). Returns 0, or 2 for a bad option value.
 */
export async function serve(context: ServeContext): Promise<number> {
  const { values, output } = context;
  let flags: Flags;
  try {
    flags = readFlags(values);
  } catch (error) {
    output.err(`agent-spaces mcp serve: ${(error as Error).message}`);
    return 2;
  }
  const { loadConfig } = await import('@agent-spaces/compiler');
  const configFile = typeof values.config === 'string' ? values.config : undefined;
  const loaded = await loadConfig({ cwd: process.cwd(), ...(configFile ? { configFile } : {}) });
  const config: ServerConfig = parseServerConfig(loaded.raw, loaded.file);
  const settings = config.server;
  const spaces: SpaceDefinition[] = config.spaces.length > 0 ? config.spaces : [{ id: 'default', name: basename(loaded.rootDir) || 'default' }];
  const options: CodeModeServerOptions = {
    spaces,
    timeoutSeconds: flags.timeout ?? settings.timeoutSeconds ?? 3600,
    headlessMode: flags.headless ?? settings.headlessMode ?? 'deny',
    space: {
      rootDir: loaded.rootDir,
      outDir: typeof values.out === 'string' ? resolve(values.out) : loaded.config.outDir,
      policies: loaded.config.policies,
      mcpServers: loaded.config.mcpServers,
    },
  };
  const maxSessions = flags.maxSessions ?? settings.maxSessions;
  if (maxSessions !== undefined) options.maxSessions = maxSessions;
  const port = flags.port ?? (flags.stdio ? undefined : settings.port);
  const names = spaces.map((s) => s.id).join(', ');
  if (port === undefined) {
    const server = createCodeModeServer(options);
    const closed = new Promise<void>((done) => {
      const onclose = server.onclose;
      server.onclose = () => {
        onclose?.();
        done();
      };
    });
    const stop = () => void server.close();
    process.stdin.once('end', stop);
    const signals = onSignals(stop);
    await server.connect(new StdioServerTransport());
    output.err(`agent-spaces mcp serve: serving ${names} over stdio`);
    await closed;
    signals.dispose();
    process.stdin.off('end', stop);
    return 0;
  }
  const host = flags.host ?? settings.host ?? '127.0.0.1';
  const authToken = flags.authToken ?? process.env[AUTH_TOKEN_ENV];
  const codeHost = createCodeModeHost(options);
  const http = await startHttpServer({
    createServer: () => codeHost.createServer(),
    stats: () => codeHost.stats(),
    host,
    port,
    ...(authToken ? { authToken } : {}),
    ...(settings.allowedHosts ? { allowedHosts: settings.allowedHosts } : {}),
    ...(settings.allowedOrigins ? { allowedOrigins: settings.allowedOrigins } : {}),
    ...(settings.rateLimit !== undefined ? { rateLimit: settings.rateLimit } : {}),
  });
  output.err(`agent-spaces mcp serve: serving ${names} on ${http.url}${authToken ? ' (bearer token required)' : ''}`);
  if (!authToken && !['127.0.0.1', 'localhost', '::1'].includes(host)) {
    output.err(`agent-spaces mcp serve: warning: listening on ${host} without --auth-token; anyone who can reach it can run code`);
  }
  await new Promise<void>((done) => {
    const signals = onSignals(() => {
      signals.dispose();
      done();
    });
  });
  await http.close();
  await codeHost.close();
  return 0;
}

interface Flags {
  stdio: boolean;
  port?: number;
  host?: string;
  timeout?: number;
  maxSessions?: number;
  authToken?: string;
  headless?: HeadlessMode;
}

function readFlags(values: ServeContext['values']): Flags {
  const text = (name: string): string | undefined => {
    const value = values[name];
    if (value === undefined || value === false) return undefined;
    if (typeof value !== 'string') throw new Error(`--${name} needs a value`);
    return value;
  };
  const integer = (name: string, min: number, max: number): number | undefined => {
    const value = text(name);
    if (value === undefined) return undefined;
    const n = Number(value);
    if (!/^\d+$/.test(value) || n < min || n > max) throw new Error(`--${name} must be an integer from ${min} to ${max}, got "${value}"`);
    return n;
  };
  const flags: Flags = { stdio: values.stdio === true };
  const port = integer('port', 0, 65535);
  if (port !== undefined && flags.stdio) throw new Error('use either --stdio or --port, not both');
  if (port !== undefined) flags.port = port;
  const host = text('host');
  if (host !== undefined) flags.host = host;
  const timeout = integer('timeout', 1, 31 * 24 * 3600);
  if (timeout !== undefined) flags.timeout = timeout;
  const maxSessions = integer('max-sessions', 1, 100_000);
  if (maxSessions !== undefined) flags.maxSessions = maxSessions;
  const authToken = text('auth-token');
  if (authToken !== undefined) flags.authToken = authToken;
  const headless = text('headless');
  if (headless !== undefined && headless !== 'deny' && headless !== 'allow') throw new Error(`--headless must be "deny" or "allow", got "${headless}"`);
  if (headless !== undefined) flags.headless = headless;
  return flags;
}

function onSignals(handler: () => void): { dispose(): void } {
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return {
    dispose() {
      process.off('SIGINT', handler);
      process.off('SIGTERM', handler);
    },
  };
}
