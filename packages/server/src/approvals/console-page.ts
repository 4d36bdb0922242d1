// The approvals console of `mcp serve` (`GET /console`): one page, its style and script inline, no other resource.
// What it shows comes from agent code (params, messages, scripts): the script puts it on the page with textContent
// only, never as markup.

/** The page's style sheet (allowed by its hash in the Content-Security-Policy). */
export const CONSOLE_STYLE = `
:root { color-scheme: light dark; --line: #8884; --muted: #777; --ok: #1a7f37; --no: #b42318; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, sans-serif; margin: 0 auto; max-width: 980px; padding: 16px 20px 40px; }
header.top { display: flex; align-items: baseline; gap: 12px; flex-wrap: wrap; border-bottom: 1px solid var(--line); padding-bottom: 8px; }
header.top h1 { font-size: 18px; margin: 0; }
header.top .refreshed { color: var(--muted); margin-left: auto; font-size: 12px; }
form, .bar { display: flex; gap: 8px; align-items: center; flex-wrap: wrap; margin: 12px 0; }
input { font: inherit; padding: 4px 8px; border: 1px solid var(--line); border-radius: 6px; background: transparent; color: inherit; }
button { font: inherit; padding: 4px 14px; border-radius: 6px; border: 1px solid var(--line); background: transparent; color: inherit; cursor: pointer; }
button.approve { background: var(--ok); border-color: var(--ok); color: #fff; }
button.deny { background: var(--no); border-color: var(--no); color: #fff; }
button:disabled { opacity: 0.5; cursor: default; }
#status { margin: 12px 0; padding: 8px 12px; border-radius: 6px; white-space: pre-wrap; }
#status.error { border: 1px solid var(--no); color: var(--no); }
#status.info { border: 1px solid var(--ok); color: var(--ok); }
.hidden { display: none !important; }
.empty { color: var(--muted); margin: 24px 0; }
article { border: 1px solid var(--line); border-radius: 8px; padding: 12px 14px; margin: 14px 0; }
article h2 { font-size: 16px; margin: 0; font-family: ui-monospace, monospace; }
article .head { display: flex; gap: 12px; align-items: baseline; flex-wrap: wrap; }
article .space { color: var(--muted); }
article .expiry { margin-left: auto; font-variant-numeric: tabular-nums; color: var(--muted); }
article .expiry.soon { color: var(--no); }
article .message { white-space: pre-wrap; margin: 8px 0; }
article dl { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 8px 0; font-size: 12px; color: var(--muted); }
article dd { margin: 0; font-family: ui-monospace, monospace; overflow-wrap: anywhere; }
article h3 { font-size: 12px; text-transform: uppercase; letter-spacing: 0.04em; color: var(--muted); margin: 10px 0 4px; }
pre { margin: 0; padding: 8px 10px; border-radius: 6px; background: #8881; overflow: auto; max-height: 360px; font: 12px/1.45 ui-monospace, monospace; white-space: pre; }
.note { color: var(--muted); font-style: italic; }
`;

