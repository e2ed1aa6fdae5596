import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import AxeBuilder from '@axe-core/playwright';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';

/** Debian's Chromium (CI installs it); Playwright's own browser download cannot work here. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const haveChromium = existsSync(CHROMIUM);

/** Screenshots and measurements for a reviewer and `npm run bench`; ignored by git. */
export const OUTPUT = path.join(__dirname, '..', 'test-output');

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
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
}

/** A page of a context of its own (axe needs one the test made), its console errors collected. */
export async function openPage(browser: Browser, width: number): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  const problems: string[] = [];
  page.on('console', (message) => {
    // Chromium logs every 4xx answer as an error; the API's refusals are shown in the page.
    if (message.type() === 'error' && !/status of 4\d\d/.test(message.text())) problems.push(message.text());
  });
  page.on('pageerror', (error) => problems.push(error.message));
  return { page, problems };
}

/** The page as a person sees it, saved as `<width>/<name>.png` and checked by axe: no serious or critical violation. */
export async function look(page: Page, width: number, name: string): Promise<void> {
  await page.waitForLoadState('networkidle');
  const shots = path.join(OUTPUT, String(width));
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${name}.png`), fullPage: true });
  const { violations } = await new AxeBuilder({ page }).analyze();
  const serious = violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  expect(serious.map((v) => `${name}: ${v.id} ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`)).toEqual([]);
}

/** Moves to a page through the navigation (behind the Menu button at phone width). */
export async function go(page: Page, label: string): Promise<void> {
  const menu = page.getByRole('button', { name: 'Menu' });
  if (await menu.isVisible()) await menu.click();
  await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: label, exact: true }).click();
  await page.getByRole('heading', { level: 1 }).first().waitFor();
}

export async function signIn(page: Page, email: string, password: string): Promise<void> {
  await page.getByLabel('E-mail').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
}

/** Clicks a navigation link in the page and resolves with the milliseconds until no loading note is left. */
export function timeToData(page: Page, label: string): Promise<number> {
  return page.evaluate(
    (name) =>
      new Promise<number>((resolve) => {
        const link = [...document.querySelectorAll<HTMLAnchorElement>('#nav a')].find((a) => a.textContent === name)!;
        const started = performance.now();
        const done = () => !document.querySelector('main [data-loading]') && document.querySelector('main h1') !== null;
        const observer = new MutationObserver(() => {
          if (!done()) return;
          observer.disconnect();
          resolve(performance.now() - started);
        });
        observer.observe(document.body, { childList: true, subtree: true, characterData: true });
        link.click();
      }),
    label,
  );
}

/** The q-quantile (0..1) of some figures, nearest rank. */
export function quantile(figures: number[], q: number): number {
  const sorted = [...figures].sort((a, b) => a - b);
  return Math.round(sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]);
}

export async function expectText(scope: Locator | Page, text: string): Promise<void> {
  const locator = 'goto' in scope ? scope.locator('body') : scope;
  const deadline = Date.now() + 15_000;
  let seen = '';
  while (Date.now() < deadline) {
    seen = await locator.innerText();
    if (seen.includes(text)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  // The page's error notes first: a long page's text is cut short in a CI log.
  const alerts = await locator.getByRole('alert').allInnerTexts();
  expect(alerts.length > 0 ? `alerts: ${alerts.join(' | ')}\n${seen}` : seen).toContain(text);
}
