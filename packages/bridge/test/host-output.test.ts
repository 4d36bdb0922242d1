import { setTimeout as delay } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createRedactor } from '@agent-spaces/capabilities';
import { createBridge, type CallEvent } from '../src/index.js';
import { memoryCapability, msg } from './fixtures.js';

const signal = new AbortController().signal;
const SECRET = 'p"ss\\w0rd-1234';
const redactor = createRedactor(new Map([['DB_PASSWORD', SECRET]]));

/** What the process writes to its stderr during a test (the host's fallback for output outside a run). */
let stderr: string[] = [];
const realWrite = process.stderr.write.bind(process.stderr);
beforeEach(() => {
  stderr = [];
  process.stderr.write = ((chunk: string | Uint8Array) => (stderr.push(String(chunk)), true)) as typeof process.stderr.write;
});
afterEach(() => {
  process.stderr.write = realWrite;
});

function listen(): { events: CallEvent[]; onEvent: (event: CallEvent) => void; logs: () => string[] } {
  const events: CallEvent[] = [];
  return { events, onEvent: (event) => events.push(event), logs: () => events.flatMap((e) => (e.type === 'log' ? [`${e.level} ${e.message}`] : [])) };
}

describe('console output of host code run for a call', () => {
  it('becomes redacted log events of the call, labelled with its source, whatever console method printed it', async () => {
    const notes = memoryCapability('notes', [
      {
        name: 'create',
        run: () => {
          console.log('token', SECRET);
          console.info(JSON.stringify({ password: SECRET }));
          console.warn(`url=https://x/?pw=${encodeURIComponent(SECRET)}`);
          console.error(new Error(`failed with ${SECRET}`).message);
          console.debug('%s!', Buffer.from(SECRET).toString('base64'));
          console.table([{ a: 1 }]);
          console.dir({ nested: { secret: SECRET } });
          return 'done';
        },
      },
    ]);
    const bridge = createBridge({ capabilities: [notes], redactor });
    const { onEvent, logs } = listen();
    expect(await bridge.call(msg('notes', 'create', {}), signal, { onEvent })).toEqual({ ok: true, value: 'done' });
    const lines = logs();
    expect(lines.slice(0, 5)).toEqual([
      'log [host handler notes.create] token [REDACTED:DB_PASSWORD]',
      'info [host handler notes.create] {"password":"[REDACTED:DB_PASSWORD]"}',
      'warn [host handler notes.create] url=https://x/?pw=[REDACTED:DB_PASSWORD]',
      'error [host handler notes.create] failed with [REDACTED:DB_PASSWORD]',
      // base64 keeps the characters that also depend on what follows the secret
      expect.stringMatching(/^debug \[host handler notes\.create\] \[REDACTED:DB_PASSWORD\]\S{0,3}!$/),
    ]);
    expect(lines[5]).toContain('│');
    expect(lines[6]).toContain("secret: '[REDACTED:DB_PASSWORD]'");
    expect(JSON.stringify(lines)).not.toContain('w0rd');
    expect(stderr).toEqual([]);
  });

  it('keeps the output of concurrent calls apart, through awaits and timers', async () => {
    const slow = memoryCapability('slow', [
      {
        name: 'step',
        run: async (params) => {
          for (let i = 0; i < 3; i++) {
            await delay(1 + ((i + Number(params.n)) % 3));
            console.log(`call ${String(params.n)} step ${i}`);
          }
          await new Promise<void>((resolve) => setTimeout(() => (console.log(`call ${String(params.n)} timer`), resolve()), 1));
        },
        parameters: { type: 'object', properties: { n: { type: 'number' } } },
      },
    ]);
    const bridge = createBridge({ capabilities: [slow] });
    const listeners = [0, 1, 2].map(() => listen());
    await Promise.all(listeners.map((l, n) => bridge.call(msg('slow', 'step', { n }), signal, { onEvent: l.onEvent })));
    for (const [n, l] of listeners.entries()) {
      expect(l.logs()).toEqual([0, 1, 2].map((i) => `log [host handler slow.step] call ${n} step ${i}`).concat(`log [host handler slow.step] call ${n} timer`));
    }
  });

  it('goes to the host stderr, redacted and labelled, once the call has ended or when nobody listens', async () => {
    let later: Promise<void> | undefined;
    const leaky = memoryCapability('leaky', [
      {
        name: 'fire',
        run: () => {
          later = delay(5).then(() => console.log('late', SECRET));
        },
      },
    ]);
    const bridge = createBridge({ capabilities: [leaky], redactor });
    const { onEvent, logs } = listen();
    await bridge.call(msg('leaky', 'fire', {}), signal, { onEvent });
    await later;
    expect(logs()).toEqual([]);
    await bridge.call(msg('leaky', 'fire', {}), signal);
    await later;
    expect(stderr).toEqual(['[host handler leaky.fire] late [REDACTED:DB_PASSWORD]\n', '[host handler leaky.fire] late [REDACTED:DB_PASSWORD]\n']);
  });

  it('drops output past 64 Ki characters per call, saying so once', async () => {
    const noisy = memoryCapability('noisy', [{ name: 'spam', run: () => { for (let i = 0; i < 2_000; i++) console.log('x'.repeat(100)); } }]);
    const bridge = createBridge({ capabilities: [noisy] });
    const { onEvent, logs } = listen();
    await bridge.call(msg('noisy', 'spam', {}), signal, { onEvent });
    const lines = logs();
    expect(lines.length).toBeLessThan(700);
    expect(lines.at(-1)).toBe('log [host handler noisy.spam] … output past 65536 characters dropped');
  });

  it('leaves console alone outside calls', () => {
    const seen: unknown[] = [];
    const original = console.log;
    createBridge({ capabilities: [] });
    console.log = (...args: unknown[]) => void seen.push(args);
    try {
      console.log('outside');
    } finally {
      console.log = original;
    }
    expect(seen).toEqual([['outside']]);
  });
});

