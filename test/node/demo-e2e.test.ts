import type { Browser, Page, Route } from 'playwright';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type DemoServer, launchChromium, startDemo } from './demo-server.js';
import { hangMs } from './fixtures/deadlines.js';

// What a newcomer does: `npm run demo`, open the page, type a message, press Send, and watch the
// offload, the read-back and an eviction; reload and find everything still there.

let server: DemoServer | undefined;
let browser: Browser | undefined;

beforeAll(async () => {
  server = await startDemo();
  browser = await launchChromium();
}, 600_000);

afterAll(async () => {
  await browser?.close();
  await server?.stop();
}, 600_000);

const pageErrors: string[] = [];

/** Closes the page's browser profile; the page threw nothing uncaught meanwhile. */
async function closeDemo(page: Page): Promise<void> {
  await page.context().close();
  expect(pageErrors, 'uncaught errors in the page').toEqual([]);
}

/** A fresh browser profile (empty IndexedDB and storage) with the demo open. */
async function openDemo(viewport = { width: 1440, height: 900 }): Promise<Page> {
  const context = await browser!.newContext({ viewport });
  // Playwright's 30 s default is a deadline a busy CI machine can miss: these wait for hangs only.
  context.setDefaultTimeout(hangMs);
  const page = await context.newPage();
  pageErrors.length = 0;
  page.on('pageerror', (error) => pageErrors.push(error.message));
  // The server's first page load waits for vite to pre-bundle the dependencies (langchain, ai…).
  await page.goto(server!.url, { timeout: hangMs });
  await expect.poll(() => page.getByRole('button', { name: 'Send' }).count()).toBe(1);
  return page;
}

async function send(page: Page, text: string): Promise<void> {
  await page.getByLabel('Message').fill(text);
  await page.getByRole('button', { name: 'Send' }).click();
}

const finalAnswer = 'The inspector shows every stored result';
const storedPaths = (page: Page) =>
  page.locator('.conversation .badge.stored').evaluateAll((badges) => badges.map((b) => b.textContent!.slice(12)));

/** Everything the first scenario leaves on screen, checked in the conversation and the inspector. */
async function expectScenarioShown(page: Page): Promise<void> {
  const conversation = page.getByRole('region', { name: 'Conversation' });
  await conversation.getByText(finalAnswer).waitFor({ timeout: hangMs });

  // Offloaded: three results, each replaced by a header naming its path, the 2.3 MB page cut.
  const paths = await storedPaths(page);
  expect(paths).toHaveLength(3);
  for (const path of paths) expect(path).toMatch(/^\/large_tool_results\/[A-Za-z0-9_-]+$/);
  await expect.poll(() => conversation.getByText('Stored: the first 2097152 bytes').count()).toBe(1);

  // Read back: a page of the log result (lines 2001–2012) and a grep of the changelog.
  const readBack = conversation.getByRole('article', { name: 'Result of read_file' }).first();
  expect(await readBack.textContent()).toMatch(/ {2}2001\t2025-03-14T\S+ (WARN|ERROR)/);
  const grep = conversation.getByRole('article', { name: 'Result of grep' });
  expect(await grep.textContent()).toContain(`${paths[1]}:`);
  expect(await grep.textContent()).toContain('BREAKING');

  // Evicted: reading the log result again is a tool error that says so.
  const reread = conversation.getByRole('article', { name: 'Result of read_file' }).last();
  expect(await reread.textContent()).toMatch(new RegExp(`${paths[0]} was evicted`));

  // The inspector: two entries (the page and the reference), one eviction with reason 'bound'.
  const inspector = page.getByRole('region', { name: 'Tool output inspector' });
  await expect.poll(() => inspector.getByRole('tab', { name: 'Entries (2)' }).count()).toBe(1);
  const grid = inspector.getByRole('grid', { name: 'Stored entries' });
  expect(await grid.textContent()).toContain(paths[1]);
  expect(await grid.textContent()).toContain(paths[2]);
  expect(await grid.textContent()).not.toContain(paths[0]);
  await inspector.getByRole('tab', { name: 'Evictions (1)' }).click();
  const timeline = inspector.getByRole('list', { name: 'Evictions, newest first' });
  expect(await timeline.textContent()).toMatch(new RegExp(`bound[\\s\\S]*${paths[0]}`));
  expect(await page.getByRole('meter', { name: /stored bytes/ }).getAttribute('aria-valuetext')).toMatch(/of 3\.0 MiB/);
}

