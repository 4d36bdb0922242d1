// The approvals console of `mcp serve` in a real browser: Debian's Chromium (/usr/bin/chromium, or
// $AGENT_SPACES_CHROMIUM) driven by playwright-core. A person opens /console with the token, sees the waiting script and
// call with their code and params (agent-controlled text shown as text, never as markup), clicks Approve or Deny, and
// the MCP `execute` call ends accordingly; a run paused when its server was killed (SIGKILL) is approved in the console
// of the restarted server and its task completes. With AGENT_SPACES_SCREENSHOT=1 the screenshot it takes replaces
// docs/images/approvals-console.png.
import { createHash } from 'node:crypto';
import { existsSync, statSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type Page } from 'playwright-core';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, CreateTaskResultSchema } from '@modelcontextprotocol/sdk/types.js';
import type { Project } from '../../../test/fixtures/project.js';
import { newClient } from './support/client.js';
import { GatedServe, TOKEN, gatedProject, hashCode } from './support/gated-serve.js';

const CHROMIUM = process.env.AGENT_SPACES_CHROMIUM ?? '/usr/bin/chromium';
const DOCS_SCREENSHOT = fileURLToPath(new URL('../../../docs/images/approvals-console.png', import.meta.url));
/** Agent-controlled text that would run script if the page ever put it in as markup. */
const HOSTILE = `<img src=x onerror="document.title='pwned'"> and the trains`;

let project: Project;
let serve: GatedServe;
let browser: Browser;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (or set AGENT_SPACES_CHROMIUM)`);
  project = await gatedProject({ approveScripts: true });
  serve = new GatedServe(project);
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu'] });
  await serve.url();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await serve?.stop();
});

/** The console, opened with the token in the URL fragment (taken out of the address bar by the page). */
async function openConsole(): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });
  page.setDefaultTimeout(20_000);
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error' && !message.text().includes('favicon')) problems.push(message.text());
  });
  await page.goto(`${await serve.base()}/console#token=${TOKEN}`);
  expect(page.url()).not.toContain(TOKEN);
  expect(problems).toEqual([]);
  return page;
}

/** The card of the request whose title is `title` and whose text contains `text`. */
function card(page: Page, title: string, text: string) {
  return page.locator('article').filter({ has: page.locator('h2', { hasText: title }) }).filter({ hasText: text });
}

