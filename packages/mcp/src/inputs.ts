import { AgentSpacesError, envValue, isRecord, type PlaceholderEnv } from '@agent-spaces/capabilities';

/** One entry of VS Code's `inputs`: a value `${input:<id>}` stands for, asked of the user. */
export interface McpInput {
  id: string;
  /** `promptString` (typed in), `pickString` (one of `options`) or `command` (VS Code runs a command: never here). */
  type: string;
  description?: string;
  /** True: the answer is not echoed while typed. */
  password?: boolean;
  options?: string[];
}

const INPUT_PLACEHOLDER = /\$\{input:([^}]+)\}/g;
const PREFIX = 'AGENT_SPACES_INPUT_';

// The inputs of the client files read in this process, by id: what the prompt for `${input:id}` says and hides.
const declared = new Map<string, McpInput>();
// Answers typed in this process, by variable name (asked once, however many servers use the input).
const answers = new Map<string, Promise<string>>();

/** The environment variable (or `.env` entry) that holds the value of `${input:<id>}`: `api-key` → `AGENT_SPACES_INPUT_API_KEY`. */
export function inputVariable(id: string): string {
  return PREFIX + id.toUpperCase().replace(/[^A-Z0-9]/g, '_');
}

/**
 * Reads VS Code's `inputs` array (checked: objects with a string `id` and `type`) and remembers each, so a later
 * prompt for `${input:id}` shows its description and hides a password. Throws `CONFIG_INVALID` naming the file.
 */
export function readInputs(value: unknown, file: string): Map<string, McpInput> {
  const inputs = new Map<string, McpInput>();
  if (value === undefined) return inputs;
  const bad = (index: number | undefined, problem: string) =>
    new AgentSpacesError('CONFIG_INVALID', `${file}: inputs${index === undefined ? '' : `[${index}]`} ${problem}`, { file, field: 'inputs' });
  if (!Array.isArray(value)) throw bad(undefined, 'must be an array');
  value.forEach((entry: unknown, index) => {
    if (!isRecord(entry) || typeof entry.id !== 'string' || entry.id === '' || typeof entry.type !== 'string') {
      throw bad(index, 'must be an object with a string "id" and "type"');
    }
    const input: McpInput = {
      id: entry.id,
      type: entry.type,
      ...(typeof entry.description === 'string' ? { description: entry.description } : {}),
      ...(entry.password === true ? { password: true } : {}),
      ...(Array.isArray(entry.options) ? { options: entry.options.filter((o): o is string => typeof o === 'string') } : {}),
    };
    inputs.set(input.id, input);
    declared.set(input.id, input);
  });
  return inputs;
}

/** The ids of the `${input:id}` placeholders in the strings of `value`, in order, without repeats. */
function inputIdsIn(value: unknown): string[] {
  const ids = new Set<string>();
  const visit = (item: unknown): void => {
    if (typeof item === 'string') for (const match of item.matchAll(INPUT_PLACEHOLDER)) ids.add(match[1]!);
    else if (Array.isArray(item)) item.forEach(visit);
    else if (isRecord(item)) Object.values(item).forEach(visit);
  };
  visit(value);
  return [...ids];
}

/** Where input answers come from when the environment has none: a terminal to prompt on (absent: none). */
export interface InputPrompter {
  /** Asks for one input; resolves to what was typed. */
  ask(input: McpInput): Promise<string>;
}

/**
 * `env` plus the value of every `${input:id}` in `config` that `env` lacks, asked through `prompter` (each input once
 * per process). Without a prompter (no terminal) a missing input is left out, and expansion fails naming its variable.
 */
export async function withInputs(env: PlaceholderEnv, config: unknown, prompter: InputPrompter | undefined): Promise<PlaceholderEnv> {
  const missing = inputIdsIn(config).filter((id) => envValue(env, inputVariable(id)) === undefined);
  if (missing.length === 0 || prompter === undefined) return env;
  const added: Record<string, string> = {};
  for (const id of missing) {
    const variable = inputVariable(id);
    let answer = answers.get(variable);
    if (!answer) {
      answer = prompter.ask(declared.get(id) ?? { id, type: 'promptString', password: true });
      answers.set(variable, answer);
    }
    added[variable] = await answer;
  }
  return { ...env, ...added };
}

/** The prompter of an interactive terminal (stdin and stderr both TTYs), else undefined: `mcp serve` over stdio never asks. */
export function terminalPrompter(): InputPrompter | undefined {
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) return undefined;
  return { ask: askOnTerminal };
}

// Prompts are asked one at a time: servers connect in parallel.
let queue: Promise<unknown> = Promise.resolve();

function askOnTerminal(input: McpInput): Promise<string> {
  const asked = queue.then(async () => {
    const [{ createInterface }, { Writable }] = await Promise.all([import('node:readline'), import('node:stream')]);
    const label = `${input.description ?? `Value for \${input:${input.id}}`}${input.options ? ` (${input.options.join(', ')})` : ''}: `;
    // Once the label is out, a password's keystrokes are not echoed.
    let muted = false;
    const output = new Writable({
      write(chunk: Buffer, _encoding, done) {
        if (!muted) process.stderr.write(chunk);
        done();
      },
    });
    const rl = createInterface({ input: process.stdin, output, terminal: true });
    try {
      const answer = new Promise<string>((answered) => rl.question(label, answered));
      muted = input.password === true;
      return await answer;
    } finally {
      rl.close();
      if (muted) process.stderr.write('\n');
    }
  });
  queue = asked.catch(() => undefined);
  return asked;
}
