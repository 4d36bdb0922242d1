import type { CallMessage, CallOutcome, HostPort } from '@agent-spaces/capabilities';

/** The module source the compiler generates for a capability, in exactly its shape. */
export function proxyModule(capability: string, exportName: string, functions: readonly string[]): string {
  const members = functions.map((fn) => `${fn}: (params) => call(${JSON.stringify(capability)}, ${JSON.stringify(fn)}, params)`).join(', ');
  return [
    `import { call } from 'agent-spaces:bridge';`,
    `export const ${exportName} = Object.freeze({ ${members} });`,
    ...functions.map((fn) => `export const ${fn} = ${exportName}.${fn};`),
    '',
  ].join('\n');
}

/** Modules of the test space: `@capabilities/math` (add, sleep, fail, echo, never). */
export const MODULES: ReadonlyMap<string, string> = new Map([
  ['@capabilities/math', proxyModule('math', 'math', ['add', 'sleep', 'fail', 'echo', 'never', 'deny'])],
]);

/** A real HostPort with a few handlers; records what it was asked and which signals it got. */
export function createPort(): HostPort & { calls: CallMessage[]; signals: AbortSignal[]; completed: number } {
  const port = {
    calls: [] as CallMessage[],
    signals: [] as AbortSignal[],
    completed: 0,
    async call(message: CallMessage, signal: AbortSignal): Promise<CallOutcome> {
      port.calls.push(message);
      port.signals.push(signal);
      const params = (message.params ?? {}) as Record<string, unknown>;
      const outcome = await handle(message.function, params, signal);
      port.completed++;
      return outcome;
    },
  };
  return port;
}

async function handle(fn: string, params: Record<string, unknown>, signal: AbortSignal): Promise<CallOutcome> {
  switch (fn) {
    case 'add':
      return { ok: true, value: (params.a as number) + (params.b as number) };
    case 'sleep':
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, params.ms as number);
        signal.addEventListener('abort', () => {
          clearTimeout(timer);
          resolve();
        });
      });
      return { ok: true, value: params.value ?? params.ms };
    case 'fail':
      return { ok: false, error: { code: 'HANDLER_ERROR', message: String(params.message ?? 'failed'), data: { reason: 'test' } } };
    case 'deny':
      return { ok: false, error: { code: 'APPROVAL_DENIED', message: 'denied by the user' } };
    case 'echo':
      return { ok: true, value: params.value };
    case 'never':
      return new Promise(() => {});
    default:
      return { ok: false, error: { code: 'FUNCTION_NOT_FOUND', message: `no function ${fn}` } };
  }
}
