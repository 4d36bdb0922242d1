import { AgentSpacesError, createRedactor, expandPlaceholders, type ObjectSchema, type PlaceholderEnv, type Redactor } from '@agent-spaces/capabilities';
import type { ModelMessage } from 'ai';
import { importModelLibrary } from './model-library.js';

/** The model providers of a {@link ModelSettings}. */
export const MODEL_PROVIDERS = ['openai-compatible', 'openai', 'anthropic'] as const;

/**
 * A configured model of headless agent runs (the config's top-level `model`, a space's own, `space.ask({ model })`).
 * `apiKey` should be a `${VAR}` placeholder: it is expanded on the host when a run starts.
 */
export interface ModelSettings {
  provider: (typeof MODEL_PROVIDERS)[number];
  model: string;
  /** The provider's API root (`http://127.0.0.1:11434/v1` for Ollama); required for `openai-compatible`. */
  baseURL?: string;
  apiKey?: string;
  /** Longest wait for one model answer, in seconds (default 120). */
  timeoutSeconds?: number;
  /** Retries of a failed model request (default 2). */
  maxRetries?: number;
}

const MODEL_KEYS = ['provider', 'model', 'baseURL', 'apiKey', 'timeoutSeconds', 'maxRetries'];

/**
 * Checks `value` as a {@link ModelSettings} (the config's top-level `model`, a space's own, `--model` and `--base-url`):
 * returns a new object, or throws `CONFIG_INVALID` naming `file` and the key (`<at>.baseURL`, …) — e.g. an
 * `openai-compatible` model without `baseURL`.
 */
