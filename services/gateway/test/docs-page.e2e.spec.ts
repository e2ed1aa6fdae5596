import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { registerUser, request, startPlatform, suiteFixture } from '@agentplatform/testing';

/** Debian's Chromium; CI installs it (.ci/run). Playwright's own browser download cannot work here. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const haveChromium = existsSync(CHROMIUM);
if (!haveChromium) {
  // Said once, visibly, rather than passing in silence.
  process.stderr.write(`docs page browser test skipped: no Chromium at ${CHROMIUM} (apt-get install chromium)\n`);
}

/**
 * The page a newcomer lands on, in a real browser: `/docs` renders offline, Authorize takes a
 * token, and "Try it out" runs every operation's example with no 5xx and no console error.
 */
describe('the /docs page', () => {
  const platform = suiteFixture(() => startPlatform());

  it('answers the bare addresses with where to go', async () => {
    for (const at of ['/', '/api/v1', '/v1']) {
      const res = await request(platform.url, 'GET', at);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ docs: '/docs', openapi: '/api/v1/openapi.json' });
    }
    const page = await request(platform.url, 'GET', '/docs');
    expect(page.text).toContain('name="viewport"');
  });

  (haveChromium ? it : it.skip)(
    'authorizes and runs every example with no 5xx and no console error',
    async () => {
      const user = await registerUser(platform.url);
      let browser: Browser | undefined;
      try {
        browser = await chromium.launch({
          executablePath: CHROMIUM,
          args: [
            '--headless',
            '--no-sandbox',
            '--disable-gpu',
            '--disable-quic',
            '--no-first-run',
            '--disable-background-networking',
            '--disable-component-update',
            '--disable-sync',
          ],
        });
        const page = await browser.newPage();
        const consoleErrors: string[] = [];
        const serverErrors: string[] = [];
        page.on('console', (message) => {
          // Chromium logs every 4xx answer as a console error; the API answering 404 for an
          // example id that does not exist is the documented behaviour, not a page error.
          if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) consoleErrors.push(message.text());
        });
        page.on('pageerror', (error) => consoleErrors.push(error.message));
        page.on('response', (response) => {
          if (response.status() >= 500) serverErrors.push(`${response.status()} ${response.url()}`);
        });

        await page.goto(`${platform.url}/docs`);
        await page.locator('.opblock').first().waitFor();

        // Swagger UI's own class names: its buttons' accessible names vary between its versions.
        await page.locator('button.authorize').first().click();
        const bearer = page.locator('.auth-container', { hasText: 'bearer' }).first();
        await bearer.locator('input').first().fill(user.accessToken);
        await bearer.locator('button.authorize').click();
        await page.locator('button.btn-done').first().click();

        const operations = page.locator('.opblock');
        const count = await operations.count();
        expect(count).toBeGreaterThan(40);
        const statuses: Record<string, number> = {};
        for (let i = 0; i < count; i++) {
          const operation = operations.nth(i);
          const label = (await operation.locator('.opblock-summary-path').first().innerText()).trim();
          const method = (await operation.locator('.opblock-summary-method').innerText()).trim();
          await operation.locator('.opblock-summary').click();
          await operation.locator('button.try-out__btn').click();
          await operation.locator('button.execute').click();
          const status = operation.locator('.live-responses-table tr.response .response-col_status').first();
          // An operation whose request never went out (a required field the example lacks) shows
          // up as status 0 in the assertion below, with its name, instead of stopping the test.
          await status.waitFor({ timeout: 20_000 }).catch(() => undefined);
          const text = (await status.count()) > 0 ? await status.innerText() : '0';
          statuses[`${method} ${label}`] = Number(text.trim().slice(0, 3));
          await operation.locator('.opblock-summary').click();
        }
        expect(serverErrors).toEqual([]);
        expect(Object.entries(statuses).filter(([, s]) => !(s >= 200 && s < 500))).toEqual([]);
        expect(consoleErrors).toEqual([]);
        // The examples are real: creating an agent and a workflow from them works.
        expect(statuses['POST /agents']).toBe(201);
        expect(statuses['POST /workflows']).toBe(201);
      } finally {
        await browser?.close();
      }
    },
    600_000,
  );
});
