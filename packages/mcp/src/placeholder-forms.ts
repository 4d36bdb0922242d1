import { homedir } from 'node:os';
import { basename, sep } from 'node:path';
import { AgentSpacesError } from '@agent-spaces/capabilities';

/**
 * What the `${...}` forms of an MCP client config stand for while it is read: the folder `${workspaceFolder}` is
 * (undefined: the form is refused) and the ids `${input:id}` may name (undefined: none may).
 */
export interface PlaceholderContext {
  /** The file being read, as errors name it. */
  file: string;
  /** The project folder: the one holding `.mcp.json`, `.cursor/` or `.vscode/`. */
  workspaceFolder?: string;
  /** The ids the file's `inputs` declares (VS Code). */
  inputs?: ReadonlySet<string>;
  /** True: any `${input:id}` is kept (a config given in code, whose inputs come from the environment). */
  anyInput?: boolean;
}

const NAME = '[A-Za-z_][A-Za-z0-9_]*';
// VS Code's predefined variables that mean nothing outside an editor (the open file, the selection, …): refused, never
// read as environment variables of the same name.
const EDITOR_ONLY = new Set([
  'cwd', 'file', 'fileBasename', 'fileBasenameNoExtension', 'fileDirname', 'fileDirnameBasename', 'fileExtname',
  'fileWorkspaceFolder', 'relativeFile', 'relativeFileDirname', 'lineNumber', 'columnNumber', 'selectedText', 'execPath',
  'defaultBuildTask', 'workspaceRoot', 'workspaceRootFolderName',
]);
const KEPT = new RegExp(`^(?:${NAME}(?::-[^]*)?|user:${NAME})$`);
const ENV = new RegExp(`^env:(${NAME})$`);
const INPUT = /^input:([^]+)$/;

/**
 * `text` with every `${...}` form read: `${userHome}`, `${pathSeparator}` / `${/}`, `${workspaceFolder}` and
 * `${workspaceFolderBasename}` are replaced by their value; `${env:VAR}` becomes `${VAR}`; `${VAR}`,
 * `${VAR:-default}`, `${user:NAME}` and a declared `${input:id}` stay, to be expanded when the server starts. Any other
 * form — unknown (`${command:x}`, `${cwd}`), nested (`${${A}}`), unclosed, an undeclared input — throws
 * `CONFIG_PLACEHOLDER` naming the file, server, field and form: nothing is passed through literally.
 * @example normalizePlaceholders('${workspaceFolder}/db', { file: '.cursor/mcp.json', workspaceFolder: '/p' }, 'db', 'args[0]') // '/p/db'
 */
export function normalizePlaceholders(text: string, context: PlaceholderContext, server: string, field: string): string {
  let out = '';
  let at = 0;
  for (let start = text.indexOf('${'); start >= 0; start = text.indexOf('${', at)) {
    const end = text.indexOf('}', start + 2);
    const inner = end < 0 ? undefined : text.slice(start + 2, end);
    if (inner === undefined || inner.includes('${')) {
      throw refused(context, server, field, shownForm(text, start), inner === undefined ? 'is not closed' : 'nests a placeholder in a placeholder');
    }
    out += text.slice(at, start) + formValue(inner, context, server, field);
    at = end + 1;
  }
  return out + text.slice(at);
}

/** The value a form stands for, the canonical placeholder to keep, or a `CONFIG_PLACEHOLDER` throw. */
function formValue(inner: string, context: PlaceholderContext, server: string, field: string): string {
  const form = `\${${inner}}`;
  const predefined = predefinedValue(inner, context, server, field);
  if (predefined !== undefined) return predefined;
  if (KEPT.test(inner)) return form;
  const env = ENV.exec(inner);
  if (env) return `\${${env[1]}}`;
  const input = INPUT.exec(inner);
  if (input) {
    if (context.anyInput === true || context.inputs?.has(input[1]!)) return form;
    const why = context.inputs ? `names no entry of the file's "inputs"` : 'needs an "inputs" entry, which only VS Code\'s .vscode/mcp.json declares';
    throw refused(context, server, field, form, why);
  }
  throw refused(context, server, field, form, 'is not a placeholder agent-spaces expands (see docs/mcp.md, "Placeholders")');
}

/** The value of a predefined variable of Cursor and VS Code, undefined for other names; editor-only ones are refused. */
function predefinedValue(inner: string, context: PlaceholderContext, server: string, field: string): string | undefined {
  switch (inner) {
    case 'userHome':
      return homedir();
    case 'pathSeparator':
    case '/':
      return sep;
    case 'workspaceFolder':
    case 'workspaceFolderBasename':
      if (context.workspaceFolder === undefined) {
        throw refused(context, server, field, `\${${inner}}`, 'has no workspace folder here: write the path (relative paths are relative to the config folder)');
      }
      return inner === 'workspaceFolder' ? context.workspaceFolder : basename(context.workspaceFolder);
    default:
      if (EDITOR_ONLY.has(inner)) throw refused(context, server, field, `\${${inner}}`, 'is an editor variable with no value outside the editor');
      return undefined;
  }
}

/** The form starting at `start` as written, up to its matching `}` (or 40 characters when there is none). */
function shownForm(text: string, start: number): string {
  let depth = 0;
  for (let i = start; i < text.length; i++) {
    if (text.startsWith('${', i)) depth++;
    else if (text[i] === '}' && --depth === 0) return text.slice(start, i + 1);
  }
  return text.slice(start, start + 40);
}

function refused(context: PlaceholderContext, server: string, field: string, form: string, why: string): AgentSpacesError {
  const detail = `${server}.${field}: ${form} ${why}`;
  return new AgentSpacesError('CONFIG_PLACEHOLDER', `${context.file}: mcpServers.${detail}`, { file: context.file, server, field, form, detail });
}