describe('the approvals console in a browser', () => {
  it('shows the waiting script and call with their code, and Approve lets the run finish', async () => {
    const page = await openConsole();
    const code = hashCode(HOSTILE);
    const { answer } = await serve.startRun(code);

    const script = card(page, 'Run this script?', 'crypto.hash');
    await script.waitFor({ timeout: 20_000 });
    expect(await script.locator('pre.script').textContent()).toBe(code);
    await script.getByRole('button', { name: 'Approve' }).click();
    await script.waitFor({ state: 'detached' });
    await expect.poll(() => page.locator('#status').textContent()).toContain('Approved: Run this script?');

    const call = card(page, 'std.crypto.hash', 'sha256');
    await call.waitFor({ timeout: 20_000 });
    expect(JSON.parse((await call.locator('pre.params').textContent())!)).toEqual({ algorithm: 'sha256', data: HOSTILE });
    await expect.poll(() => call.locator('pre.script').textContent(), { timeout: 10_000 }).toBe(code);
    expect(await call.locator('.space').textContent()).toBe('space default');
    expect(await call.locator('dd').allTextContents()).toEqual(expect.arrayContaining([expect.stringMatching(/^[0-9a-f-]{36}$/)]));
    await expect.poll(() => call.locator('.expiry').textContent()).toMatch(/^expires in \d+:\d\d$/);
    expect(await page.locator('article img').count()).toBe(0);
    expect(await page.title()).toBe('agent-spaces approvals');

    await page.locator('#by').fill('ann');
    await call.getByRole('button', { name: 'Approve' }).click();
    const result = await answer;
    expect(result.isError).toBe(false);
    expect(result.body.result).toBe(createHash('sha256').update(HOSTILE).digest('hex'));
    await call.waitFor({ state: 'detached' });
    const line = await serve.auditLine(HOSTILE);
    expect(line.decision).toMatchObject({ approved: true, answeredBy: 'ann', answeredFrom: 'console 127.0.0.1' });
    await page.close();
  });

  it('Deny fails the run with APPROVAL_DENIED; a wrong token shows 401', async () => {
    const page = await openConsole();
    const { answer } = await serve.startRun(hashCode('denied from the console'));
    const script = card(page, 'Run this script?', 'denied from the console');
    await script.waitFor({ timeout: 20_000 });
    await script.locator('input').fill('not this one');
    await script.getByRole('button', { name: 'Deny' }).click();
    const result = await answer;
    expect(result.isError).toBe(true);
    expect(result.text).toContain('APPROVAL_DENIED');
    expect(result.text).toContain('not this one');

    await page.locator('#forget').click();
    await page.locator('#token').fill('wrong-token');
    await page.locator('#login button').click();
    await expect.poll(() => page.locator('#status').textContent()).toContain('401');
    expect(await page.locator('#login').isVisible()).toBe(true);
    await page.close();
  });

  it('takes a screenshot of a waiting call and a waiting script', async () => {
    const screenshot = process.env.AGENT_SPACES_SCREENSHOT ? DOCS_SCREENSHOT : project.path('console.png');
    const page = await openConsole();
    const first = await serve.startRun(hashCode('Central 08:15 to the airport'));
    await serve.api('POST', `/approvals/${(await serve.pending((v) => !v.request.capability)).id}/approve`, { by: 'ann' });
    const call = card(page, 'std.crypto.hash', 'Central 08:15');
    await call.waitFor({ timeout: 20_000 });
    const second = await serve.startRun(`import { crypto } from '@agent-spaces/std';\nconst digest = await crypto.hash('sha256', 'morning trains');\nreturn digest.slice(0, 8);`);
    const script = card(page, 'Run this script?', 'morning trains');
    await script.waitFor({ timeout: 20_000 });
    await page.locator('#by').fill('ann');
    await page.screenshot({ path: screenshot, fullPage: true });
    expect(statSync(screenshot).size).toBeGreaterThan(10_000);
    await call.getByRole('button', { name: 'Approve' }).click();
    await script.getByRole('button', { name: 'Deny' }).click();
    expect((await first.answer).body.result).toBe(createHash('sha256').update('Central 08:15 to the airport').digest('hex'));
    expect((await second.answer).text).toContain('APPROVAL_DENIED');
    await page.close();
  });

  it('approves a run paused when its server was killed, in the console of the restarted server; its task completes', async () => {
    const restartProject = await gatedProject();
    const first = new GatedServe(restartProject);
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(new URL(await first.url()), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
    const params = { name: 'execute', arguments: { code: hashCode('after the restart') }, task: {} };
    const { task } = await client.request({ method: 'tools/call', params }, CreateTaskResultSchema);
    const pending = await first.pending((view) => view.request.capability === 'std');
    first.child.kill('SIGKILL');
    await new Promise((resolve) => first.child.once('exit', resolve));
    await client.close().catch(() => undefined);

    const second = new GatedServe(restartProject);
    try {
      const page = await browser.newPage();
      await page.goto(`${await second.base()}/console#token=${TOKEN}`);
      const call = card(page, 'std.crypto.hash', 'after the restart');
      await call.waitFor({ timeout: 20_000 });
      expect(await call.textContent()).toContain(pending.id.slice(0, 8));
      await call.getByRole('button', { name: 'Approve' }).click();
      const again = newClient();
      await again.connect(new StreamableHTTPClientTransport(new URL(await second.url()), { requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } } }));
      await expect.poll(async () => (await again.experimental.tasks.getTask(task.taskId)).status, { timeout: 30_000, interval: 100 }).toBe('completed');
      const result = await again.experimental.tasks.getTaskResult(task.taskId, CallToolResultSchema);
      const text = result.content[0]?.type === 'text' ? result.content[0].text : '';
      expect(JSON.parse(text).result).toBe(createHash('sha256').update('after the restart').digest('hex'));
      expect(await second.auditLine('after the restart')).toMatchObject({ decision: { approved: true, answeredFrom: expect.stringMatching(/^console /) } });
      await again.close();
      await page.close();
    } finally {
      await second.stop();
    }
  }, 120_000);
});
