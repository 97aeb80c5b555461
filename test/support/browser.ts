import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

/** Debian's Chromium (`apt-get install chromium`, done by `.ci/run`); overridable for other machines. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Flags that keep a headless Chromium quiet on a closed network: without the background-networking
 * switches it keeps trying Google's hosts, and as root it needs --no-sandbox.
 */
const FLAGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-dev-shm-usage',
  // Only local names resolve: a request anywhere else fails in the browser's own resolver. (Routing
  // every request through Playwright to abort the foreign ones cost a round trip to Node per request.)
  '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE localhost, EXCLUDE 127.0.0.1',
];

export interface BrowserSession {
  readonly browser: Browser;
  readonly context: BrowserContext;
  readonly page: Page;
  /** Every request the page tried to send anywhere but 127.0.0.1 / localhost (they fail: nothing else resolves). */
  readonly externalRequests: string[];
  /** Messages the page logged at `error` level and uncaught page errors. */
  readonly pageErrors: string[];
  /**
   * Resolves once the page has had no request in flight for `quietMs` (playwright's 'networkidle'
   * waits a fixed 500 ms after the last one; a page of this UI settles in far less).
   */
  settled(quietMs?: number): Promise<void>;
  /** Saves a full-page PNG under `test-results/screenshots/<name>.png` (CI keeps it as an artifact). */
  screenshot(name: string): Promise<string>;
  close(): Promise<void>;
}

function isLocal(url: string): boolean {
  if (url.startsWith('data:') || url.startsWith('blob:') || url.startsWith('about:')) return true;
  try {
    const host = new URL(url).hostname;
    return host === '127.0.0.1' || host === 'localhost' || host === '[::1]';
  } catch {
    return false;
  }
}

/** A headless Chromium whose page may only reach 127.0.0.1: anything else is recorded and aborted. */
export async function openBrowser(): Promise<BrowserSession> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: FLAGS });
  const context = await browser.newContext({ viewport: { width: 1366, height: 900 } });
  const externalRequests: string[] = [];
  const pageErrors: string[] = [];
  let inFlight = 0;
  let lastActivity = Date.now();
  context.on('request', (request) => {
    if (!isLocal(request.url())) externalRequests.push(request.url());
  });
  const page = await context.newPage();
  page.on('request', () => {
    inFlight++;
    lastActivity = Date.now();
  });
  const ended = (): void => {
    inFlight--;
    lastActivity = Date.now();
  };
  page.on('requestfinished', ended);
  page.on('requestfailed', ended);
  page.on('pageerror', (error) => pageErrors.push(error.message));
  page.on('console', (message) => {
    // A failed load names no URL in its console text: the location says which request it was.
    if (message.type() === 'error')
      pageErrors.push(
        message.location().url && message.text().startsWith('Failed to load resource')
          ? `${message.text()}: ${message.location().url}`
          : message.text(),
      );
  });
  return {
    browser,
    context,
    page,
    externalRequests,
    pageErrors,
    async settled(quietMs = 100) {
      // A bounded condition wait on the page's own traffic, polled at a frame's pace.
      const deadline = Date.now() + 30_000;
      while (inFlight > 0 || Date.now() - lastActivity < quietMs) {
        if (Date.now() > deadline) throw new Error(`the page kept ${String(inFlight)} request(s) in flight for 30 s`);
        await new Promise((resolve) => setTimeout(resolve, 16));
      }
    },
    async screenshot(name) {
      const dir = path.resolve('test-results/screenshots');
      await mkdir(dir, { recursive: true });
      const file = path.join(dir, `${name}.png`);
      await page.screenshot({ path: file, fullPage: true });
      return file;
    },
    async close() {
      await browser.close();
    },
  };
}