/** The page's script (allowed by its hash in the Content-Security-Policy). */
export const CONSOLE_SCRIPT = `
'use strict';
const KEY = 'agent-spaces-approvals-token';
const NAME_KEY = 'agent-spaces-approvals-name';
const $ = (id) => document.getElementById(id);
const cards = new Map();
let token = readToken();

/** The token from #token= (then taken out of the address bar) or from this tab's sessionStorage. */
function readToken() {
  const match = /(?:^|&)token=([^&]*)/.exec(location.hash.slice(1));
  if (match) {
    sessionStorage.setItem(KEY, decodeURIComponent(match[1]));
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(KEY) || '';
}

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function say(text, kind, source) {
  const status = $('status');
  status.textContent = text;
  status.className = text ? kind : 'hidden';
  status.dataset.source = source || '';
}

class ApiError extends Error {
  constructor(status, body) {
    const error = (body && body.error) || {};
    super(error.message || 'HTTP ' + status);
    this.status = status;
    this.code = error.code || 'HTTP_' + status;
  }
}

async function api(path, body) {
  const headers = { 'X-Agent-Spaces-Client': 'console' };
  if (token) headers.Authorization = 'Bearer ' + token;
  const init = { headers, cache: 'no-store' };
  if (body !== undefined) {
    init.method = 'POST';
    headers['Content-Type'] = 'application/json';
    init.body = JSON.stringify(body);
  }
  const response = await fetch('/approvals' + path, init);
  const parsed = await response.json().catch(() => undefined);
  if (!response.ok) throw new ApiError(response.status, parsed);
  return parsed;
}

function showLogin(why) {
  $('login').classList.remove('hidden');
  if (why) say(why, 'error');
}

function describe(view) {
  const request = view.request;
  const isScript = !request.capability;
  const code = view.script !== undefined ? view.script : isScript && request.params ? request.params.code : undefined;
  return {
    title: isScript ? 'Run this script?' : request.capability + '.' + request.function,
    message: isScript ? String(request.message || '').split('\\n')[0] : String(request.message || ''),
    params: isScript ? undefined : JSON.stringify(request.params === undefined ? null : request.params, null, 2),
    code: typeof code === 'string' ? code : undefined,
  };
}

/** The request's approvers requirement in words, or undefined when anyone may answer. */
function approversText(approvers) {
  if (!approvers) return undefined;
  const parts = [];
  if (approvers.others) parts.push('someone other than the requester');
  if (approvers.groups) parts.push('a member of ' + approvers.groups.join(' or '));
  return parts.join(', ') || undefined;
}

function field(list, name, value) {
  if (value === undefined || value === null || value === '') return;
  list.append(el('dt', '', name), el('dd', '', String(value)));
}

function section(card, title, text, note) {
  const body = text === undefined ? el('p', 'note', note) : el('pre', title.toLowerCase(), text);
  card.append(el('h3', '', title), body);
  return body;
}

const NO_SCRIPT = 'The script of this run is not on record.';

/** Shows the run's code once a later refresh brings it (its record may be written after the request). */
function updateCode(entry, view) {
  const code = describe(view).code;
  if (code === undefined || code === entry.code) return;
  const pre = el('pre', 'script', code);
  entry.slot.replaceWith(pre);
  entry.slot = pre;
  entry.code = code;
}

function renderCard(view) {
  const request = view.request;
  const shown = describe(view);
  const card = el('article');
  card.dataset.id = view.id;
  const head = el('div', 'head');
  head.append(el('h2', 'what', shown.title), el('span', 'space', request.space ? 'space ' + request.space : ''), el('span', 'expiry'));
  card.append(head, el('p', 'message', shown.message));
  const list = el('dl');
  field(list, 'request', view.id);
  field(list, 'run', request.runId);
  field(list, 'session', request.sessionId);
  field(list, 'asked by', request.requestedBy ? request.requestedBy.id : 'local');
  field(list, 'who may answer', approversText(request.approvers));
  field(list, 'asked at', request.createdAt && new Date(request.createdAt).toLocaleString());
  card.append(list);
  if (shown.params !== undefined) section(card, 'Params', shown.params);
  const slot = section(card, 'Script', shown.code, NO_SCRIPT);
  const actions = el('div', 'bar');
  const reason = el('input');
  reason.placeholder = 'Reason (optional)';
  reason.maxLength = 200;
  const approve = el('button', 'approve', 'Approve');
  const deny = el('button', 'deny', 'Deny');
  approve.addEventListener('click', () => answer(view, true, reason.value, card));
  deny.addEventListener('click', () => answer(view, false, reason.value, card));
  actions.append(reason, approve, deny);
  card.append(actions);
  return { card, slot, code: shown.code, expiresAt: request.expiresAt ? Date.parse(request.expiresAt) : undefined };
}

async function answer(view, approved, reason, card) {
  for (const button of card.querySelectorAll('button')) button.disabled = true;
  const by = $('by').value.trim();
  localStorage.setItem(NAME_KEY, by);
  const what = describe(view).title;
  try {
    const after = await api('/' + encodeURIComponent(view.id) + (approved ? '/approve' : '/deny'), { by: by || undefined, reason: reason.trim() || undefined });
    const from = after.answer.from ? ' from ' + after.answer.from : '';
    say((after.status === 'approved' ? 'Approved: ' : 'Denied: ') + what + ' (by ' + after.answer.by + from + ')', 'info');
    drop(view.id);
  } catch (error) {
    if (error.status === 401) return showLogin('The server refused the token (401): enter the token mcp serve was started with.');
    if (error.status === 409) {
      say('Answered already (409): ' + error.message, 'error');
      return drop(view.id);
    }
    say('Could not answer ' + what + ': ' + error.message, 'error');
    for (const button of card.querySelectorAll('button')) button.disabled = false;
  }
}

function drop(id) {
  const entry = cards.get(id);
  if (entry) entry.card.remove();
  cards.delete(id);
  $('empty').classList.toggle('hidden', cards.size > 0);
}

function tick() {
  const now = Date.now();
  for (const entry of cards.values()) {
    const node = entry.card.querySelector('.expiry');
    if (entry.expiresAt === undefined) continue;
    const left = Math.max(0, Math.round((entry.expiresAt - now) / 1000));
    node.textContent = left > 0 ? 'expires in ' + Math.floor(left / 60) + ':' + String(left % 60).padStart(2, '0') : 'expired';
    node.classList.toggle('soon', left < 60);
  }
}

async function refresh() {
  try {
    const { approvals } = await api('');
    $('login').classList.toggle('hidden', Boolean(token));
    const ids = new Set(approvals.map((view) => view.id));
    for (const id of [...cards.keys()]) if (!ids.has(id)) drop(id);
    for (const view of approvals) {
      if (cards.has(view.id)) {
        updateCode(cards.get(view.id), view);
        continue;
      }
      const entry = renderCard(view);
      cards.set(view.id, entry);
      $('list').append(entry.card);
    }
    $('empty').classList.toggle('hidden', cards.size > 0);
    $('refreshed').textContent = 'refreshed ' + new Date().toLocaleTimeString();
    if ($('status').dataset.source === 'refresh') say('');
    tick();
  } catch (error) {
    if (error.status === 401) return showLogin(token ? 'The server refused the token (401).' : 'This server needs a token (401): enter it above.');
    say('Could not load the approvals: ' + error.message, 'error', 'refresh');
  }
}

$('login').addEventListener('submit', (event) => {
  event.preventDefault();
  token = $('token').value;
  sessionStorage.setItem(KEY, token);
  $('token').value = '';
  say('');
  refresh();
});
$('forget').addEventListener('click', () => {
  sessionStorage.removeItem(KEY);
  token = '';
  showLogin();
});
$('by').value = localStorage.getItem(NAME_KEY) || '';
refresh();
setInterval(refresh, 2000);
setInterval(tick, 1000);
`;

/** The page: the style and script above, a token form, a name field, and the list they fill. */
export function consoleHtml(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>agent-spaces approvals</title>
<style>${CONSOLE_STYLE}</style>
</head>
<body>
<header class="top"><h1>Pending approvals</h1><span>agent-spaces mcp serve</span><span class="refreshed" id="refreshed"></span></header>
<form id="login" class="hidden" autocomplete="off">
<label for="token">Token</label><input id="token" type="password" placeholder="the --auth-token of mcp serve">
<button type="submit">Use token</button>
</form>
<div class="bar"><label for="by">Your name</label><input id="by" maxlength="200" placeholder="shown in the audit log"><button id="forget" type="button">Forget token</button></div>
<div id="status" class="hidden" role="status"></div>
<p id="empty" class="empty hidden">No pending approvals.</p>
<main id="list"></main>
<script>${CONSOLE_SCRIPT}</script>
</body>
</html>
`;
}
