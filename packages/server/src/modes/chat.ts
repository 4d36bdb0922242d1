import { randomUUID } from 'node:crypto';
import { AgentSpacesError, type RunEvent, type WireError } from '@agent-spaces/capabilities';
import { DEFAULT_MAX_TURNS, type AgentMessage, type ToolCall } from '@agent-spaces/sdk';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import type { AgentRunReport } from '../agent/run.js';
import { runHeadless } from '../tools/prompt.js';
import type { AgentSurface } from './surface.js';

/** Bounds of the chat conversations of one server. */
export interface ChatLimits {
  /** Most conversations one principal keeps; a new one past it ends the principal's least recently used idle one. */
  maxConversationsPerPrincipal: number;
  /** Most bytes (JSON) a conversation's messages may hold; a message past it is refused with `PAYLOAD_TOO_LARGE`. */
  maxConversationBytes: number;
  /** Longest a conversation is kept without a message, in ms. */
  idleMs: number;
  /** Most model turns of one message. */
  maxTurns: number;
}

/** Default {@link ChatLimits}: 16 conversations a principal, 512 KiB each, kept an hour idle, 10 turns a message. */
const DEFAULT_CHAT_LIMITS: ChatLimits = { maxConversationsPerPrincipal: 16, maxConversationBytes: 512 * 1024, idleMs: 3_600_000, maxTurns: DEFAULT_MAX_TURNS };

/** What one chat message asks: the text, the space (default: the first), the conversation to go on (default: a new one). */
export interface ChatRequest {
  message: string;
  space?: string;
  conversationId?: string;
}

/** A step of an answer in progress: each assistant message (its text and tool calls) and each event of its code runs. */
export type ChatProgress =
  | { type: 'agent_message'; text: string; tool_calls: ToolCall[] }
  | { type: 'run_event'; event: RunEvent };

/** The answer to one chat message: the agent's text (or its error), with seed 004's events and metadata. */
export type ChatAnswer = { conversation_id: string; space: string; events: AgentRunReport['events']; metadata: AgentRunReport['metadata'] } & (
  | { ok: true; response: string }
  | { ok: false; error: WireError }
);

/** One conversation: its principal, space and messages so far; messages to it are answered one after the other. */
interface Conversation {
  readonly id: string;
  readonly principal: string;
  readonly space: string;
  messages: AgentMessage[];
  bytes: number;
  lastUsed: number;
  busy: number;
  queue: Promise<unknown>;
}

/**
 * The chat conversations of a server (seed 000's Interactive mode): each message is answered by the space's headless
 * agent (the same loop as prompt tools and `send_message`) with the conversation so far; its code runs in fresh
 * contexts. A conversation belongs to the principal that started it: to anyone else its id is unknown.
 */
export class ChatConversations {
  readonly #surface: AgentSurface;
  readonly #limits: ChatLimits;
  readonly #conversations = new Map<string, Conversation>();

  constructor(surface: AgentSurface, limits: Partial<ChatLimits> = {}) {
    this.#surface = surface;
    this.#limits = { ...DEFAULT_CHAT_LIMITS, ...limits };
  }

