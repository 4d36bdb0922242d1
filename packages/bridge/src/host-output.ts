/**
 * Console output of host code run for a call (a handler, the module it imports) never reaches the host's own
 * streams: the bridge runs each executor inside {@link withOutput}, and the process's `console` methods, patched once,
 * hand what is printed within that async context to the call's {@link OutputSink} instead (the bridge redacts it and
 * makes it a run log). Outside any call, `console` behaves as before. Only `console` is captured: `process.stdout`
 * stays the host's (`mcp serve --stdio` writes its protocol there).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import { Console } from 'node:console';
import { Writable } from 'node:stream';
import type { LogLevel } from '@agent-spaces/capabilities';

/** Where the console output of one call goes: one `write` per print (a `console.log` of several lines is one). */
export interface OutputSink {
  /** `source` names who printed, when not the call's own handler (`mcp server slack`). */
  write(level: LogLevel, text: string, source?: string): void;
}

/** Output past this many characters per call is dropped (one line says so). */
const MAX_CALL_OUTPUT = 65_536;

/**
 * The sink of one call: each print becomes `[<source>] <text>`, redacted, and goes to `toRun` while the call lasts
 * (it returns false once the call has ended or when nobody listens), else to the host's stderr. At most 64 Ki
 * characters per call; the line saying the rest is dropped names who printed past that.
 */
export function callSink(source: string, redact: (text: string) => string, toRun: (level: LogLevel, message: string) => boolean): OutputSink {
  let written = 0;
  return {
    write(level, text, from = source) {
      if (written > MAX_CALL_OUTPUT) return;
      written += text.length;
      const message = redact(written > MAX_CALL_OUTPUT ? `[${from}] … output past ${MAX_CALL_OUTPUT} characters dropped` : `[${from}] ${text}`);
      if (!toRun(level, message)) hostStderr(message);
    },
  };
}

/** Writes a line to the host's stderr (the caller has redacted it). */
export function hostStderr(message: string): void {
  process.stderr.write(`${message}\n`);
}

const current = new AsyncLocalStorage<OutputSink>();

/** Levels of the methods that have one; the others log at `log` (stdout) or `error` (stderr), as Node prints them. */
const LEVELS: Readonly<Record<string, LogLevel>> = { log: 'log', info: 'info', debug: 'debug', warn: 'warn', error: 'error', trace: 'error' };
const METHODS = [
  ...Object.keys(LEVELS),
  ...['dir', 'dirxml', 'table', 'assert', 'count', 'countReset', 'group', 'groupCollapsed', 'groupEnd', 'time', 'timeEnd', 'timeLog'],
] as const;

let installed = false;
/** The level of the method being printed through {@link capture}. */
let level: LogLevel | undefined;

/** Runs `fn` with everything printed through `console` within it (and the async work it starts) going to `sink`. */
export function withOutput<T>(sink: OutputSink, fn: () => T): T {
  if (!installed) install();
  return current.run(sink, fn);
}

function install(): void {
  installed = true;
  const target = console as unknown as Record<string, (...args: unknown[]) => void>;
  // Formats like the global console (tables, groups, counters, traces), into the sink of the current call.
  const capture = new Console({ stdout: sinkStream('log'), stderr: sinkStream('error'), colorMode: false });
  const captured = capture as unknown as Record<string, (...args: unknown[]) => void>;
  for (const method of METHODS) {
    const original = target[method];
    if (typeof original !== 'function') continue;
    target[method] = function (this: unknown, ...args: unknown[]) {
      if (current.getStore() === undefined) return original.apply(this, args);
      level = LEVELS[method];
      try {
        captured[method]!(...args);
      } finally {
        level = undefined;
      }
    };
  }
}

function sinkStream(fallback: LogLevel): Writable {
  return new Writable({
    decodeStrings: false,
    // Called synchronously by the console's write, so the store is still the printing call's.
    write(chunk: string | Buffer, _encoding, done) {
      current.getStore()?.write(level ?? fallback, String(chunk).replace(/\n$/, ''));
      done();
    },
  });
}
