// The entry of a typecheck worker thread (./pool.ts starts it): checks agent code off the host's event loop, where
// a time or heap budget can stop it. Bundled with esbuild (./worker-entry.ts): into dist/ at build time, from the
// sources on first use.
import { parentPort } from 'node:worker_threads';
import { AgentSpacesError, toWireError } from '@agent-spaces/capabilities';
import { tooDeepDiagnostic } from './nesting.js';
import { ServiceTypechecker } from './service.js';
import { loadTypeScript } from './typescript-code-cache.js';
import type { CheckRequest, CheckResult } from './session.js';
import type { CheckJob, FromWorker } from './worker-protocol.js';

/** The declarations of the spaces whose scripts came lately, by key, the most recently used last, with their typechecker. */
const spaces = new Map<string, { declarations: Map<string, string>; checker: ServiceTypechecker }>();
const MAX_SPACES = 4;
const { typescript, saveCodeCache } = loadTypeScript();
const port = parentPort!;
const send = (message: FromWorker) => port.postMessage(message);

port.on('message', (job: CheckJob) => {
  try {
    const space = spaceOf(job);
    if (!space) return send({ kind: 'need', job: job.job });
    space.checker.warm();
    send({ kind: 'started', job: job.job });
    send({ kind: 'done', job: job.job, results: checkAll(space, job.requests) });
    if (job.requests.length > 0) saveCodeCache();
  } catch (error) {
    send({ kind: 'failed', job: job.job, error: toWireError(error, 'INTERNAL', 'Typecheck failed') });
  }
});

/** The job's space, made from its declarations when new; undefined when the worker needs them sent. */
function spaceOf({ key, declarations }: CheckJob): { declarations: Map<string, string>; checker: ServiceTypechecker } | undefined {
  let space = spaces.get(key);
  if (space) spaces.delete(key);
  else if (declarations) space = { declarations: new Map(declarations), checker: new ServiceTypechecker(typescript, new Map(declarations)) };
  else return undefined;
  spaces.set(key, space);
  for (const [oldKey, oldest] of spaces) {
    if (spaces.size <= MAX_SPACES) break;
    spaces.delete(oldKey);
    oldest.checker.dispose();
  }
  return space;
}

/**
 * The requests' results. A script that overflows the stack (nesting too deep for the parser or checker) gets a
 * located diagnostic: the batch is checked again one script at a time, each by a new typechecker, since a language
 * service's state is not trusted after an overflow.
 */
function checkAll(space: { declarations: Map<string, string>; checker: ServiceTypechecker }, requests: CheckRequest[]): CheckResult[] {
  try {
    return space.checker.checkRequests(requests);
  } catch (error) {
    if (!isStackOverflow(error)) throw error;
  }
  return requests.map((request) => {
    space.checker.dispose();
    space.checker = new ServiceTypechecker(typescript, space.declarations);
    try {
      return space.checker.checkRequests([request])[0]!;
    } catch (error) {
      if (!isStackOverflow(error)) throw error;
      return { diagnostics: [tooDeepDiagnostic(request.code)], bindings: new Map() };
    }
  });
}

/** True for V8's stack overflow; another RangeError (a string or array too long to make) is a memory budget hit. */
function isStackOverflow(error: unknown): boolean {
  if (!(error instanceof RangeError)) return false;
  if (/call stack/i.test(error.message)) return true;
  throw new AgentSpacesError('TYPECHECK_LIMIT', `The typecheck ran out of room (${error.message}): the code builds types too large to check`, {
    budget: 'memory',
  });
}