  /**
   * Answers `request` for the principal `authInfo` proves, telling `onProgress` each step as it happens. Rejects
   * `INVALID_ARGUMENTS` (an empty message), `SPACE_NOT_FOUND`, `SESSION_NOT_FOUND` (a conversation this principal does
   * not have: unknown, ended, or another's), `INVALID_ARGUMENTS` (a space other than the conversation's) and
   * `PAYLOAD_TOO_LARGE` (a full conversation); an agent run that fails resolves with `ok: false`.
   */
  async send(authInfo: AuthInfo | undefined, request: ChatRequest, signal: AbortSignal, onProgress?: (step: ChatProgress) => void): Promise<ChatAnswer> {
    if (request.message.trim() === '') throw argumentError('message', 'must be a non-empty string');
    const connection = this.#surface.connection(authInfo);
    this.#expire();
    const principal = connection.principal.id;
    const definition = connection.definition(request.space ?? this.#conversations.get(request.conversationId ?? '')?.space);
    const conversation = request.conversationId === undefined ? this.#start(principal, definition.id) : this.#find(principal, request.conversationId);
    if (conversation.space !== definition.id) throw argumentError('space', `is "${conversation.space}" for this conversation`);
    conversation.busy++;
    const turn = conversation.queue.then(async () => {
      const user: AgentMessage = { role: 'user', text: request.message };
      if (conversation.bytes + size(user) > this.#limits.maxConversationBytes) {
        throw new AgentSpacesError('PAYLOAD_TOO_LARGE', `This conversation holds over ${this.#limits.maxConversationBytes} bytes: start a new one`, {
          limit: this.#limits.maxConversationBytes,
        });
      }
      const context = {
        connection,
        runOptions: { signal, ...(onProgress ? { onEvent: (event: RunEvent) => onProgress({ type: 'run_event', event }) } : {}) },
        ...(onProgress ? { onAgentMessage: (m: { text: string; toolCalls: ToolCall[] }) => onProgress({ type: 'agent_message', text: m.text, tool_calls: m.toolCalls }) } : {}),
      };
      const report = await runHeadless(definition, [...conversation.messages, user], this.#limits.maxTurns, context);
      if (report.ok) this.#keep(conversation, report.messages);
      const common = { conversation_id: conversation.id, space: definition.id, events: report.events, metadata: report.metadata };
      return report.ok ? { ok: true as const, response: report.response, ...common } : { ok: false as const, error: report.error, ...common };
    });
    conversation.queue = turn.catch(() => undefined);
    try {
      return await turn;
    } finally {
      conversation.busy--;
      conversation.lastUsed = Date.now();
    }
  }

  /** How many conversations are kept now. */
  get size(): number {
    return this.#conversations.size;
  }

  /** A new conversation of `principal` in `space`, ending its least recently used idle one when it has too many. */
  #start(principal: string, space: string): Conversation {
    const own = [...this.#conversations.values()].filter((c) => c.principal === principal);
    if (own.length >= this.#limits.maxConversationsPerPrincipal) {
      const idle = own.filter((c) => c.busy === 0).sort((a, b) => a.lastUsed - b.lastUsed)[0];
      if (!idle) {
        throw new AgentSpacesError('TOO_MANY_SESSIONS', `This principal has ${own.length} conversations answering: wait for one`, {
          scope: 'client',
          limit: this.#limits.maxConversationsPerPrincipal,
        });
      }
      this.#conversations.delete(idle.id);
    }
    const conversation: Conversation = { id: randomUUID(), principal, space, messages: [], bytes: 0, lastUsed: Date.now(), busy: 0, queue: Promise.resolve() };
    this.#conversations.set(conversation.id, conversation);
    return conversation;
  }

  /** The conversation `id` of `principal`; `SESSION_NOT_FOUND` otherwise, the same for another principal's. */
  #find(principal: string, id: string): Conversation {
    const found = this.#conversations.get(id);
    if (found?.principal === principal) return found;
    throw new AgentSpacesError('SESSION_NOT_FOUND', `No conversation "${id}" (never started, ended, or expired): leave conversation_id out to start one`, {
      conversation_id: id,
    });
  }

  /** Keeps the messages of an answered turn (the user's, the agent's and its tool results). */
  #keep(conversation: Conversation, messages: AgentMessage[]): void {
    conversation.messages = messages;
    conversation.bytes = messages.reduce((total, m) => total + size(m), 0);
  }

  /** Ends the conversations idle for longer than the limit. */
  #expire(): void {
    const before = Date.now() - this.#limits.idleMs;
    for (const [id, c] of this.#conversations) if (c.busy === 0 && c.lastUsed < before) this.#conversations.delete(id);
  }
}

function size(message: AgentMessage): number {
  return Buffer.byteLength(JSON.stringify(message));
}

function argumentError(field: string, problem: string): AgentSpacesError {
  return new AgentSpacesError('INVALID_ARGUMENTS', `chat: ${field} ${problem}`, { errors: [{ field, problem }] });
}