describe('the demo, as a newcomer uses it', () => {
  it('one message shows offload, read-back and eviction; a reload shows them again', async () => {
    const page = await openDemo();
    await send(page, 'Why did checkout fail yesterday?');
    // The offline model streams: the answer's first words are on screen while the run still works.
    await page.waitForFunction(
      (start) => {
        const conversation = document.querySelector('.conversation')?.textContent ?? '';
        const working = document.querySelector('[role="status"]')?.textContent?.includes('Working') ?? false;
        return (
          working &&
          conversation.includes(start) &&
          !conversation.includes('the exact preview I saw, and the evictions.')
        );
      },
      'tool results were too large for the context',
      { timeout: hangMs, polling: 'raf' },
    );
    await expectScenarioShown(page);
    const before = await page.getByRole('region', { name: 'Conversation' }).textContent();

    await page.reload();
    await expectScenarioShown(page);
    expect(await page.getByRole('region', { name: 'Conversation' }).textContent()).toBe(before);
    expect(await page.getByRole('status').count()).toBe(0); // nothing is running after the reload
    await closeDemo(page);
  }, 600_000);

  it('a reload in the middle of a run continues it (agent.recover) to the same end', async () => {
    const page = await openDemo();
    // The reload must come while the run is on: on a busy machine the run could end first. So the
    // page's clock stands still and moves on in small steps until fetch_page runs; its simulated
    // fetch (450 ms of the page's time) then cannot end before the reload.
    await page.clock.install();
    await page.clock.pauseAt(Date.now() + 1000);
    await send(page, 'What broke?');
    const running = page.getByText('Working: running fetch_page');
    while ((await running.count()) === 0) await page.clock.runFor(20);
    await page.reload();
    await page.clock.resume();
    await page.getByText('Continuing the run the reload interrupted.').waitFor();
    await expectScenarioShown(page);
    await closeDemo(page);
  }, 600_000);

  it('"Clear thread" starts an empty thread and removes its stored results', async () => {
    const page = await openDemo();
    await send(page, 'Hello');
    await page.getByText(finalAnswer).waitFor({ timeout: hangMs });
    await page.getByRole('button', { name: 'Clear thread' }).click();
    const inspector = page.getByRole('region', { name: 'Tool output inspector' });
    await expect.poll(() => inspector.getByRole('tab', { name: 'Entries (0)' }).count()).toBe(1);
    expect(await page.locator('.conversation article').count()).toBe(0);
    await page.reload();
    await expect.poll(() => page.getByText(/Try the offline scenario/).count()).toBe(1);
    await closeDemo(page);
  }, 600_000);
});

describe('the demo on a phone (390 px)', () => {
  it('puts the conversation first with room to read, and never places the inspector "on the right"', async () => {
    const page = await openDemo({ width: 390, height: 844 });
    const box = async (name: string) => (await page.getByRole('region', { name }).boundingBox())!;
    const conversation = await box('Conversation');
    expect(conversation.height).toBeGreaterThanOrEqual(400);
    expect(await page.locator('body').textContent()).not.toContain('on the right');
    await send(page, 'Why did checkout fail yesterday?');
    await expectScenarioShown(page);
    expect(await page.locator('body').textContent()).not.toContain('on the right');
    // The inspector is below the chat, a scroll away, and as wide as the screen.
    const inspector = (await page.getByRole('complementary', { name: 'Inspector' }).boundingBox())!;
    const chat = await box('Conversation');
    expect(inspector.y).toBeGreaterThanOrEqual(chat.y + chat.height);
    expect(Math.round(inspector.width)).toBe(390);
    await closeDemo(page);
  }, 600_000);
});