export function parseModel(value: unknown, at = 'model', file = 'model settings'): ModelSettings {
  const fail = (key: string, problem: string): never => {
    throw new AgentSpacesError('CONFIG_INVALID', `${file}: ${key} ${problem}`, { file, key });
  };
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return fail(at, 'must be an object');
  const o = value as Record<string, unknown>;
  const unknownKey = Object.keys(o).find((k) => !MODEL_KEYS.includes(k));
  if (unknownKey !== undefined) fail(`${at}.${unknownKey}`, `is not a known key (known: ${MODEL_KEYS.join(', ')})`);
  const text = (key: string): string => {
    const v = o[key];
    return typeof v === 'string' && v !== '' ? v : fail(`${at}.${key}`, 'must be a non-empty string');
  };
  const provider = o.provider as ModelSettings['provider'];
  if (!MODEL_PROVIDERS.includes(provider)) fail(`${at}.provider`, `must be one of ${MODEL_PROVIDERS.map((p) => `"${p}"`).join(', ')}`);
  const model: ModelSettings = { provider, model: text('model') };
  if (o.baseURL !== undefined) {
    model.baseURL = text('baseURL');
    if (!/^https?:\/\//.test(model.baseURL)) fail(`${at}.baseURL`, 'must be an http(s) URL');
  } else if (provider === 'openai-compatible') fail(`${at}.baseURL`, 'is required for provider "openai-compatible"');
  if (o.apiKey !== undefined) model.apiKey = text('apiKey');
  const { timeoutSeconds, maxRetries } = o;
  if (timeoutSeconds !== undefined) {
    if (typeof timeoutSeconds !== 'number' || !Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0) fail(`${at}.timeoutSeconds`, 'must be a positive number');
    model.timeoutSeconds = timeoutSeconds as number;
  }
  if (maxRetries !== undefined) {
    if (typeof maxRetries !== 'number' || !Number.isInteger(maxRetries) || maxRetries < 0 || maxRetries > 10) fail(`${at}.maxRetries`, 'must be an integer from 0 to 10');
    model.maxRetries = maxRetries as number;
  }
  return model;
}

/** One tool call the model asked for. */
export interface ToolCall {
  id: string;
  name: string;
  input: unknown;
}

/** One message of an agent run's conversation, whichever model answers it. */
export type AgentMessage =
  | { role: 'user'; text: string }
  | { role: 'assistant'; text: string; toolCalls: ToolCall[] }
  | { role: 'tool'; results: Array<{ id: string; name: string; output: string; isError: boolean }> };

/** A tool offered to the model. */
export interface ModelTool {
  name: string;
  description: string;
  inputSchema: ObjectSchema;
}

/** What one model turn is given. */
export interface ModelRequest {
  system: string;
  messages: readonly AgentMessage[];
  tools: readonly ModelTool[];
  signal: AbortSignal;
}

/** One model turn's answer: text, the tool calls to make (none ends the run) and the tokens it used. */
export interface ModelReply {
  text: string;
  toolCalls: ToolCall[];
  tokens: number;
}

/** The model of an agent run: a configured provider or the MCP client's own model (sampling). */
export interface AgentModel {
  /** Where the answers come from, for events and logs (`openai-compatible:qwen3`, `sampling`). */
  readonly name: string;
  /** One turn; rejects with `MODEL_ERROR` (or `ABORTED` when `signal` aborted). */
  complete(request: ModelRequest): Promise<ModelReply>;
}

const DEFAULT_TIMEOUT_SECONDS = 120;
const DEFAULT_MAX_RETRIES = 2;
const OPENAI_BASE_URL = 'https://api.openai.com/v1';

/**
 * The configured model of `settings` through the Vercel AI SDK (`ai` and the provider package are imported on the
 * first turn). `apiKey` placeholders are expanded from `env` now — an unset variable throws `MODEL_UNAVAILABLE` naming
 * it, as does an `openai-compatible` model without `baseURL` — and the key is redacted from every error message.
 */
export function configuredModel(settings: ModelSettings, env: PlaceholderEnv = process.env): AgentModel {
  if (settings.provider === 'openai-compatible' && !settings.baseURL) {
    throw new AgentSpacesError('MODEL_UNAVAILABLE', 'model.baseURL is required for provider "openai-compatible"', { key: 'model.baseURL' });
  }
  const secrets = new Map<string, string>();
  const apiKey =
    settings.apiKey === undefined
      ? undefined
      : expandPlaceholders(
          settings.apiKey,
          env,
          (name) => {
            throw new AgentSpacesError('MODEL_UNAVAILABLE', `model.apiKey refers to \${${name}}, which is not set in the server's environment`, {
              key: 'model.apiKey',
              variable: name,
            });
          },
          (name, value) => secrets.set(name, value),
        );
  if (apiKey !== undefined && secrets.size === 0) secrets.set('model.apiKey', apiKey);
  const redactor = createRedactor(secrets);
  let loaded: Promise<LoadedModel> | undefined;
  return {
    name: `${settings.provider}:${settings.model}`,
    async complete(request) {
      // A library installed after a failed first turn is looked for again.
      loaded ??= loadModel(settings, apiKey).catch((error: unknown) => {
        loaded = undefined;
        throw error;
      });
      const { generateText, jsonSchema, model } = await loaded;
      const timeout = AbortSignal.timeout((settings.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000);
      try {
        const result = await generateText({
          model,
          system: request.system,
          messages: toModelMessages(request.messages),
          tools: Object.fromEntries(request.tools.map((t) => [t.name, { description: t.description, inputSchema: jsonSchema(t.inputSchema as never) }])),
          maxRetries: settings.maxRetries ?? DEFAULT_MAX_RETRIES,
          abortSignal: AbortSignal.any([request.signal, timeout]),
        });
        return {
          text: result.text,
          toolCalls: result.toolCalls.map((c) => ({ id: c.toolCallId, name: c.toolName, input: c.input })),
          tokens: result.usage.totalTokens ?? (result.usage.inputTokens ?? 0) + (result.usage.outputTokens ?? 0),
        };
      } catch (error) {
        throw providerError(error, settings, request.signal, timeout, redactor);
      }
    },
  };
}

type GenerateText = (typeof import('ai'))['generateText'];
interface LoadedModel {
  generateText: GenerateText;
  jsonSchema: (typeof import('ai'))['jsonSchema'];
  model: Parameters<GenerateText>[0]['model'];
}

/** The AI SDK and the provider package of `settings`; `MODEL_LIBRARY_MISSING` naming both when one is not installed. */
async function loadModel(settings: ModelSettings, apiKey: string | undefined): Promise<LoadedModel> {
  const providerPackage = settings.provider === 'anthropic' ? '@ai-sdk/anthropic' : '@ai-sdk/openai-compatible';
  const needed = ['ai', providerPackage];
  const { generateText, jsonSchema } = await importModelLibrary('ai', needed, () => import('ai'));
  if (settings.provider === 'anthropic') {
    const { createAnthropic } = await importModelLibrary(providerPackage, needed, () => import('@ai-sdk/anthropic'));
    const provider = createAnthropic({ ...(apiKey ? { apiKey } : {}), ...(settings.baseURL ? { baseURL: settings.baseURL } : {}) });
    return { generateText, jsonSchema, model: provider(settings.model) };
  }
  const { createOpenAICompatible } = await importModelLibrary(providerPackage, needed, () => import('@ai-sdk/openai-compatible'));
  const provider = createOpenAICompatible({
    name: settings.provider,
    baseURL: settings.baseURL ?? OPENAI_BASE_URL,
    ...(apiKey ? { apiKey } : {}),
    includeUsage: true,
  });
  return { generateText, jsonSchema, model: provider.chatModel(settings.model) };
}

/** The run's messages as AI SDK model messages. */
function toModelMessages(messages: readonly AgentMessage[]): ModelMessage[] {
  return messages.map((m) => {
    switch (m.role) {
      case 'user':
        return { role: 'user', content: m.text };
      case 'assistant':
        return {
          role: 'assistant',
          content: [
            ...(m.text ? [{ type: 'text' as const, text: m.text }] : []),
            ...m.toolCalls.map((c) => ({ type: 'tool-call' as const, toolCallId: c.id, toolName: c.name, input: c.input })),
          ],
        };
      case 'tool':
        return {
          role: 'tool',
          content: m.results.map((r) => ({
            type: 'tool-result' as const,
            toolCallId: r.id,
            toolName: r.name,
            output: r.isError ? { type: 'error-text' as const, value: r.output } : { type: 'text' as const, value: r.output },
          })),
        };
    }
  });
}

/** A failed provider request as `ABORTED` (the caller's signal) or `MODEL_ERROR` with `status` or `reason: "timeout"`. */
function providerError(error: unknown, settings: ModelSettings, signal: AbortSignal, timeout: AbortSignal, redactor: Redactor): AgentSpacesError {
  const model = `${settings.provider} model "${settings.model}"`;
  if (signal.aborted) return new AgentSpacesError('ABORTED', `The agent run was cancelled while waiting for the ${model}`);
  if (timeout.aborted) {
    return new AgentSpacesError('MODEL_ERROR', `The ${model} did not answer within ${settings.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS} s`, {
      reason: 'timeout',
    });
  }
  const last = (error as { lastError?: unknown }).lastError ?? error;
  const status = (last as { statusCode?: unknown }).statusCode;
  const message = redactor.text(last instanceof Error ? last.message : String(last));
  return new AgentSpacesError('MODEL_ERROR', `The ${model} failed${typeof status === 'number' ? ` with HTTP ${status}` : ''}: ${message}`, {
    ...(typeof status === 'number' ? { status } : { reason: 'provider' }),
  });
}
