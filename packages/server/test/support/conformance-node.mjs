// Preloaded (`node --import`) into the MCP conformance CLI by conformance.e2e.test.ts:
// - its bundle imports `globSync` from 'fs', which Node 22 has and Node 20 lacks: conformance-hooks.mjs hands it an
//   'fs' with a `globSync` that fails (only its `tier-check` command uses it, never server mode);
// - it must not download anything: every socket to a host other than this machine fails, and says so on stderr.
import net from 'node:net';
import { register } from 'node:module';

register('./conformance-hooks.mjs', import.meta.url);

const LOCAL = new Set(['127.0.0.1', 'localhost', '::1', '[::1]']);
const connect = net.Socket.prototype.connect;
net.Socket.prototype.connect = function guardedConnect(...args) {
  const first = Array.isArray(args[0]) ? args[0][0] : args[0];
  const host = typeof first === 'object' && first !== null ? (first.path !== undefined ? 'localhost' : (first.host ?? 'localhost')) : typeof args[1] === 'string' ? args[1] : 'localhost';
  if (!LOCAL.has(String(host))) {
    process.stderr.write(`conformance-offline: refused a connection to ${host}\n`);
    throw new Error(`conformance-offline: no network access outside this machine (${host})`);
  }
  return connect.apply(this, args);
};