describe('the budget switch ("small model: 8,000 tokens")', () => {
  const budgetSwitch = (page: Page) => page.getByLabel('small model: 8,000 tokens');
  const gauges = (page: Page) => page.getByRole('region', { name: 'Stored bytes per thread' });

  it("fits the built-in runtime's requests to 8,000 tokens: the oldest results are cleared and marked; it stays on after a reload", async () => {
    const page = await openDemo();
    await budgetSwitch(page).check();
    await send(page, 'Why did checkout fail yesterday?');
    await expectScenarioShown(page);
    await expect.poll(() => gauges(page).textContent()).toContain('budget 8,000 tokens');
    // Two more messages take the requests past 8,000 tokens (about 12,000 without the budget).
    for (const text of ['payment timeout', 'inventory stock']) {
      const answers = await page.getByText(/grep found \d+ matching lines/).count();
      await send(page, text);
      await expect.poll(() => page.getByText(/grep found \d+ matching lines/).count()).toBe(answers + 1);
    }
    // The first message's results are the oldest: cleared at the third, and by then evicted too
    // (the 3 MiB bound), so the Evictions timeline marks them.
    const inspector = page.getByRole('region', { name: 'Tool output inspector' });
    const clearedMarks = async () => {
      await inspector.getByRole('tab', { name: /^Evictions/ }).click();
      return inspector.locator('.timeline .cleared-mark').allTextContents();
    };
    await expect.poll(clearedMarks).toContainEqual(expect.stringMatching(/^cleared from the context since step \d+$/));
    // Results still stored were cleared too (the script's call ids repeat each step; the model
    // makes them unique in the thread): the Entries tab marks each one the Context tab calls a pointer.
    const entryMarks = async () => {
      await inspector.getByRole('tab', { name: /^Entries/ }).click();
      return inspector.getByRole('grid', { name: 'Stored entries' }).locator('.cleared-mark').count();
    };
    await expect.poll(entryMarks).toBeGreaterThan(0);
    const marked = await entryMarks();
    // The Context tab on the demo's own data: the tallest bar and the budget line at least a third
    // of the chart's height (the line without the offload, far above, is marked off the scale).
    await inspector.getByRole('tab', { name: 'Context' }).click();
    await expect.poll(() => inspector.locator('[role="option"].ctx-step').count()).toBeGreaterThan(5);
    const heights = await inspector.locator('.ctx-track').evaluate((track) => {
      const chart = track.querySelector('svg.ctx-svg')!.getBoundingClientRect();
      const parts = [...track.querySelectorAll('rect.ctx-part')].map((rect) => rect.getBoundingClientRect());
      const baseline = Math.max(...parts.map((rect) => rect.bottom));
      const budget = track.querySelector('path.ctx-budget')!;
      return {
        chart: chart.height,
        tallest: baseline - Math.min(...parts.map((rect) => rect.top)),
        budget: baseline - budget.getBoundingClientRect().top,
        budgetName: budget.getAttribute('aria-label'),
      };
    });
    expect(heights.tallest).toBeGreaterThanOrEqual(heights.chart / 3);
    expect(heights.budget).toBeGreaterThanOrEqual(heights.chart / 3);
    expect(heights.budgetName).toBe('budget: 8,000 tokens');
    await page.reload();
    await expect.poll(() => budgetSwitch(page).isChecked()).toBe(true);
    await expect.poll(clearedMarks).toContainEqual(expect.stringMatching(/^cleared from the context since step \d+$/));
    await expect.poll(entryMarks).toBe(marked);
    await closeDemo(page);
  }, 600_000);

  for (const runtime of ['ai-sdk', 'langchain']) {
    it(`reaches the ${runtime} runtime's requests: each is fitted to the budget and recorded`, async () => {
      const page = await openDemo();
      await page.getByLabel('Runtime').selectOption(runtime);
      await budgetSwitch(page).check();
      await send(page, 'Why did checkout fail yesterday?');
      await expectScenarioShown(page);
      await expect.poll(() => gauges(page).textContent()).toContain('budget 8,000 tokens');
      await budgetSwitch(page).uncheck();
      await send(page, 'payment timeout');
      await expect.poll(() => page.getByText(/grep found \d+ matching lines/).count()).toBe(1);
      // Its latest request had no budget: none is shown.
      await expect.poll(() => gauges(page).textContent()).not.toContain('budget');
      await closeDemo(page);
    }, 600_000);
  }
});

// Stored paths are named by offloadResult (the framework's tool call id and a hash of the text), not by the runtime's idempotency keys.
describe.each([
  {
    runtime: 'ai-sdk',
    framework: 'Vercel AI SDK runtime (generateText with withOffload)',
    // The script's id made unique in the thread (call_1_m1s0: message 1, step 0), then the runtime's tag.
    path: /^call_\d_m\d+s\d+-[0-9a-f]{1,8}-[A-Za-z0-9_-]{16}$/,
  },
  {
    runtime: 'langchain',
    framework: 'LangChain.js runtime (createAgent with offloadMiddleware)',
    path: /^lc_call_\d+-[A-Za-z0-9_-]{16}$/,
  },
])('the demo on the $framework', ({ runtime, path: name }) => {
  it('runs the same scenario: offload, read-back and eviction; a reload shows them again', async () => {
    const page = await openDemo();
    await page.getByLabel('Runtime').selectOption(runtime);
    await send(page, 'Why did checkout fail yesterday?');
    await expectScenarioShown(page);
    for (const path of await storedPaths(page)) expect(path.slice('/large_tool_results/'.length)).toMatch(name);
    const before = await page.getByRole('region', { name: 'Conversation' }).textContent();

    await page.reload();
    expect(await page.getByLabel('Runtime').inputValue()).toBe(runtime);
    await expectScenarioShown(page);
    expect(await page.getByRole('region', { name: 'Conversation' }).textContent()).toBe(before);
    await closeDemo(page);
  }, 600_000);
});

