import { AgentSpacesError, CAPABILITY_PREFIX, toWireError, type WireError } from '@agent-spaces/capabilities';
import type { Tool } from 'ai';
import type { RunOptions, Space, SpaceOptions } from '../types.js';
import { AgentRun, type AgentEvent, type AskOptions, type AskResult } from './agent-run.js';
import { DEFAULT_MAX_TURNS, agentLoop, toolFailure, type AgentTool } from './loop.js';
import { configuredModel, type AgentModel } from './model.js';
import { importModelLibrary } from './model-library.js';
import { headlessView, type ToolPermission } from './permission.js';

/**
 * The restricted spaces of a space's agent runs (`toolPermission` `tool` and `always`), made on first use with the
 * space's own options plus the permission's `hideFunctions` ({@link headlessView}), and closed with it.
 */
export class AgentViews {
  readonly #options: SpaceOptions;
  readonly #create: (options: SpaceOptions) => Promise<Space>;
  readonly #views = new Map<ToolPermission, Promise<Space>>();

  constructor(options: SpaceOptions, create: (options: SpaceOptions) => Promise<Space>) {
    this.#options = options;
    this.#create = create;
  }

  /** The space an agent run of `permission` uses: `space` itself when the permission hides nothing (`never`). */
  view(space: Space, permission: ToolPermission): Promise<Space> {
    const { hideFunctions } = headlessView(permission);
    if (!hideFunctions) return Promise.resolve(space);
    let view = this.#views.get(permission);
    if (!view) {
      view = this.#create({ ...this.#options, hideFunctions });
      this.#views.set(permission, view);
      view.catch(() => this.#views.delete(permission));
    }
    return view;
  }

  async close(): Promise<void> {
    const views = [...this.#views.values()];
    this.#views.clear();
    await Promise.all(views.map((v) => v.then((s) => s.close()).catch(() => undefined)));
  }
}

/**
 * `space.ask()`: a headless agent run on `message` in `space` (the space's prompt as system prompt, the `execute` tool
 * bound to it), seen through `toolPermission` ({@link headlessView}): a run never asks a person, not even the space's
 * `onApproval`.
 */
export function ask(space: Space, views: AgentViews, message: string, options: AskOptions = {}): AgentRun {
  return new AgentRun(options.onEvent, async (emit, runId) => {
    const usage = { tokens: 0 };
    const fail = (error: WireError): AskResult => ({ ok: false, error, turns: 0, usage, messages: [{ role: 'user', text: message }] });
    if (!options.model) {
      return fail({ code: 'MODEL_UNAVAILABLE', message: 'space.ask() needs a model: pass { model: { provider, model, baseURL?, apiKey } } (docs/agents.md)' });
    }
    const permission = options.toolPermission ?? 'tool';
    let model: AgentModel;
    let target: Space;
    try {
      model = 'complete' in options.model ? options.model : configuredModel(options.model);
      target = await views.view(space, permission);
    } catch (error) {
      return fail(toWireError(error));
    }
    const runOptions: RunOptions = {
      ...(options.signal ? { signal: options.signal } : {}),
      onEvent: emit,
      onApproval: headlessView(permission).onApproval,
    };
    const loop = await agentLoop({
      system: spacePrompt(target),
      messages: [{ role: 'user', text: message }],
      model,
      tools: [executeTool(target, runOptions, (event) => emit({ ...event, runId }))],
      maxTurns: options.maxTurns ?? DEFAULT_MAX_TURNS,
      ...(options.signal ? { signal: options.signal } : {}),
      onMessage: (m) => emit({ type: 'agentMessage', runId, text: m.text, toolCalls: m.toolCalls }),
    });
    const common = { turns: loop.turns, usage: { tokens: loop.tokens }, messages: loop.messages };
    return loop.ok ? { ok: true, text: loop.text, ...common } : { ok: false, error: loop.error, ...common };
  });
}

const EXECUTE_DESCRIPTION =
  'Run a TypeScript ES module in the space (import capabilities from "@capabilities/<id>"); `export default` (or a top-level ' +
  '`return`) is the result. Returns { ok, result, logs } or { ok: false, error: { code, message }, logs }.';

/** The `execute` tool of an agent run: runs code in `space`, reports each run as a `codeRun`. */
function executeTool(space: Space, runOptions: RunOptions, onRun: (event: Omit<Extract<AgentEvent, { type: 'codeRun' }>, 'runId'>) => void): AgentTool {
  return {
    name: 'execute',
    description: EXECUTE_DESCRIPTION,
    inputSchema: { type: 'object', properties: { code: { type: 'string', description: 'TypeScript module source' } }, required: ['code'] },
    async call(input) {
      if (typeof input.code !== 'string') {
        return toolFailure(new AgentSpacesError('INVALID_ARGUMENTS', 'execute: code must be a string', { errors: [{ field: 'code', problem: 'must be a string' }] }));
      }
      const run = await space.run(input.code, runOptions);
      onRun({ type: 'codeRun', code: input.code, ok: run.ok, ...(run.ok ? { result: run.result ?? null } : { error: run.error }) });
      return { output: JSON.stringify(codeOutcome(run)), isError: !run.ok };
    },
  };
}

function codeOutcome(run: Awaited<ReturnType<Space['run']>>): unknown {
  const logs = run.logs.map((l) => (l.level === 'log' ? l.message : `[${l.level}] ${l.message}`));
  return run.ok ? { ok: true, result: run.result ?? null, logs } : { ok: false, error: { code: run.error.code, message: run.error.message }, logs };
}

/**
 * The space's prompt for an agent that writes code in it: how to write code, then the declarations of each capability
 * module the space offers (hidden functions left out).
 */
function spacePrompt(space: Space): string {
  const modules = space.capabilities.map((id) => `// ${CAPABILITY_PREFIX}${id}\n${(space.declarations().get(`${id}.d.ts`) ?? '').trim()}`);
  return [
    `You work in the agent space "${space.name}". Do the task by writing TypeScript and running it with the \`execute\` tool.`,
    '- Import capabilities as ES modules from "@capabilities/<id>"; each function takes one params object and returns a Promise.',
    '- `export default <value>` (or a top-level `return`) is the result; `console.log` output comes back as logs.',
    '- The code is typechecked first; a failed call throws an error with a stable `code` the script can catch.',
    '- When you have the answer, reply with it in plain text (no tool call).',
    modules.length > 0 ? `## Capabilities\n\`\`\`ts\n${modules.join('\n\n')}\n\`\`\`` : 'This space has no capabilities; only `@agent-spaces/std`.',
  ].join('\n');
}

/**
 * The space as one AI SDK tool for an agent built on the AI SDK (what `@cloudflare/codemode`'s code tool does, but
 * typechecked and policy-gated): the description is the space's prompt, the input `{ code }`, the output the run's
 * `{ ok, result | error, logs }`. `ai` (an optional peer dependency) is imported on first use; `MODEL_LIBRARY_MISSING`
 * when it is not installed.
 * @example
 * const result = await generateText({ model, tools: { space: await spaceTool(space) }, prompt: '…' });
 */
export async function spaceTool(space: Space, options: Pick<RunOptions, 'onApproval' | 'onEvent' | 'signal'> = {}): Promise<Tool<{ code: string }, unknown>> {
  const { tool, jsonSchema } = await importModelLibrary('ai', ['ai'], () => import('ai'));
  return tool({
    description: spacePrompt(space),
    inputSchema: jsonSchema<{ code: string }>({ type: 'object', properties: { code: { type: 'string', description: 'TypeScript module source' } }, required: ['code'] }),
    execute: async ({ code }, { abortSignal }) => {
      const signal = abortSignal ?? options.signal;
      return codeOutcome(await space.run(code, { ...options, ...(signal ? { signal } : {}) }));
    },
  });
}