describe('output made outside any call (an MCP server stderr)', () => {
  it('reaches the one call in flight of its capability, else the host stderr, redacted either way', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = memoryCapability('mcp-srv', [{ name: 'wait', run: () => gate }]);
    const bridge = createBridge({ capabilities: [server], redactor });
    bridge.output('mcp-srv', 'mcp server srv', `before ${SECRET}`);
    const first = listen();
    const call = bridge.call(msg('mcp-srv', 'wait', {}), signal, { onEvent: first.onEvent });
    await delay(1);
    bridge.output('mcp-srv', 'mcp server srv', `during ${JSON.stringify(SECRET)}`);
    const second = listen();
    const other = bridge.call(msg('mcp-srv', 'wait', {}), signal, { onEvent: second.onEvent });
    await delay(1);
    bridge.output('mcp-srv', 'mcp server srv', 'two in flight');
    release();
    await Promise.all([call, other]);
    expect(first.logs()).toEqual(['info [mcp server srv] during "[REDACTED:DB_PASSWORD]"']);
    expect(second.logs()).toEqual([]);
    expect(stderr).toEqual(['[mcp server srv] before [REDACTED:DB_PASSWORD]\n', '[mcp server srv] two in flight\n']);
  });

  it('says output was dropped in the name of the server whose stderr went past the limit, not the handler', async () => {
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    const server = memoryCapability('mcp-srv', [{ name: 'wait', run: () => gate }]);
    const bridge = createBridge({ capabilities: [server] });
    const { onEvent, logs } = listen();
    const call = bridge.call(msg('mcp-srv', 'wait', {}), signal, { onEvent });
    await delay(1);
    for (let i = 0; i < 700; i++) bridge.output('mcp-srv', 'mcp server srv', 'x'.repeat(100));
    release();
    await call;
    const lines = logs();
    expect(lines.length).toBeLessThan(700);
    expect(lines.at(-1)).toBe('info [mcp server srv] … output past 65536 characters dropped');
    expect(lines.some((line) => line.includes('host handler'))).toBe(false);
  });
});