describe('the demo with an OpenAI-compatible endpoint (a fake one, by route interception)', () => {
  it('offloads through the real adapter; HTTP errors and malformed replies fail the run clearly and lose nothing', async () => {
    const page = await openDemo();
    const bodies: Array<{ stream?: boolean; messages: Array<{ role: string; content: unknown }> }> = [];
    const headers: Array<Record<string, string>> = [];
    const replies: Array<(route: Route) => Promise<void>> = [
      (route) =>
        route.fulfill({
          json: {
            choices: [
              {
                message: {
                  role: 'assistant',
                  content: null,
                  tool_calls: [
                    {
                      id: 'call_x',
                      type: 'function',
                      function: { name: 'fetch_page', arguments: '{"url":"https://docs.example.com/api/reference"}' },
                    },
                  ],
                },
              },
            ],
          },
        }),
      // Streamed, as the demo asks: two text deltas over server-sent events.
      (route) =>
        route.fulfill({
          contentType: 'text/event-stream',
          body: [
            ...['Read the ', 'preview.'].map((content) => ({ choices: [{ index: 0, delta: { content } }] })),
            { choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] },
          ]
            .map((event) => `data: ${JSON.stringify(event)}\n\n`)
            .concat('data: [DONE]\n\n')
            .join(''),
        }),
      (route) => route.fulfill({ status: 500, body: 'upstream exploded' }),
      (route) => route.fulfill({ status: 200, contentType: 'text/html', body: '<html>proxy login</html>' }),
      (route) => route.fulfill({ json: { choices: [{ message: { role: 'assistant', content: 'Back again.' } }] } }),
    ];
    await page.route('**/fake-llm/v1/chat/completions', async (route) => {
      bodies.push(route.request().postDataJSON());
      headers.push(route.request().headers());
      await replies[bodies.length - 1]!(route);
    });

    await page.locator('.settings summary', { hasText: 'Model:' }).click();
    await page.getByLabel('OpenAI-compatible endpoint').check();
    await page.getByLabel('Base URL').fill(`${server!.url}fake-llm/v1`);
    await page.getByLabel('Model name').fill('fake-model');
    await page.getByLabel('API key').fill('sk-demo-key');
    await page.getByRole('button', { name: 'Use this model' }).click();

    await send(page, 'Check the API reference');
    await page.getByText('Read the preview.').waitFor();
    expect(headers[0]!.authorization).toBe('Bearer sk-demo-key');
    // The demo asks for a stream; a server answering whole (the first reply) is read as well.
    expect(bodies.map((body) => body.stream)).toEqual([true, true]);
    // The 800 KB page went to the store: the next request carries only its preview.
    const toolMessage = bodies[1]!.messages.find((m) => m.role === 'tool')!;
    expect(String(toolMessage.content)).toMatch(/^\[Stored tool result\][\s\S]*Path: \/large_tool_results\//);
    expect(JSON.stringify(bodies[1]).length).toBeLessThan(20_000);
    // The key is kept for this tab only.
    const storage = await page.evaluate(() => JSON.stringify({ ...localStorage }));
    expect(storage).not.toContain('sk-demo-key');

    await send(page, 'Again');
    await page
      .getByRole('alert')
      .getByText(/HTTP 500.*upstream exploded/)
      .waitFor();
    await page.getByRole('button', { name: 'Retry' }).click();
    await page
      .getByRole('alert')
      .getByText(/not JSON: <html>proxy login<\/html>/)
      .waitFor();
    await page.getByRole('button', { name: 'Retry' }).click();
    await page.getByText('Back again.').waitFor();
    const conversation = await page.getByRole('region', { name: 'Conversation' }).textContent();
    for (const text of ['Check the API reference', 'Read the preview.', 'Again', 'Back again.']) {
      expect(conversation).toContain(text);
    }
    expect(bodies).toHaveLength(5);
    await closeDemo(page);
  }, 600_000);
});
