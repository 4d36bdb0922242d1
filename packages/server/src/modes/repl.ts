import { createInterface } from 'node:readline';
import { toWireError } from '@agent-spaces/capabilities';
import { configLoader, type ServeContext } from '../cli.js';
import { silentLog } from '../log.js';
import { createCodeModeHost } from '../server.js';
import { ChatConversations, type ChatProgress } from './chat.js';

/** The word that ends `agent-spaces chat`. */
const EXIT = '/exit';

/**
 * `agent-spaces chat [--space S] [--config F] [--out DIR]`: a conversation with the space's headless agent (its
 * `model`, else the config's) on stdin/stdout, one message per line: each agent message is printed as it arrives (its
 * code on stderr, its text on stdout), and the conversation goes on until `/exit` or the end of stdin. Works with a
 * pipe as stdin. Returns 0, or 2 for an unknown space.
 */
export async function chat(context: ServeContext): Promise<number> {
  const { values, output } = context;
  const config = await (await configLoader(values))();
  const spaceId = typeof values.space === 'string' ? values.space : undefined;
  if (spaceId !== undefined && !config.spaces.some((s) => s.id === spaceId)) {
    output.err(`agent-spaces chat: no space "${spaceId}" (spaces: ${config.spaces.map((s) => s.id).join(', ')})`);
    return 2;
  }
  const host = createCodeModeHost({ spaces: config.spaces, space: config.space, configFile: config.file, log: silentLog, ...(config.model ? { model: config.model } : {}) });
  const conversations = new ChatConversations(host.agents);
  const lines = createInterface({ input: process.stdin, terminal: false });
  const prompt = () => output.interactive && process.stderr.write('> ');
  let conversationId: string | undefined;
  try {
    prompt();
    for await (const line of lines) {
      const message = line.trim();
      if (message === EXIT) break;
      if (message === '') {
        prompt();
        continue;
      }
      try {
        const answer = await conversations.send(
          undefined,
          { message, ...(spaceId ? { space: spaceId } : {}), ...(conversationId ? { conversationId } : {}) },
          new AbortController().signal,
          (step) => printStep(step, output),
        );
        conversationId = answer.conversation_id;
        if (!answer.ok) output.err(`✗ ${answer.error.code}: ${answer.error.message}`);
      } catch (error) {
        const { code, message: text } = toWireError(error);
        output.err(`✗ ${code}: ${text}`);
      }
      prompt();
    }
  } finally {
    lines.close();
    await host.close();
  }
  return 0;
}

/** An agent message as it arrives: its tool calls (the code it runs) on stderr, its text on stdout. */
function printStep(step: ChatProgress, output: ServeContext['output']): void {
  if (step.type !== 'agent_message') return;
  for (const call of step.tool_calls) {
    const code = (call.input as { code?: unknown } | undefined)?.code;
    output.err(`▸ ${call.name}${typeof code === 'string' ? `\n${code}` : ` ${JSON.stringify(call.input)}`}`);
  }
  if (step.text !== '') output.out(step.text);
}
