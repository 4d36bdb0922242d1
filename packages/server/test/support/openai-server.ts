import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One scripted answer: an HTTP status and JSON body, or `hang` (never answer, to test timeouts). */
export type ScriptedAnswer = { status: number; body: unknown } | { hang: true };

/** A request the scripted model received. */
interface ModelRequestRecord {
  headers: IncomingHttpHeaders;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- the OpenAI chat request, read field by field by the tests
  body: any;
}

/** A scripted OpenAI-compatible chat completions server on 127.0.0.1. */
export interface ScriptedModel {
  /** The API root to configure as `baseURL`. */
  baseURL: string;
  requests: ModelRequestRecord[];
  /** Replaces the answers still to come; the last answer repeats once the script runs out. */
  script(answers: ScriptedAnswer[]): void;
  close(): Promise<void>;
}

/** Starts a server answering `POST /v1/chat/completions` from a script, recording each request. */
export async function startScriptedModel(): Promise<ScriptedModel> {
  const requests: ModelRequestRecord[] = [];
  let answers: ScriptedAnswer[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      requests.push({ headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') });
      const answer = answers.length > 1 ? answers.shift()! : answers[0];
      if (!answer || 'hang' in answer) return;
      res.writeHead(answer.status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer.body));
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    script(next) {
      answers = [...next];
      requests.length = 0;
    },
    close: () =>
      new Promise<void>((done) => {
        server.closeAllConnections();
        server.close(() => done());
      }),
  };
}

let ids = 0;

/** A chat completion whose assistant message asks for `calls` (tool name and arguments). */
export function toolCalls(calls: Array<{ name: string; args: unknown }>, tokens = { prompt: 100, completion: 20 }): ScriptedAnswer {
  return completion(
    { role: 'assistant', content: null, tool_calls: calls.map((c) => ({ id: `call_${++ids}`, type: 'function', function: { name: c.name, arguments: JSON.stringify(c.args) } })) },
    'tool_calls',
    tokens,
  );
}

/** A chat completion whose assistant message is `text`. */
export function textAnswer(text: string, tokens = { prompt: 150, completion: 10 }): ScriptedAnswer {
  return completion({ role: 'assistant', content: text }, 'stop', tokens);
}

function completion(message: unknown, finish: string, tokens: { prompt: number; completion: number }): ScriptedAnswer {
  return {
    status: 200,
    body: {
      id: `chatcmpl-${++ids}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'scripted',
      choices: [{ index: 0, message, finish_reason: finish }],
      usage: { prompt_tokens: tokens.prompt, completion_tokens: tokens.completion, total_tokens: tokens.prompt + tokens.completion },
    },
  };
}
