import { jsonText, toWireError, type RunEvent } from '@agent-spaces/capabilities';
import type { RunOptions } from '@agent-spaces/sdk';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { SpaceDefinition } from '../config.js';
import type { Connection, HostState } from '../connection.js';
import { toolError } from '../results.js';
import type { Detect } from './detectors.js';
import { privacySettingsOf } from './settings.js';
import { PrivacyVault, SCAN_BUDGET, Tally, type Scan } from './vault.js';

/**
 * What a tool of a space with `privacy` (docs/privacy.md) does at the boundary to the model: tokens the model wrote
 * back are restored in the code and arguments it sends, and personal data in what it reads becomes tokens. For a
 * space without `privacy` every step passes its input through.
 */
export interface ToolPrivacy {
  /** `code` with this scope's tokens restored, written so that they read as the values inside string literals. */
  code(code: string): string;
  /** `args` (JSON data) with this scope's tokens restored. */
  args<T>(args: T): T;
  /** `options` whose `onEvent` hears the run's events tokenized (the console output and calls told to the client). */
  runOptions(options: RunOptions): RunOptions;
  /**
   * The result `produce` makes (a thrown error as an error result) with its text and `structuredContent` tokenized;
   * logs `privacy.tokenized` with the counts per kind (never a value) when anything was tokenized, withheld or restored.
   */
  answer(tool: string, produce: () => Promise<CallToolResult>): Promise<CallToolResult>;
}

/** The {@link ToolPrivacy} of a space without `privacy`. */
const OFF: ToolPrivacy = {
  code: (code) => code,
  args: (args) => args,
  runOptions: (options) => options,
  answer: (_tool, produce) => produce(),
};

/** The most scopes (client and space) a server keeps tokens for; the least recently used one is forgotten first. */
const MAX_SCOPES = 4_096;
const vaults = new WeakMap<HostState, Map<string, PrivacyVault>>();
const detectors = new WeakMap<SpaceDefinition, Promise<Detect>>();

/**
 * The privacy of `connection`'s tools in `definition`'s space. The scope of its tokens is the client's connection
 * (`connection.id`: its MCP session over HTTP, the process over stdio, the principal without sessions) and the space:
 * a token another scope gave out is never restored here.
 */
export async function privacyOf(connection: Connection, definition: SpaceDefinition): Promise<ToolPrivacy> {
  const settings = privacySettingsOf(definition.privacy);
  if (settings === undefined) return OFF;
  let detect = detectors.get(definition);
  if (detect === undefined) {
    detect = import('./detectors.js').then(({ createDetect }) => createDetect(settings));
    detectors.set(definition, detect);
  }
  return new ScopePrivacy(vaultOf(connection.state, `${connection.id}\u0000${definition.id}`), await detect, connection, definition.id);
}

/** The vault of `scope` in `state`'s server, made on first use and kept most recently used last. */
function vaultOf(state: HostState, scope: string): PrivacyVault {
  let scopes = vaults.get(state);
  if (scopes === undefined) vaults.set(state, (scopes = new Map()));
  const vault = scopes.get(scope) ?? new PrivacyVault();
  scopes.delete(scope);
  scopes.set(scope, vault);
  if (scopes.size > MAX_SCOPES) scopes.delete(scopes.keys().next().value!);
  return vault;
}

/** The {@link ToolPrivacy} of one tool call in a space with `privacy`. */
class ScopePrivacy implements ToolPrivacy {
  readonly #tally = new Tally();

  constructor(
    readonly vault: PrivacyVault,
    readonly detect: Detect,
    readonly connection: Connection,
    readonly space: string,
  ) {}

  code(code: string): string {
    return this.vault.restoreText(code, this.#tally, true);
  }

  args<T>(args: T): T {
    return this.vault.restoreData(args, this.#tally) as T;
  }

  runOptions(options: RunOptions): RunOptions {
    const { onEvent } = options;
    if (!onEvent) return options;
    // Counted apart: the tally counts what the answer holds.
    const scan = (): Scan => ({ ...this.#scan(), tally: new Tally() });
    return { ...options, onEvent: (event) => onEvent(this.vault.tokenizeData(JSON.parse(jsonText(event)), scan()) as RunEvent) };
  }

  async answer(tool: string, produce: () => Promise<CallToolResult>): Promise<CallToolResult> {
    let result: CallToolResult;
    try {
      result = await produce();
    } catch (error) {
      result = toolError(toWireError(error));
    }
    const tokenized = this.#tokenize(result);
    this.#audit(tool);
    return tokenized;
  }

  #scan(): Scan {
    return { detect: this.detect, tally: this.#tally, remaining: SCAN_BUDGET };
  }

  /** `result` with its text contents and `structuredContent` tokenized (other contents, e.g. images, as they are). */
  #tokenize(result: CallToolResult): CallToolResult {
    const content = result.content.map((item) => (item.type === 'text' ? { ...item, text: this.#tokenizeText(item.text) } : item));
    const out: CallToolResult = { ...result, content };
    if (result.structuredContent !== undefined) {
      out.structuredContent = this.vault.tokenizeData(result.structuredContent, { ...this.#scan(), tally: new Tally() }) as Record<string, unknown>;
    }
    return out;
  }

  /** A JSON text tokenized value by value (so it stays JSON), any other text as a whole. */
  #tokenizeText(text: string): string {
    if (/^[[{"]/.test(text)) {
      try {
        return jsonText(this.vault.tokenizeData(JSON.parse(text), this.#scan()));
      } catch {
        // Not JSON after all: tokenized as text below.
      }
    }
    return this.vault.tokenizeText(text, this.#scan());
  }

  #audit(tool: string): void {
    const tally = this.#tally;
    if (tally.tokens === 0 && tally.withheld === 0 && tally.restored === 0) return;
    this.connection.state.log.event('privacy.tokenized', {
      tool,
      client: this.connection.id,
      space: this.space,
      tokens: tally.tokens,
      kinds: tally.kinds() || undefined,
      withheld: tally.withheld || undefined,
      restored: tally.restored || undefined,
    });
  }
}
